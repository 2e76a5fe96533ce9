#!/usr/bin/env bash
# zt serve against slow, greedy and hostile clients (127.0.0.1 only, bounded
# in count and time): connections that trickle a request head one line a
# second, an upload at 100 bytes a second, the largest flame graph asked for
# by many at once, and by clients that never read it. Throughout, /healthz
# is answered within a second; the slow ones are cut at their deadlines; the
# server's memory stays bounded. The clients are tests/e2e/hostile/clients.py.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
HOSTILE=$(cd "$(dirname "$0")" && pwd)/hostile/clients.py
cd "$T"
GEN=$(dirname "$WL")/ztgen
D=$T/data
TOKEN=$("$ZT" serve token create --scope push,read --data-dir "$D" 2> tok.err)
check "a token is created" [ -n "$TOKEN" ]
serve_start "$D" --header-timeout 3 --min-body-rate 1K --threads 2 || { fail "zt serve starts"; finish; }
PORT=${SERVE_URL##*:}
val() { sed -n "s/^$2=//p" "$1" | head -1; } # val FILE KEY

# ---- heads trickled a line a second, 300 connections from one client ---------------
python3 "$HOSTILE" trickle "$PORT" 300 8 > trickle.out 2> trickle.err
cat trickle.out | sed 's/^/  trickle: /'
check "/healthz answered throughout the trickling ($(val trickle.out probes) probes)" \
	[ "$(val trickle.out probes_failed)" = 0 -a "$(val trickle.out probes)" -ge 20 ]
check "each within a second (slowest $(val trickle.out probe_max_ms) ms)" \
	[ "$(val trickle.out probes_over_1s)" = 0 ]
check "trickling connections are cut at the 3 s head deadline (longest open $(val trickle.out longest_open_ms) ms)" \
	[ "$(val trickle.out longest_open_ms)" -le 5000 -a "$(val trickle.out closed_by_server)" -gt 0 ]
api GET /metrics > metrics.txt
check "/metrics counts the cut connections" \
	grep -qE '^zt_slow_clients_cut_total [1-9]' metrics.txt

# ---- a body at 100 bytes a second --------------------------------------------------------
python3 "$HOSTILE" slowbody "$PORT" "$TOKEN" > slowbody.out 2> slowbody.err
check "an upload under --min-body-rate is cut ($(val slowbody.out slowbody_ms) ms)" \
	[ "$(val slowbody.out slowbody_closed)" = 1 -a "$(val slowbody.out slowbody_ms)" -le 9000 ]
check "and nothing of it is left in tmp/" [ -z "$(ls -A "$D/tmp" 2> /dev/null)" ]

# ---- heavy reads -------------------------------------------------------------------------
for i in $(seq 20); do "$GEN" fleet "$i" "p$i.zt" 20000 || fail "ztgen fleet $i"; done
for i in $(seq 20); do
	ZT_TOKEN=$TOKEN "$ZT" push -q -i "p$i.zt" --server "$SERVE_URL" --no-symbols > /dev/null 2>> push.err ||
		fail "push p$i.zt"
done
BIG="/api/v1/flame?width=20000&minwidth=0"
api GET "$BIG" > big.svg
check "the largest flame graph is answered (200)" [ "$(code)" = 200 ]
frames=$(grep -c '^<g class="f' big.svg || true)
[ "$frames" -gt 0 ] || frames=$(grep -o '<rect' big.svg | wc -l)
check "with at most 20000 frames ($frames)" [ "$frames" -le 20001 ]
check "the subtitle says frames were left out" grep -q 'at most 20000 frames drawn' big.svg
size=$(stat -c %s big.svg)
check "its size is bounded ($size bytes)" [ "$size" -le $((16 << 20)) ]
api GET "/api/v1/flame?width=40000" > /dev/null
check "a width over the cap is a 400 naming it" [ "$(code)" = 400 -a -n "$(grep -o '20000' "$T/body")" ]

python3 "$HOSTILE" heavy "$PORT" "$TOKEN" 8 5 "$BIG" > heavy.out 2> heavy.err
sed 's/^/  heavy: /' heavy.out
check "8 clients fetching it in a loop: /healthz still answered ($(val heavy.out probes) probes)" \
	[ "$(val heavy.out probes_failed)" = 0 -a "$(val heavy.out probes)" -ge 12 ]
check "each within a second (slowest $(val heavy.out probe_max_ms) ms)" \
	[ "$(val heavy.out probes_over_1s)" = 0 ]

python3 "$HOSTILE" noread "$PORT" "$TOKEN" 20 "$SERVE_PID" "$BIG" > noread.out 2> noread.err
sed 's/^/  noread: /' noread.out
base=$(val noread.out rss_base_kib) peak=$(val noread.out rss_peak_kib)
# under ASan freed memory stays in its quarantine (256 MiB) and every block
# has its shadow: the bound is looser there (the normal pass holds the line)
limit=256
grep -q __asan_init "$ZT" && limit=512
check "20 clients that never read it: the server grows by $(( (peak - base) / 1024 )) MiB (limit $limit)" \
	[ $((peak - base)) -le $((limit << 10)) ]
after=$(val noread.out rss_after_kib)
check "once they are gone, the server is back within $(( (after - base) / 1024 )) MiB of where it was (limit $((limit / 4)))" \
	[ $((after - base)) -le $((limit << 8)) ]
check "and /healthz is answered meanwhile" \
	[ "$(val noread.out probes_failed)" = 0 -a "$(val noread.out probes_over_1s)" = 0 ]

serve_stop
check "zt serve stopped cleanly on SIGTERM" [ $? = 0 ]
finish
