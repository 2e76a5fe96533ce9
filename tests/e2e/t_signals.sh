#!/usr/bin/env bash
# Ctrl-C / SIGTERM end a recording cleanly: the file is complete, the workload ends.
. "$(dirname "$0")/lib.sh"
cd "$T"
for sig in INT TERM; do
	"$ZT" record -g -o $sig.data -- "$WL/hot" hot 60 2> $sig.err & zpid=$!; bgpids+=($zpid)
	sleep 2
	kill -$sig "$zpid"
	timeout 10 tail --pid="$zpid" -f /dev/null
	check "SIG$sig: recorder ended" bash -c "! kill -0 $zpid 2>/dev/null"
	sleep 0.5; check "SIG$sig: workload ended too" bash -c "! pgrep -f '^$WL/hot hot 60' >/dev/null"
	check "SIG$sig: summary printed" contains $sig.err 'Captured and wrote'
	"$ZT" report -i $sig.data --stdio --no-children > $sig.txt 2> $sig.rep
	check "SIG$sig: file complete (no warning)" bash -c "! grep -q warning $sig.rep"
	check "SIG$sig: zt_hot_a on top" [ "$(top_symbol $sig.txt)" = zt_hot_a ]
done
# --duration ends a system-wide recording on time
start=$(date +%s%N)
"$ZT" record -a -g --duration 1.5 -o d.data 2> d.err
el=$(( ($(date +%s%N) - start) / 1000000 ))
echo "  --duration 1.5 took ${el} ms"
check "--duration 1.5 took 1.5-4 s" between "$el" 1400 4000
finish
