#!/usr/bin/env bash
# zt serve under load: 32 concurrent `zt push` processes on loopback for a
# bounded time (LOAD_SECONDS, default 20), each pushing recordings of its
# own. Every acknowledged profile is stored once and queryable afterwards;
# prints the profiles/s and samples/s acknowledged.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
cd "$T"
GEN=$(dirname "$WL")/ztgen
D=$T/data
secs=${LOAD_SECONDS:-20}
N=32
SAMPLES=4000
TOKEN=$("$ZT" serve token create --scope push,read --data-dir "$D" 2> tok.err)
serve_start "$D" || { fail "zt serve starts"; finish; }

pusher() { # pusher K: until the deadline, generate and push recordings of its own
	local k=$1 j=0 out
	while [ "$(date +%s)" -lt "$deadline" ]; do
		j=$((j + 1))
		"$GEN" fleet $((k * 100000 + j)) "p$k.zt" $SAMPLES || { echo "gen" >> errs; return; }
		if out=$(ZT_TOKEN=$TOKEN "$ZT" push -q -i "p$k.zt" --server "$SERVE_URL" --no-symbols \
			--label pusher=$k 2>> "push$k.err"); then
			echo "$k $j" >> acked.$k
		else
			echo "$k $j exit $?" >> errs
		fi
	done
}
start=$(date +%s.%N)
deadline=$(( $(date +%s) + secs ))
pids=()
for k in $(seq $N); do pusher "$k" & pids+=($!); done
wait "${pids[@]}"
elapsed=$(echo "$(date +%s.%N) - $start" | bc -l 2> /dev/null || awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { print a - b }')
cat acked.* > acked 2> /dev/null
n=$(wc -l < acked)
check "pushes were acknowledged ($n)" [ "$n" -gt 0 ]
check "no push failed" [ ! -s errs ]
[ -s errs ] && head -5 errs && cat push*.err | sort | uniq -c | head
api GET /api/v1/profiles > list.json
listed=$(grep -o '"id":"[0-9a-f]*"' list.json | sort -u | wc -l)
check "every acknowledged profile is listed ($listed of $n)" [ "$listed" = "$n" ]
api GET "/api/v1/top?limit=5" > top.json
total=$(sed -n 's/.*"samples":\([0-9]*\).*/\1/p' top.json | head -1)
check "a merged query over them counts every sample ($total = $n x $SAMPLES)" [ "$total" = $((n * SAMPLES)) ]
awk -v n="$n" -v s="$SAMPLES" -v t="$elapsed" -v c="$N" \
	'BEGIN { printf "  load: %d pushers, %d profiles in %.1f s: %.1f profiles/s, %.0f samples/s\n", c, n, t, n / t, n * s / t }'
serve_stop
check "zt serve stopped cleanly on SIGTERM" [ $? = 0 ]
finish
