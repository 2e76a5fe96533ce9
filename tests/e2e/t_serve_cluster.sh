#!/usr/bin/env bash
# zt serve on a ClickHouse cluster: two ClickHouse servers on loopback (one
# shard each, tables local on each, Distributed tables over them) and two
# zt serve instances sharing them.
# - a push to either is seen by both; the profiles spread over both shards;
#   merged queries read both and answer as the embedded store does;
# - zt serve killed mid-ingest: every acknowledged profile is there, once;
# - ClickHouse stopped: pushes answered 503 (retryable, said why), zt push
#   succeeds once it is back; a shard restarted: nothing twice;
# - --retention drops old days by partition; the schema is versioned.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
. "$(dirname "$0")/chlib.sh"
decode=$(cd "$(dirname "$0")/pprof-decode" && pwd)/decode.sh
cd "$T"
GEN=$(dirname "$WL")/ztgen
ch_available || { fail "clickhouse-server installed (scripts/setup.sh --test)"; finish; }
ch_cluster_start 2 || { fail "a two-shard ClickHouse cluster starts"; finish; }
read -r U1 U2 <<< "$CH_URLS"
ok "ClickHouse cluster: $U1 and $U2"

mkdir -p in
for i in $(seq 1 42); do "$GEN" fleet $((700 + i)) in/$i.zt 2000 || fail "ztgen $i"; done

printf 'user = zt\npassword = zt-secret\n' > creds
chmod 600 creds
CH=(--clickhouse "$U1,$U2" --clickhouse-cluster zt --clickhouse-credentials creds)

# ---- start-up checks ---------------------------------------------------------------
chmod 644 creds
"$ZT" serve --listen 127.0.0.1:1 --data-dir "$T/x" "${CH[@]}" 2> perm.err
check "credentials readable by others: refused" [ $? -ne 0 ]
check "... saying to chmod 600" grep -q "chmod 600" perm.err
chmod 600 creds
printf 'user = zt\npassword = wrong\n' > badcreds
chmod 600 badcreds
"$ZT" serve --listen 127.0.0.1:1 --data-dir "$T/x" --clickhouse "$U1" --clickhouse-credentials badcreds 2> badpw.err
check "a wrong password: zt serve does not start" [ $? -ne 0 ]
check "... with ClickHouse's reason ($(head -c 160 badpw.err))" grep -qiE "password|authenticat" badpw.err
"$ZT" serve --listen 127.0.0.1:1 --data-dir "$T/x" --clickhouse "$U1" --clickhouse-cluster zt \
	--clickhouse-credentials creds 2> shards.err
check "one URL for a two-shard cluster: refused, naming the shards" grep -q "has 2 shards" shards.err
"$ZT" serve --listen 127.0.0.1:1 --data-dir "$T/x" --clickhouse "$U1,$U2" 2> nocl.err
check "two URLs without --clickhouse-cluster: refused" grep -q "clickhouse-cluster" nocl.err

# ---- two instances -------------------------------------------------------------------
# one token for both instances: created on A, imported on B
TA=$("$ZT" serve token create --scope push,read,admin --data-dir "$T/a" 2> /dev/null)
printf '%s\n' "$TA" | "$ZT" serve token import --scope push,read,admin --name shared --data-dir "$T/b" 2> imp.err
check "the token imported on B" grep -q "token shared imported with scopes push,read,admin" imp.err
TB=$TA
serve_start "$T/a" "${CH[@]}" || { fail "zt serve A starts on the cluster"; finish; }
A_PID=$SERVE_PID A_URL=$SERVE_URL
serve_start "$T/b" "${CH[@]}" || { fail "zt serve B starts on the cluster"; finish; }
B_PID=$SERVE_PID B_URL=$SERVE_URL
check "zt serve names ClickHouse's version" grep -q "profiles in ClickHouse 1[0-9.]* at $U1" "$T/serve.err"
for i in 1 2; do
	check "server $i: zt's tables, schema version 2" \
		[ "$(ch_query $i 'SELECT max(version) FROM zt.schema_local')" = 2 ]
