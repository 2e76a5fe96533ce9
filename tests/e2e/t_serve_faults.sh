#!/usr/bin/env bash
# zt serve under faults:
# - SIGKILL during ingest, then a restart: every profile that got a success
#   answer is there and intact (its samples all queryable), and partial
#   uploads left nothing behind (no temporary file, no recording without
#   its catalogue row);
# - a full disk (a 4 MiB tmpfs): a clear 507 with a JSON reason, the store
#   still consistent and serving, ingest working again once space is freed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
cd "$T"
GEN=$(dirname "$WL")/ztgen
D=$T/data
mkdir -p in
for i in $(seq 1 120); do "$GEN" fleet $((5000 + i)) in/$i.zt 3000 || fail "ztgen $i"; done

TOKEN=$("$ZT" serve token create --scope push,read,admin --data-dir "$D" 2> tok.err)
check "a token is created" [ ${#TOKEN} -ge 32 ]
serve_start "$D" || { fail "zt serve starts"; finish; }

# pushers: each success answer is written down (id), in order
pusher() { # pusher FIRST LAST
	local i c
	for i in $(seq "$1" "$2"); do
		c=$(curl -s -o "acks/$i.body" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
			--data-binary @"in/$i.zt" "$SERVE_URL/api/v1/profiles")
		case $c in 200|201) echo "$i $(sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p' "acks/$i.body")" >> acked.$1 ;; esac
	done
}
mkdir -p acks
pusher 1 40 & p1=$!
pusher 41 80 & p2=$!
pusher 81 120 & p3=$!
# kill it while ingests are under way
for i in $(seq 50); do [ "$(cat acked.* 2> /dev/null | wc -l)" -ge 10 ] && break; sleep 0.1; done
kill -9 "$SERVE_PID"
wait "$SERVE_PID" 2> /dev/null
wait $p1 $p2 $p3
cat acked.* > acked 2> /dev/null
n=$(wc -l < acked)
check "some pushes were acknowledged before the kill ($n)" [ "$n" -ge 10 ]
check "and some were not ($n of 120)" [ "$n" -lt 120 ]

serve_start "$D" || { fail "zt serve restarts after SIGKILL"; finish; }
missing=0 bad=0
while read -r i id; do
	api GET "/api/v1/profiles/$id" > p.json
	[ "$(code)" = 200 ] || { missing=$((missing + 1)); continue; }
	# intact: all its samples are in a query of it alone
	api GET "/api/v1/top?id=$id&limit=1" > f.txt
	s=$(sed -n 's/^{"profiles":[0-9]*,"samples":\([0-9]*\),.*/\1/p' f.txt)
	[ "$s" = 3000 ] || { bad=$((bad + 1)); echo "  $id: $s samples of 3000"; }
done < acked
check "every acknowledged profile is there after the restart" [ "$missing" = 0 ]
check "and intact (3000 samples each)" [ "$bad" = 0 ]
api GET "/api/v1/profiles" > list.json
listed=$(grep -o '"id":"[0-9a-f]*"' list.json | sort -u | wc -l)
files=$(find "$D/profiles" -type f | wc -l)
check "no recording left without its catalogue row ($files files, $listed profiles)" [ "$files" = "$listed" ]
check "no partial upload left in tmp/" [ -z "$(ls -A "$D/tmp" 2> /dev/null)" ]
# the same bodies again: the unacknowledged ones are stored now, the others not twice
for i in $(seq 1 120); do
	curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $TOKEN" \
		--data-binary @"in/$i.zt" "$SERVE_URL/api/v1/profiles"
done > codes2
check "re-pushing everything: all answered 200 or 201" [ "$(grep -cE '^20[01]$' codes2)" = 120 ]
check "acknowledged ones answered 200 (already stored)" [ "$(grep -c '^200$' codes2)" -ge "$n" ]
api GET "/api/v1/profiles" > list.json
check "120 profiles, each once" [ "$(grep -o '"id":"[0-9a-f]*"' list.json | sort -u | wc -l)" = 120 ]
serve_stop

# ---- a full disk ----
if mkdir -p small && mount -t tmpfs -o size=4m tmpfs small 2> /dev/null; then
	trap 'umount -l "$T/small" 2> /dev/null; cleanup' EXIT
	TOKEN=$("$ZT" serve token create --scope push,read,admin --data-dir small/d 2> tok.err)
	serve_start small/d || { fail "zt serve on a small tmpfs"; finish; }
	full=0 stored=0
	for i in $(seq 1 120); do
		c=$(curl -s -o body -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
			--data-binary @"in/$i.zt" "$SERVE_URL/api/v1/profiles")
		case $c in
		201) stored=$((stored + 1)) ;;
		507) full=1; break ;;
		*) fail "push $i on a filling disk: $c $(cat body)"; break ;;
		esac
	done
	check "a full disk answers 507 (after $stored profiles)" [ "$full" = 1 ]
	check "with a JSON reason" grep -q '"error"' body
	api GET /api/v1/profiles > list.json
	check "the store still serves its list" [ "$(code)" = 200 ]
	check "with every profile stored before ($stored)" \
		[ "$(grep -o '"id":"[0-9a-f]*"' list.json | sort -u | wc -l)" = "$stored" ]
	ok2=0
	for id in $(grep -o '"id":"[0-9a-f]*"' list.json | cut -d'"' -f4); do
		api GET "/api/v1/top?id=$id&limit=1" > f.txt
		[ "$(sed -n 's/^{"profiles":[0-9]*,"samples":\([0-9]*\),.*/\1/p' f.txt)" = 3000 ] &&
			ok2=$((ok2 + 1))
	done
	check "each of them intact" [ "$ok2" = "$stored" ]
	check "no partial upload left in tmp/" [ -z "$(ls -A small/d/tmp 2> /dev/null)" ]
	# free space: delete two profiles, and ingest works again. (Frames and
	# stacks stay in the catalogue, shared by every profile: these
	# generated profiles have ~10,000 new frames each, more than two
	# deleted ones free, so a deleted one is what is pushed again.)
	for id in $(grep -o '"id":"[0-9a-f]*"' list.json | cut -d'"' -f4 | head -2); do
		api DELETE "/api/v1/profiles/$id" > /dev/null
	done
	first=$(grep -o '"id":"[0-9a-f]*"' list.json | cut -d'"' -f4 | head -1) again=1
	for i in $(seq 1 "$stored"); do
		[ "$(sha256sum < "in/$i.zt" | cut -d' ' -f1)" = "$first" ] && again=$i
	done
	c=$(curl -s -o body -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
		--data-binary @"in/$again.zt" "$SERVE_URL/api/v1/profiles")
	check "after deleting, a push is stored again ($c)" [ "$c" = 201 ]
	serve_stop
	umount -l small
else
	echo "  skipped: the full-disk part needs root to mount a tmpfs"
fi
finish
