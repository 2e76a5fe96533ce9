#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A fleet on loopback: FLEET_AGENTS agents (zt record -a --push, each its
# own host by label) push every 10 s to one zt serve for FLEET_SECONDS:
# - no sample lost at the seams: each agent's own count of samples pushed
#   is what the server holds for its host, every piece it recorded there;
# - queries by matcher return exactly the right profiles (counted against
#   the agents' own piece counts);
# - a time range lists exactly the profiles whose time overlaps it
#   (checked against the full list), and its merge is the timeline's sum
#   over it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
N=${FLEET_AGENTS:-20}
SECS=${FLEET_SECONDS:-70}
SERVE_LIFETIME=$((SECS + 200))
cd "$T"
D=$T/data
PUSH=$("$ZT" serve token create --scope push --data-dir "$D" 2> tok.err)
READ=$("$ZT" serve token create --scope read --data-dir "$D" 2>> tok.err)
serve_start "$D" || { fail "zt serve starts"; finish; }
"$WL/hot" $((SECS + 30)) > /dev/null 2>&1 &
bgpids+=($!)

pids=()
t_start=$(date +%s)
for i in $(seq 1 "$N"); do
	env=dev
	[ $((i % 2)) -eq 1 ] && env=prod
	ZT_TOKEN=$PUSH "$ZT" record -a -F 19 -g --push "$SERVE_URL" --push-interval 10 \
		--label host=fleet-$i --label env=$env 2> "a$i.err" > /dev/null &
	pids+=($!)
	bgpids+=($!)
done
sleep "$SECS"
kill -INT "${pids[@]}" 2> /dev/null
rcs=0
for p in "${pids[@]}"; do wait "$p" || rcs=$((rcs + 1)); done
t_end=$(date +%s)
check "$N agents ran $SECS s and stopped cleanly on SIGINT" [ "$rcs" = 0 ]

# the agent's last line: "[ zt record: pushed P of R pieces (S of N samples) ... ]"
last() { grep '^\[ zt record: pushed ' "a$1.err" | tail -n 1; }
P=() S=()
allp=0 bad=0 lost=0
for i in $(seq 1 "$N"); do
	l=$(last "$i")
	read -r p r s n < <(sed -E 's/.*pushed ([0-9]+) of ([0-9]+) pieces \(([0-9]+) of ([0-9]+) samples.*/\1 \2 \3 \4/' <<< "$l")
	P[$i]=${p:-0} S[$i]=${s:-0}
	allp=$((allp + ${p:-0}))
	[ -n "$p" ] && [ "$p" = "$r" ] && [ "$s" = "$n" ] && [ "${s:-0}" -gt 0 ] || { bad=$((bad + 1)); echo "  agent $i: $l"; }
done
check "every agent pushed every piece and sample it recorded" [ "$bad" = 0 ]
check "... $allp pieces in all, about one per 10 s each" [ "$allp" -ge $((N * (SECS / 10 - 1))) ]

# the server: each host's samples are its agent's count
q() { TOKEN=$READ api GET "$1" -G "${@:2}"; }
samples_of() { sed -n 's/^{"profiles":\([0-9]*\),"samples":\([0-9]*\),.*/\1 \2/p'; }
for i in $(seq 1 "$N"); do
	read -r np ns < <(q /api/v1/top --data-urlencode "query=cpu{host=\"fleet-$i\"}" --data-urlencode limit=1 | samples_of)
	[ "$np" = "${P[$i]}" ] && [ "$ns" = "${S[$i]}" ] || { lost=$((lost + 1)); echo "  fleet-$i: server $np profiles $ns samples, agent ${P[$i]} pieces ${S[$i]} samples"; }
done
check "no sample lost at the seams: each host's samples on the server are its agent's ($N hosts)" [ "$lost" = 0 ]

# matchers: exactly the right profiles
want=0
for i in $(seq 1 "$N"); do
	[ $((i % 2)) -eq 1 ] && [ "$i" -ge 10 ] && [ "$i" -le 19 ] && want=$((want + P[i]))
done
q /api/v1/profiles --data-urlencode 'query={env="prod",host=~"fleet-1[0-9]"}' --data-urlencode limit=1 > m.json
got=$(sed -n 's/.*"total":\([0-9]*\)}$/\1/p' m.json)
check "env=\"prod\",host=~\"fleet-1[0-9]\": $want profiles, those agents' pieces ($got)" [ "$got" = "$want" ]
want=0
for i in $(seq 1 "$N"); do [ "$i" != 3 ] && want=$((want + P[i])); done
q /api/v1/profiles --data-urlencode 'query={host!="fleet-3"}' --data-urlencode limit=1 > m2.json
check "host!=\"fleet-3\": every other agent's pieces ($want)" grep -q "\"total\":$want}" m2.json

# a time range: the middle of the run
t1=$((t_start + SECS / 3)) t2=$((t_start + 2 * SECS / 3))
q /api/v1/profiles --data-urlencode limit=0 > all.json
node -e 'for (const p of JSON.parse(require("fs").readFileSync("all.json")).profiles)
	console.log(p.id, p.time_start, p.time_end)' > all.txt
awk -v a="$t1" -v b="$t2" '$3 >= a && $2 <= b { print $1 }' all.txt | sort > want.ids
q /api/v1/profiles --data-urlencode "from=$t1" --data-urlencode "to=$t2" --data-urlencode limit=0 |
	grep -o '"id":"[0-9a-f]*"' | cut -d'"' -f4 | sort > got.ids
check "from/to: exactly the profiles whose time overlaps [$t1, $t2] ($(wc -l < want.ids))" \
	all '[ -s want.ids ]' 'cmp -s want.ids got.ids'
b1=$((t1 - t1 % 10)) b2=$((t2 - t2 % 10))
q /api/v1/timeline --data-urlencode query=cpu --data-urlencode "from=$b1" --data-urlencode "to=$((b2 + 9))" \
	--data-urlencode step=10 > tl.json
tl=$(grep -o '\[[0-9]*,[0-9]*\]' tl.json | tr -d '[]' | awk -F, '{ s += $2 } END { printf "%.0f\n", s }')
read -r np cut < <(q /api/v1/top --data-urlencode query=cpu --data-urlencode "from=$b1" \
	--data-urlencode "to=$((b2 + 9))" --data-urlencode limit=1 |
	sed -n 's/^{"profiles":\([0-9]*\),"samples":[0-9]*,"weight":\([0-9]*\),.*/\1 \2/p')
check "the merge of [$b1, $((b2 + 9))] cuts samples by time: the timeline's sum there ($cut ns)" \
	all '[ -n "$cut" ]' '[ "$cut" -gt 0 ]' '[ "$cut" = "$tl" ]'
read -r _ whole < <(q /api/v1/top --data-urlencode query=cpu --data-urlencode limit=1 |
	sed -n 's/^{"profiles":\([0-9]*\),"samples":[0-9]*,"weight":\([0-9]*\),.*/\1 \2/p')
check "... less than the whole run's ($whole ns)" [ "$cut" -lt "$whole" ]
echo "  $N agents, $SECS s ($((t_end - t_start)) s with the last pushes): $allp profiles"
serve_stop
finish