done

push() { # push URL TOKEN FILE: the HTTP code; the answer in push.out
	curl -s -o push.out -w '%{http_code}' -H "Authorization: Bearer $2" --data-binary @"$3" "$1/api/v1/profiles"
}
codes=
for i in $(seq 1 8); do
	if [ $((i % 2)) -eq 1 ]; then codes+=" $(push "$A_URL" "$TA" in/$i.zt)"; else codes+=" $(push "$B_URL" "$TB" in/$i.zt)"; fi
done
check "8 pushes, to A and B in turn: 201 each ($codes)" [ "$codes" = " 201 201 201 201 201 201 201 201" ]
list() { curl -s -H "Authorization: Bearer $2" "$1/api/v1/profiles" | grep -o '"id":"[0-9a-f]*"' | sort; }
list "$A_URL" "$TA" > la
list "$B_URL" "$TB" > lb
check "A lists the 8 profiles" [ "$(wc -l < la)" -eq 8 ]
check "B lists the same 8" cmp -s la lb
s1=$(ch_query 1 'SELECT uniqExact(profile) FROM zt.samples_local')
s2=$(ch_query 2 'SELECT uniqExact(profile) FROM zt.samples_local')
check "the profiles spread over both shards ($s1 + $s2)" eval '[ "${s1:-0}" -gt 0 ] && [ "${s2:-0}" -gt 0 ] && [ $((s1 + s2)) -eq 8 ]'

# the embedded store, the same 8 pushed: the oracle of every merged answer
TC=$("$ZT" serve token create --scope push,read,admin --data-dir "$T/c" 2> /dev/null)
serve_start "$T/c" || { fail "zt serve C (embedded store) starts"; finish; }
C_URL=$SERVE_URL
for i in $(seq 1 8); do push "$C_URL" "$TC" in/$i.zt > /dev/null; done
get() { curl -s -H "Authorization: Bearer $2" "$1/api/v1/$3"; }
for q in "top?limit=40" "top?limit=40&sort=children" "folded" "top?host=host03&limit=10" \
	"top?command=app2"; do
	get "$C_URL" "$TC" "$q" > c.out
	get "$A_URL" "$TA" "$q" > a.out
	get "$B_URL" "$TB" "$q" > b.out
	check "merged $q: A and B answer as the embedded store ($(wc -c < c.out) bytes)" \
		eval '[ -s c.out ] && cmp -s c.out a.out && cmp -s c.out b.out'
