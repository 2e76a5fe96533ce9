#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt serve's query model on real recordings: merges add CPU time, not
# samples (two rates, shares within 1 point of the workloads' own CPU
# time); a selection of two profile types is refused, each type selected
# by __name__; Prometheus matchers; a system-wide recording selected by
# process (comm, pid); label discovery as Prometheus answers it; the
# timeline; pprof with units, lines and time, read by go tool pprof
# straight from the server's URL with the token in it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
SERVE_LIFETIME=200
decode=$(cd "$(dirname "$0")/pprof-decode" && pwd)
cd "$T"

D=$T/store
ADMIN=$("$ZT" serve token create --scope admin --data-dir "$D" 2> tok.err)
READ=$("$ZT" serve token create --scope read --name reader --data-dir "$D" 2>> tok.err)
TOKEN=$ADMIN

# the workloads' own CPU time: the shell's children's, from /proc (ticks)
# (a fixed period, -c, as the rate: in frequency mode the kernel adapts the
# period as it goes, and on a loaded machine a period recorded may differ
# from the CPU time it stands for by some percent)
cpu_of() { # cpu_of OUT PERIOD CMD...: record CMD every PERIOD ns of CPU; OUT.cpu gets its CPU in ms
	local out=$1 period=$2
	shift 2
	"$ZT" record -q -c "$period" -g -o "$out.data" -- sh -c '"$@"; cut -d" " -f16,17 /proc/$$/stat > "'"$out"'.ticks"' \
		sh "$@" > /dev/null 2>> rec.err
	awk -v hz="$(getconf CLK_TCK)" '{ print int(($1 + $2) * 1000 / hz) }' "$out.ticks" > "$out.cpu"
}
cpu_of a 10000000 "$WL/tree" 2 # 100 Hz
cpu_of b 250000 "$WL/hot"       # 4000 Hz
check "both recorded" [ -s a.data -a -s b.data -a -s a.cpu -a -s b.cpu ]
"$ZT" record -q -e page-faults -c 1 -g -o c.data -- "$WL/tree" 1 > /dev/null 2>> rec.err
serve_start "$D" || { fail "zt serve starts"; finish; }
api POST '/api/v1/profiles?label=env=prod&label=team=web' --data-binary @a.data > /dev/null
check "push a (100 Hz): 201" [ "$(code)" = 201 ]
api POST '/api/v1/profiles?label=env=prod-eu&label=team=db' --data-binary @b.data > /dev/null
check "push b (4000 Hz): 201" [ "$(code)" = 201 ]
api POST '/api/v1/profiles?label=env=dev' --data-binary @c.data > /dev/null
check "push c (page faults): 201" [ "$(code)" = 201 ]

q() { api GET "$1" -G "${@:2}"; }
# ---- profile types ----
q /api/v1/top > top.json
check "a selection of two types: 400" [ "$(code)" = 400 ]
check "... naming both" grep -q 'cpu, page-faults' top.json
q /api/v1/top --data-urlencode 'query={__name__="page-faults"}' > pf.json
check "page-faults alone: its unit is count" grep -q '"type":"page-faults","unit":"count"' pf.json
q /api/v1/top --data-urlencode 'query=cpu' > cpu.json
check "cpu: nanoseconds" grep -q '"type":"cpu","unit":"nanoseconds"' cpu.json

