#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt serve at scale: the embedded store (SQLite) against a two-shard
# ClickHouse cluster (two clickhouse-server on loopback, two zt serve on
# it), in one run, at 1,000 and then 10,000 stored recordings (ztgen
# fleet: SAMPLES samples each, 2 CPUs at 4 kHz, stacks from a pool of 4000
# over 12 libraries and a kernel).
#  - ingest: profiles/s acknowledged, PUSHERS curl pushers (against the two
#    instances in turn on the cluster);
#  - merged top (limit 50) and flame graph over all of them: cold (first
#    query of a fresh zt serve) and warm (median of 3); goal on ClickHouse:
#    a merged query over 10,000 under 2 s. Each line gives the ratio
#    ClickHouse / SQLite measured in this run.
#  - a fleet's queries, warm: a selector (3 hosts, one process left out),
#    one process (comm), one minute of time (samples cut by their time),
#    the timeline, label discovery (hosts, processes).
# Env: SAMPLES (4000), PUSHERS (8), SIZES ("1000 10000"). Needs
# clickhouse-server (scripts/setup.sh --test).
set -u
: "${ZT:?}" "${WL:?}"
SAMPLES=${SAMPLES:-4000}
PUSHERS=${PUSHERS:-8}
SIZES=${SIZES:-1000 10000}
GEN=$(dirname "$WL")/ztgen
T=$(mktemp -d /var/tmp/zt-scalebench.XXXXXX)
bgpids=()
trap 'for p in "${bgpids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tests/e2e/chlib.sh"
now() { date +%s%N; }
command -v clickhouse-server > /dev/null || { echo "bench serve-scale: clickhouse-server not found: run scripts/setup.sh --test" >&2; exit 1; }
max=0
for n in $SIZES; do [ "$n" -gt "$max" ] && max=$n; done
mkdir -p "$T/in" "$T/syms"
echo "zt serve scale bench: generating $max recordings of $SAMPLES samples..."
for i in $(seq 1 "$max"); do "$GEN" fleet "$i" "$T/in/$i.zt" "$SAMPLES" || exit 1; done
"$GEN" fleet-syms 5 "$T/syms" > /dev/null || exit 1
SERVE_LIFETIME=7200 CH_LIFETIME=7200 ch_cluster_start 2 || { echo "bench: the ClickHouse cluster did not start" >&2; exit 1; }
read -r U1 U2 <<< "$CH_URLS"
printf 'user = zt\npassword = zt-secret\n' > "$T/creds"
chmod 600 "$T/creds"