done
# the query model (selectors, processes, time, the timeline, discovery) as the embedded store
from=$(get "$C_URL" "$TC" "timeline?query=cpu" | sed -n 's/.*"from":\([0-9]*\),.*/\1/p')
enc() { node -e 'console.log(encodeURIComponent(process.argv[1]))' "$1" 2> /dev/null ||
	python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
for q in "top?limit=20&query=$(enc '{__name__="cpu",host=~"host0[1-3]"}')" \
	"folded?query=$(enc 'cpu{comm=~"app.*",host!="host02"}')" \
	"top?limit=10&query=$(enc '{pid="1001"}')" \
	"top?limit=10&query=cpu&from=$((from + 10))&to=$((from + 19))" \
	"timeline?query=cpu" "timeline?query=$(enc 'cpu{comm="worker-1"}')&step=20" \
	"labels" "label/host/values" "label/comm/values" "label/pid/values" \
	"label/__name__/values" "labels?match[]=$(enc '{host="host03"}')"; do
	get "$C_URL" "$TC" "$q" > c.out
	get "$A_URL" "$TA" "$q" > a.out
	get "$B_URL" "$TB" "$q" > b.out
	check "$q: A and B answer as the embedded store ($(wc -c < c.out) bytes)" \
		eval '[ -s c.out ] && ! grep -q error c.out && cmp -s c.out a.out && cmp -s c.out b.out'
	nq=$((${nq:-0} + 1))
	cmp -s c.out a.out || { cp c.out "q$nq.c"; cp a.out "q$nq.a"; }
done
tot() { get "$1" "$2" "profiles?limit=2&offset=1&query=$(enc '{host!="host02"}')" |
	sed -n 's/.*"total":\([0-9]*\)}$/\1/p'; }
check "the list's total, paged, as the embedded store's" \
	eval '[ -n "$(tot "$C_URL" "$TC")" ] && [ "$(tot "$C_URL" "$TC")" = "$(tot "$A_URL" "$TA")" ]'
# pprof: the same profile, its samples in another order (by each store's stack ids)
get "$C_URL" "$TC" pprof > c.pb.gz
get "$B_URL" "$TB" pprof > b.pb.gz
"$decode" c.pb.gz > c.dec 2> cdec.err
"$decode" b.pb.gz > b.dec 2> bdec.err
check "merged pprof: B's decodes as the embedded store's ($(grep -c '^stack' c.dec) stacks)" \
	eval '[ -s c.dec ] && cmp -s c.dec b.dec'
get "$A_URL" "$TA" "flame" > a.svg
check "a merged flame graph from A" eval 'wellformed a.svg && grep -q "kfunc_" a.svg'
one=$(sed -n 1p la | cut -d'"' -f4)
get "$B_URL" "$TB" "profiles/$one" > one.json
get "$C_URL" "$TC" "profiles/$one" > onec.json
check "one profile's object: as the embedded store's (but pushed_at)" \
	eval 'cmp -s <(sed "s/\"pushed_at\":[0-9]*//" one.json) <(sed "s/\"pushed_at\":[0-9]*//" onec.json)'

# the same body again: stored once
check "the same recording pushed to B again: 200" [ "$(push "$B_URL" "$TB" in/1.zt)" = 200 ]
check "... said already stored" grep -q '"stored":false' push.out
total() { get "$1" "$2" "top?limit=1" | sed -n 's/.*"samples":\([0-9]*\).*/\1/p' | head -1; }
check "merged samples: 8 x 2000 ($(total "$A_URL" "$TA"))" [ "$(total "$A_URL" "$TA")" = 16000 ]

# projects on ClickHouse: a project's token sees its own; a profile also in
# another project is not deleted by it
"$ZT" serve project create p1 --data-dir "$T/a" 2> /dev/null
P1=$("$ZT" serve token create --scope push,read,admin --project p1 --data-dir "$T/a" 2> /dev/null)
sleep 1.2 # the server takes new tokens within a second
check "a body pushed by project p1's token: 201" [ "$(push "$A_URL" "$P1" in/40.zt)" = 201 ]
pid40=$(sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p' push.out)
list "$A_URL" "$P1" > lp1
check "p1 lists that one profile only" [ "$(cat lp1)" = "\"id\":\"$pid40\"" ]
check "the same body into the default project: 200" [ "$(push "$A_URL" "$TA" in/40.zt)" = 200 ]
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE -H "Authorization: Bearer $P1" "$A_URL/api/v1/profiles/$pid40")
check "p1's token cannot delete a profile also in the default project: 409" [ "$code" = 409 ]
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE -H "Authorization: Bearer $TA" "$A_URL/api/v1/profiles/$pid40")
check "a token of every project deletes it: 204" [ "$code" = 204 ]

# labels with a quote and a backslash, and a label selection
curl -s -o /dev/null -H "Authorization: Bearer $TA" --data-binary @in/9.zt \
	"$A_URL/api/v1/profiles?label=team=o%27brien%5C"
curl -s -H "Authorization: Bearer $TB" "$B_URL/api/v1/profiles?label=team=o%27brien%5C" > lab.json
pat='"team":"o'"'"'brien\\"'
check "a label with a quote and a backslash, selected through B" \
	eval '[ "$(grep -o '"'"'"id"'"'"' lab.json | wc -l)" -eq 1 ] && grep -qF "$pat" lab.json'