# ---- merged shares follow CPU time ----
q /api/v1/folded --data-urlencode 'query=cpu' > cpu.folded
read -r ta tb < <(awk '{ v = $NF; split($1, f, ";"); if (f[1] ~ /^tree/) a += v; else if (f[1] == "hot") b += v }
	END { printf "%d %d\n", a / 1000000, b / 1000000 }' cpu.folded)
ca=$(cat a.cpu) cb=$(cat b.cpu)
share=$(awk -v a="$ta" -v b="$tb" 'BEGIN { printf "%.2f", 100 * a / (a + b) }')
truth=$(awk -v a="$ca" -v b="$cb" 'BEGIN { printf "%.2f", 100 * a / (a + b) }')
echo "  tree at 100 Hz: ${ta} ms sampled, ${ca} ms of CPU; hot at 4000 Hz: ${tb} ms, ${cb} ms"
echo "  tree's share of the merge: ${share}% (its share of the CPU time: ${truth}%)"
check "the 100 Hz profile's share follows CPU time within 1 point ($share% vs $truth%)" \
	awk -v s="$share" -v t="$truth" 'BEGIN { d = s - t; exit !(d < 1 && d > -1) }'

# ---- matchers ----
n_of() { sed -n 's/^{"profiles":\([0-9]*\),.*/\1/p'; }
check "env=~\"prod.*\": both cpu profiles" \
	[ "$(q /api/v1/top --data-urlencode 'query=cpu{env=~"prod.*"}' | n_of)" = 2 ]
check "env=~\"prod\" is anchored: one" \
	[ "$(q /api/v1/top --data-urlencode 'query=cpu{env=~"prod"}' | n_of)" = 1 ]
check "team!=\"web\": one" \
	[ "$(q /api/v1/top --data-urlencode 'query={__name__="cpu",team!="web"}' | n_of)" = 1 ]
check "env!~\"prod.*\" with cpu: none" \
	[ "$(q /api/v1/top --data-urlencode 'query={__name__="cpu",env!~"prod.*"}' | n_of)" = 0 ]
q /api/v1/top --data-urlencode 'query={env="prod"' > /dev/null
check "a bad selector: 400" [ "$(code)" = 400 ]
check "... saying where" grep -q 'not closed\|expected' body
q /api/v1/profiles --data-urlencode 'query={env=~"prod.*|dev"}' --data-urlencode limit=2 \
	--data-urlencode offset=1 > list.json
check "the list pages: 2 of 3 listed" [ "$(grep -o '"id":"' list.json | wc -l)" = 2 ]
check "... with the total" grep -q '"total":3}' list.json

# ---- a system-wide recording, selected by process ----
"$WL/hot" > /dev/null & hp=$!
"$ZT" record -q -a -F 199 -g -o sys.data -- sleep 1.5 > /dev/null 2>> rec.err
wait $hp
api POST '/api/v1/profiles?label=env=fleet' --data-binary @sys.data > /dev/null
check "push a system-wide recording: 201" [ "$(code)" = 201 ]
q /api/v1/label/comm/values --data-urlencode 'match[]={env="fleet"}' > comms.json
check "its processes are label values of comm" grep -q '"hot"' comms.json
q /api/v1/folded --data-urlencode 'query=cpu{env="fleet",comm="hot"}' > hot.folded
not_root() { awk -v r="$1" '{ split($1, f, ";"); if (f[1] == r) n++ } END { print n + 0 }' "$2"; }
others() { awk -v r="$1" '{ split($1, f, ";"); if (f[1] != r) n++ } END { print n + 0 }' "$2"; }
check "comm=\"hot\": only hot's stacks" all '[ -s hot.folded ]' '[ "$(others hot hot.folded)" = 0 ]'
q /api/v1/folded --data-urlencode "query=cpu{env=\"fleet\",pid=\"$hp\"}" > hotpid.folded
check "pid=\"$hp\": the same stacks" cmp -s hot.folded hotpid.folded
q /api/v1/folded --data-urlencode 'query=cpu{env="fleet",comm!="hot"}' > rest.folded
check "comm!=\"hot\": the rest, hot not in it" all '[ -s rest.folded ]' \
	'[ "$(not_root hot rest.folded)" = 0 ]'

# ---- discovery ----
q /api/v1/labels > labels.json
check "/api/v1/labels as Prometheus answers" \
	grep -q '^{"status":"success","data":\["__name__","comm","command","env","host","pid","team"\]}$' labels.json
q /api/v1/label/__name__/values > names.json
check "the profile types" grep -q '"data":\["cpu","page-faults"\]' names.json
q /api/v1/label/env/values --data-urlencode 'match[]=cpu' > envs.json
check "env's values among cpu profiles" grep -q '"data":\["fleet","prod","prod-eu"\]' envs.json
q /api/v1/label/9bad/values > /dev/null
check "a bad label name: 400" [ "$(code)" = 400 ]

# ---- the timeline ----
q /api/v1/timeline --data-urlencode 'query=cpu{env=~"prod.*"}' > tl.json
check "the timeline: cpu in nanoseconds, 10 s steps" grep -q '"type":"cpu","unit":"nanoseconds".*"step":10,' tl.json
tot=$(sed -n 's/.*"total":\([0-9]*\),.*/\1/p' tl.json)
sum=$(grep -o '\[[0-9]*,[0-9]*\]' tl.json | tr -d '[]' | awk -F, '{ s += $2 } END { printf "%.0f\n", s }')
check "its points add up to the selection's total ($sum = $tot)" [ -n "$tot" -a "$sum" = "$tot" ]
from=$(sed -n 's/.*"from":\([0-9]*\),.*/\1/p' tl.json)
q /api/v1/top --data-urlencode 'query=cpu{env=~"prod.*"}' --data-urlencode "from=$((from - 3600))" \
	--data-urlencode "to=$((from - 1))" > before.json
check "a range before them: nothing" grep -q '^{"profiles":0,' before.json

# ---- pprof, and go tool pprof with the token in the URL ----
ZT_TOKEN=$ADMIN "$ZT" push -i a.data --server "$SERVE_URL" > push.out 2>&1 # sends tree's symbols
check "zt push sends tree's symbols" grep -q "symbols of '.*tree'" push.out
q /api/v1/pprof --data-urlencode 'query=cpu{team="web"}' > web.pb.gz
check "pprof: 200" [ "$(code)" = 200 ]
"$decode/decode.sh" web.pb.gz > web.dec 2> web.dec.err
check "pprof: samples labelled with their thread, pid and comm" \
	all 'grep -q "^label comm$" web.dec' 'grep -q "^label pid$" web.dec' 'grep -q "^label thread$" web.dec'
check "... the default sample type's unit: nanoseconds" grep -q "^sample_type samples/count cpu/nanoseconds" web.dec
if command -v go > /dev/null; then
	mkdir -p pp
	u="${SERVE_URL/http:\/\//http://zt:$READ@}/api/v1/pprof?query=cpu%7Bteam%3D%22web%22%7D"
	PPROF_TMPDIR=$T/pp HOME=$T timeout 120 go tool pprof -top -lines "$u" > pp.txt 2> pp.err
	check "go tool pprof reads the server's URL with the token in it" grep -q '^Type: cpu' pp.txt
	check "... the main binary is tree's" grep -q '^File: tree' pp.txt
	check "... with lines in tree.c" grep -q 'leaf_x .*tree.c:[0-9]' pp.txt
	check "... inline frames" grep -q 'inl_mix .*(inline)' pp.txt
	check "... in time units, adding up to the CPU time" grep -q 'Total samples = [0-9.]*m\?s' pp.txt
	u="${SERVE_URL/http:\/\//http://zt:wrong-token-00000000@}/api/v1/pprof?query=cpu"
	PPROF_TMPDIR=$T/pp HOME=$T timeout 60 go tool pprof -top "$u" > bad.txt 2>&1
	check "a wrong token in the URL: 401" grep -q '401' bad.txt
else
	skip "go is not installed: go tool pprof not tried (scripts/setup.sh --test installs golang-go)"
fi
serve_stop
finish
