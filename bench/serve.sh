#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt serve: ingest on loopback with 32 pushers, and merged queries over
# 1,000 stored recordings of 10 s at 4 kHz on 2 CPUs (ztgen fleet: 80,000
# samples each, 12 libraries whose GSYM symbols are uploaded first).
#  - ingest: profiles/s and MB/s acknowledged (each fsync'ed), the server's
#    CPU use, against the disk: the same files written and fsync'ed one by
#    one by dd (the peer: what the disk allows);
#  - merged top and flame graph over all 1,000: cold, then warm (median of
#    5; goal: under 1 s warm), against perf report --stdio of ONE recording
#    of the same shape (perf record -a -g -F 4000, 10 s) measured here.
# Env: N (1000), SAMPLES (80000), PUSHERS (32). Root (perf record -a).
set -u
: "${ZT:?}" "${WL:?}"
N=${N:-1000}
SAMPLES=${SAMPLES:-80000}
PUSHERS=${PUSHERS:-32}
GEN=$(dirname "$WL")/ztgen
T=$(mktemp -d /var/tmp/zt-servebench.XXXXXX)
SPID=
trap '[ -n "$SPID" ] && kill -9 $SPID 2>/dev/null; pkill -f "$WL/hot hot" 2>/dev/null; rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
now() { date +%s%N; }
mkdir -p "$T/in" "$T/syms"
echo "zt serve bench: generating $N recordings of $SAMPLES samples..."
for i in $(seq 1 "$N"); do "$GEN" fleet "$i" "$T/in/$i.zt" "$SAMPLES" || exit 1; done
"$GEN" fleet-syms 5 "$T/syms" || exit 1
bytes=$(du -cb "$T"/in/*.zt | tail -1 | cut -f1)

D=$T/data
TOKEN=$("$ZT" serve token create --scope admin --data-dir "$D") || exit 1
port=$((30000 + RANDOM % 20000))
"$ZT" serve --listen 127.0.0.1:$port --data-dir "$D" 2> "$T/serve.err" &
SPID=$!
URL=http://127.0.0.1:$port
for i in $(seq 100); do curl -sf -o /dev/null $URL/healthz && break; sleep 0.1; done
for f in "$T"/syms/*.gsym; do
	id=$(basename "$f" .gsym)
	curl -sf -o /dev/null -X PUT -H "Authorization: Bearer $TOKEN" -H "X-ZT-Symbol-Quality: full" \
		-H "X-ZT-Symbol-Load: 0:0:200000" --data-binary @"$f" "$URL/api/v1/symbols/$id" || echo "symbol upload failed: $id"
done

cpu() { awk '{ print $14 + $15 }' /proc/$SPID/stat; } # clock ticks
tck=$(getconf CLK_TCK)
c0=$(cpu)
s=$(now)
seq 1 "$N" | xargs -P "$PUSHERS" -I{} curl -s -o /dev/null -w '%{http_code}\n' \
	-H "Authorization: Bearer $TOKEN" --data-binary @"$T/in/{}.zt" "$URL/api/v1/profiles" > "$T/codes"
e=$(now)
c1=$(cpu)
ok=$(grep -c '^201$' "$T/codes")
ims=$(( (e - s) / 1000000 ))
# the disk: the same bytes, one file each, fsync'ed each
mkdir -p "$T/disk"
s=$(now)
for i in $(seq 1 "$N"); do dd if="$T/in/$i.zt" of="$T/disk/$i" bs=1M conv=fsync status=none; done
e=$(now)
dms=$(( (e - s) / 1000000 ))
rm -rf "$T/disk"
awk -v n="$ok" -v N="$N" -v ms="$ims" -v b="$bytes" -v d="$dms" -v cpu=$((c1 - c0)) -v tck="$tck" -v s="$SAMPLES" -v P="$PUSHERS" -v nc="$(nproc)" 'BEGIN {
	printf "  ingest: %d of %d stored by %d pushers in %.2f s: %.0f profiles/s, %.1f MB/s, %.2f M samples/s\n", n, N, P, ms / 1000, n / (ms / 1000), b / 1e6 / (ms / 1000), n * s / 1e6 / (ms / 1000)
	printf "  server CPU: %.2f s (%.0f%% of %d CPUs over the ingest)\n", cpu / tck, 100 * cpu / tck / (ms / 1000) / nc, nc
	printf "  the disk alone (dd, fsync per file): %.2f s; zt serve / disk: %.2fx\n", d / 1000, ms / d }'

q() { curl -sf -o /dev/null -H "Authorization: Bearer $TOKEN" "$URL$1"; }
qms() { local s e; s=$(now); q "$1"; e=$(now); echo $(( (e - s) / 1000000 )); }
median5() { local p=$1 v=(); for i in 1 2 3 4 5; do v+=("$(qms "$p")"); done; printf '%s\n' "${v[@]}" | sort -n | sed -n 3p; }
tc=$(qms "/api/v1/top?limit=50")
tw=$(median5 "/api/v1/top?limit=50")
fc=$(qms "/api/v1/flame")
fw=$(median5 "/api/v1/flame")
hw=$(median5 "/api/v1/top?limit=50&host=host03")
# the peer: perf report of one recording of that shape
hots=()
for i in $(seq "$(nproc)"); do "$WL/hot" hot 12 & hots+=($!); done
sleep 0.3
for i in 1 2 3 4 5; do
	perf record -B -a -g -F 4000 -e cpu-clock -o "$T/one.perf" -- sleep 10 > /dev/null 2>&1 && break
done
wait "${hots[@]}" # not the server
pr=$(ms perf report -i "$T/one.perf" --stdio)
rss=$(awk '/VmHWM/ { print $2 }' /proc/$SPID/status)
kill -TERM $SPID; wait $SPID; SPID=
awk -v N="$ok" -v tc="$tc" -v tw="$tw" -v fc="$fc" -v fw="$fw" -v hw="$hw" -v pr="$pr" -v rss="$rss" 'BEGIN {
	printf "  merged top over %d recordings: cold %d ms, warm %d ms (goal < 1000 ms); one host (1/10): %d ms\n", N, tc, tw, hw
	printf "  merged flame graph: cold %d ms, warm %d ms (goal < 1000 ms)\n", fc, fw
	printf "  perf report --stdio of ONE such recording: %d ms; merged top over %d / perf report of 1: %.2fx the time\n", pr, N, tw / pr
	printf "  server peak RSS: %.0f MB\n", rss / 1024 }'