# the same body again with other labels: added, as the embedded store does
code=$(curl -s -o relab.out -w '%{http_code}' -H "Authorization: Bearer $TB" --data-binary @in/9.zt \
	"$B_URL/api/v1/profiles?label=team=x&label=run=2")
check "a re-push with other labels through B: 200, 2 labels added ($code)" \
	eval '[ "$code" = 200 ] && grep -q "\"labels_added\":2" relab.out'
nine=$(sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p' relab.out)
curl -s -o /dev/null -H "Authorization: Bearer $TC" --data-binary @in/9.zt "$C_URL/api/v1/profiles?label=team=o%27brien%5C"
curl -s -o /dev/null -H "Authorization: Bearer $TC" --data-binary @in/9.zt "$C_URL/api/v1/profiles?label=team=x&label=run=2"
get "$A_URL" "$TA" "profiles/$nine" > nine.json
get "$C_URL" "$TC" "profiles/$nine" > ninec.json
pat2='"team":["o'"'"'brien\\","x"],"run":"2"'
check "... its labels through A as the embedded store's ($(grep -o '"labels":{[^}]*}' nine.json))" \
	eval 'grep -qF "$pat2" nine.json && cmp -s <(sed "s/\"pushed_at\":[0-9]*//" nine.json) <(sed "s/\"pushed_at\":[0-9]*//" ninec.json)'
check "... selected by the new value through A" eval 'get "$A_URL" "$TA" "profiles?label=team=x" | grep -q "$nine"'
check "... its samples once ($(total "$A_URL" "$TA"))" [ "$(total "$A_URL" "$TA")" = 18000 ]

# delete through A: gone from B
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE -H "Authorization: Bearer $TA" "$A_URL/api/v1/profiles/$one")
check "DELETE through A: 204" [ "$code" = 204 ]
check "... gone from B's list" eval '! list "$B_URL" "$TB" | grep -q "$one"'
check "... and from B's merged samples (7 x 2000 + 2000 of the labelled one)" [ "$(total "$B_URL" "$TB")" = 16000 ]

# ---- zt serve killed mid-ingest --------------------------------------------------------
mkdir -p acks
pusher() { # pusher URL TOKEN FIRST LAST: acknowledged ids into acked
	local i c
	for i in $(seq "$3" "$4"); do
		c=$(curl -s -o "acks/$i.body" -w '%{http_code}' -H "Authorization: Bearer $2" \
			--data-binary @"in/$i.zt" "$1/api/v1/profiles")
		case $c in 200|201) sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p' "acks/$i.body" >> acked ;; esac
	done
}
: > acked
pusher "$A_URL" "$TA" 10 40 &
pp=$!
# killed once the first push is acknowledged (a fixed 0.4 s saw none on a
# loaded machine), with the others still going
for i in $(seq 100); do [ -s acked ] && break; sleep 0.1; done
kill -9 "$A_PID"
wait "$pp"
n=$(wc -l < acked)
check "A killed with pushes going on (acknowledged before: $n)" [ "$n" -ge 1 ]
list "$B_URL" "$TB" | cut -d'"' -f4 > lb2
missing=$(sort acked | comm -23 - <(sort lb2) | wc -l)
check "every acknowledged profile is listed by B ($missing missing)" [ "$missing" -eq 0 ]
nl=$(wc -l < lb2)
check "no profile counted twice: B's merged samples are its profiles' (${nl} listed)" \
	[ "$(total "$B_URL" "$TB")" = "$((nl * 2000))" ]

# ---- ClickHouse stopped, then back ---------------------------------------------------------
ch_stop 1
ch_stop 2
code=$(curl -s -o busy.out -D busy.hdr -w '%{http_code}' -H "Authorization: Bearer $TB" \
	--data-binary @in/41.zt "$B_URL/api/v1/profiles")