# start NAME [options]: a zt serve on a free port; its URL in URL_NAME, PID in PID_NAME
start() {
	local name=$1 port i try pid
	shift
	for try in 1 2 3 4 5 6 7 8; do # a port taken meanwhile: another
		port=$((30000 + RANDOM % 20000))
		"$ZT" serve -q --listen 127.0.0.1:$port --data-dir "$T/$name" "$@" 2>> "$T/$name.err" &
		pid=$!
		eval "PID_$name=$pid URL_$name=http://127.0.0.1:$port"
		bgpids+=($pid)
		for i in $(seq 200); do
			kill -0 "$pid" 2> /dev/null || break
			curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" && return 0
			sleep 0.05
		done
	done
	echo "bench: zt serve $name did not start: $(tail -2 "$T/$name.err")" >&2
	exit 1
}
stop() { local p; eval "p=\$PID_$1"; kill -TERM "$p"; wait "$p" 2> /dev/null; }
CH=(--clickhouse "$U1,$U2" --clickhouse-cluster zt --clickhouse-credentials "$T/creds")
TOKEN_sq=$("$ZT" serve token create --scope admin --data-dir "$T/sq" 2> /dev/null)
TOKEN_ca=$("$ZT" serve token create --scope admin --data-dir "$T/ca" 2> /dev/null)
TOKEN_cb=$("$ZT" serve token create --scope admin --data-dir "$T/cb" 2> /dev/null)
start sq
start ca "${CH[@]}"
start cb "${CH[@]}"
for f in "$T"/syms/*.gsym; do
	id=$(basename "$f" .gsym)
	for s in sq ca cb; do
		eval "u=\$URL_$s t=\$TOKEN_$s"
		curl -sf -o /dev/null -X PUT -H "Authorization: Bearer $t" -H "X-ZT-Symbol-Quality: full" \
			-H "X-ZT-Symbol-Load: 0:0:200000" --data-binary @"$f" "$u/api/v1/symbols/$id"
	done
done

# ingest FIRST LAST INSTANCE...: the ms taken; non-2xx answers counted in $T/bad
ingest() {
	local a=$1 b=$2 s e
	shift 2
	s=$(now)
	seq "$a" "$b" | while read -r i; do
		local k=$(( i % $# + 1 )) inst
		inst=${!k}
		eval "echo \$URL_$inst \$TOKEN_$inst $i"
	done | xargs -P "$PUSHERS" -n 3 sh -c 'curl -s -o /dev/null -w "%{http_code}\n" -H "Authorization: Bearer $1" --data-binary @"'"$T"'/in/$2.zt" "$0/api/v1/profiles"' \
		| grep -vc '^20[01]$' >> "$T/bad"
	e=$(now)
	echo $(( (e - s) / 1000000 ))
}
qms() { local s e; s=$(now); curl -sf -o /dev/null -H "Authorization: Bearer $2" "$1$3" || echo "bench: query $3 failed" >&2; e=$(now); echo $(( (e - s) / 1000000 )); }
median3() { printf '%s\n' "$(qms "$@")" "$(qms "$@")" "$(qms "$@")" | sort -n | sed -n 2p; }
: > "$T/bad"
prev=0
for n in $SIZES; do
	a=$((prev + 1))
	isq=$(ingest "$a" "$n" sq)
	ich=$(ingest "$a" "$n" ca cb)
	prev=$n
	k=$((n - a + 1))
	# cold: fresh instances (nothing cached); warm: median of 3
	stop sq; start sq; stop ca; start ca "${CH[@]}"
	tcs=$(qms "$URL_sq" "$TOKEN_sq" "/api/v1/top?limit=50")
	tcc=$(qms "$URL_ca" "$TOKEN_ca" "/api/v1/top?limit=50")
	tws=$(median3 "$URL_sq" "$TOKEN_sq" "/api/v1/top?limit=50")
	twc=$(median3 "$URL_ca" "$TOKEN_ca" "/api/v1/top?limit=50")
	twb=$(median3 "$URL_cb" "$TOKEN_cb" "/api/v1/top?limit=50")
	fws=$(median3 "$URL_sq" "$TOKEN_sq" "/api/v1/flame")
	fwc=$(median3 "$URL_ca" "$TOKEN_ca" "/api/v1/flame")
	hws=$(median3 "$URL_sq" "$TOKEN_sq" "/api/v1/top?limit=50&host=host03")
	hwc=$(median3 "$URL_ca" "$TOKEN_ca" "/api/v1/top?limit=50&host=host03")
	same=no
	cmp -s <(curl -s -H "Authorization: Bearer $TOKEN_sq" "$URL_sq/api/v1/top?limit=50") \
		<(curl -s -H "Authorization: Bearer $TOKEN_cb" "$URL_cb/api/v1/top?limit=50") && same=yes
	rows=$(ch_query 1 "SELECT count() FROM zt.samples_local")
	rows2=$(ch_query 2 "SELECT count() FROM zt.samples_local")
	awk -v n="$n" -v k="$k" -v isq="$isq" -v ich="$ich" -v tcs="$tcs" -v tcc="$tcc" -v tws="$tws" \
		-v twc="$twc" -v twb="$twb" -v fws="$fws" -v fwc="$fwc" -v hws="$hws" -v hwc="$hwc" \
		-v same="$same" -v rows=$((rows + rows2)) -v P="$PUSHERS" 'BEGIN {
		printf "  %d recordings (%d more pushed, %d pushers; %d sample rows on the cluster):\n", n, k, P, rows
		printf "    ingest: SQLite %.0f profiles/s, ClickHouse (2 shards, 2 zt serve) %.0f profiles/s: ClickHouse/SQLite %.2fx the rate\n", k / (isq / 1000), k / (ich / 1000), isq / ich
		printf "    merged top, cold: SQLite %d ms, ClickHouse %d ms (%.2fx)\n", tcs, tcc, tcc / tcs
		printf "    merged top, warm: SQLite %d ms, ClickHouse %d ms (%.2fx; the other instance %d ms; goal < 2000 ms)\n", tws, twc, twc / tws, twb
		printf "    merged flame graph, warm: SQLite %d ms, ClickHouse %d ms (%.2fx)\n", fws, fwc, fwc / fws
		printf "    one host (1/10), warm: SQLite %d ms, ClickHouse %d ms (%.2fx)\n", hws, hwc, hwc / hws
		printf "    the same top from both stores: %s\n", same }'
	# a fleet's queries: a selector, a process cut, a time range, the
	# timeline, label discovery
	sel='query=%7B__name__%3D%22cpu%22%2Chost%3D~%22host0%5B1-3%5D%22%2Ccomm!%3D%22worker-2%22%7D'
	t0=$(curl -s -H "Authorization: Bearer $TOKEN_sq" "$URL_sq/api/v1/timeline?query=cpu" |
		sed -n 's/.*"from":\([0-9]*\),.*/\1/p')
	for nq in "3 hosts, not one process|top?limit=50&$sel" \
		"one process (comm)|top?limit=50&query=%7Bcomm%3D%22app1%22%7D" \
		"one minute of time|top?limit=50&query=cpu&from=$((t0 + 600))&to=$((t0 + 659))" \
		"the timeline|timeline?query=cpu" "the hosts (discovery)|label/host/values" \
		"the processes (discovery)|label/comm/values"; do
		q=${nq#*|}
		ms=$(median3 "$URL_sq" "$TOKEN_sq" "/api/v1/$q")
		mc=$(median3 "$URL_ca" "$TOKEN_ca" "/api/v1/$q")
		awk -v q="${nq%%|*}" -v s="$ms" -v c="$mc" 'BEGIN {
			printf "    %-26s warm: SQLite %d ms, ClickHouse %d ms (%.2fx)\n", q ":", s, c, c / (s ? s : 1) }'
	done
done
bad=$(awk '{ s += $1 } END { print s + 0 }' "$T/bad")
echo "  failed pushes: $bad"
# ClickHouse keeps replaced parts 8 minutes after a merge, and merges in
# the background: what its live parts hold is what stays
du -sh "$T/sq" | awk '{ print "  disk: SQLite store " $1 }'
du -shc "${CH_DIR[@]}" | tail -1 | awk '{ printf "  disk: ClickHouse, both servers %s right after the pushes", $1 }'
live=0
for i in 1 2; do
	b=$(ch_query $i "SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND database = 'zt'")
	live=$((live + ${b:-0}))
done
awk -v b="$live" 'BEGIN { printf "; its live parts %.0f MB\n", b / 1e6 }'