check "ClickHouse down: a push is answered 503 ($code)" [ "$code" = 503 ]
check "... with Retry-After" grep -qi '^Retry-After:' busy.hdr
check "... saying it was not stored and why ($(head -c 200 busy.out))" \
	grep -q "not stored, try again: cannot reach ClickHouse" busy.out
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TB" "$B_URL/api/v1/top")
check "ClickHouse down: a query is answered 503 ($code)" [ "$code" = 503 ]
ZT_TOKEN=$TB "$ZT" push -i in/41.zt --server "$B_URL" > zpush.out 2> zpush.err &
zp=$!
sleep 1.5
ch_start 1
ch_start 2
wait "$zp"
check "zt push, retrying, succeeds once ClickHouse is back ($(tail -n 1 zpush.err))" [ $? -eq 0 ]
check "... the profile stored ($(cat zpush.out))" grep -q "zt push: stored" zpush.out

# one shard stopped: pushes fail whole (503), nothing half-stored; back: once
ch_stop 2
code=$(push "$B_URL" "$TB" in/42.zt)
check "a shard down: a push is answered 503 ($code)" [ "$code" = 503 ]
ch_start 2
code=$(push "$B_URL" "$TB" in/42.zt)
check "the shard back: the push stored (201, $code)" [ "$code" = 201 ]
serve_start "$T/a" "${CH[@]}" || fail "zt serve A restarts"
A_URL=$SERVE_URL
check "A restarted: already stored (200)" [ "$(push "$A_URL" "$TA" in/42.zt)" = 200 ]
list "$A_URL" "$TA" | cut -d'"' -f4 > la3
nl=$(wc -l < la3)
check "A and B agree on every profile, counted once ($nl)" \
	eval '[ "$(total "$A_URL" "$TA")" = "$((nl * 2000))" ] && [ "$(total "$B_URL" "$TB")" = "$((nl * 2000))" ]'

# ---- retention -----------------------------------------------------------------------------
"$ZT" record -o today.data -- "$WL/hot" hot 1 > /dev/null 2>&1
check "a recording of today pushed" [ "$(push "$B_URL" "$TB" today.data)" = 201 ]
old=$(ch_query 1 "SELECT count() FROM system.parts WHERE active AND database = 'zt' AND table = 'samples_local' AND partition < '2026'")
check "the fleet recordings (2025) have partitions of their own ($old on server 1)" [ "${old:-0}" -gt 0 ]
TD=$("$ZT" serve token create --scope read --data-dir "$T/d" 2> /dev/null)
serve_start "$T/d" "${CH[@]}" --retention 30 || fail "zt serve --retention 30 starts"
for i in $(seq 50); do
	grep -q "retention 30: dropped" "$T/serve.err" && break
	sleep 0.1
done
check "--retention 30 drops the old days at start" grep -q "retention 30: dropped" "$T/serve.err"
list "$SERVE_URL" "$TD" > ld
check "only today's profile is left ($(wc -l < ld))" [ "$(wc -l < ld)" -eq 1 ]
for i in 1 2; do
	check "server $i: no partition before 2026 left" \
		[ "$(ch_query $i "SELECT count() FROM system.parts WHERE active AND database = 'zt' AND partition < '2026'")" = 0 ]
done

# ---- a schema newer than this zt --------------------------------------------------------
ch_query 1 "CREATE DATABASE IF NOT EXISTS ztnew" > /dev/null
ch_query 1 "CREATE TABLE ztnew.schema_local (version UInt32, at DateTime) ENGINE = MergeTree() ORDER BY version" > /dev/null
ch_query 1 "INSERT INTO ztnew.schema_local VALUES (99, now())" > /dev/null
"$ZT" serve --listen 127.0.0.1:1 --data-dir "$T/x" --clickhouse "$U1" --clickhouse-database ztnew \
	--clickhouse-credentials creds 2> newer.err
check "tables of a newer zt: refused ($(head -c 160 newer.err))" grep -q "newer than this zt's (2): upgrade zt" newer.err

finish
