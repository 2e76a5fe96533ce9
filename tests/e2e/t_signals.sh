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
# --duration ends a system-wide recording on time: not before, and its
# samples span about the duration (the wall time around it also holds
# loading BPF and writing the file, which a loaded machine stretches)
start=$(date +%s%N)
"$ZT" record -a -g --duration 1.5 -o d.data 2> d.err
rc=$?
el=$(( ($(date +%s%N) - start) / 1000000 ))
echo "  --duration 1.5 took ${el} ms"
check "--duration 1.5: exit 0, not before 1.5 s, ended by itself" \
	bash -c "[ $rc -eq 0 ] && [ $el -ge 1400 ] && [ $el -le 60000 ]"
span=$("$ZT" script -i d.data -F time 2> /dev/null | sed -n '1p;$p' | tr -d ': ' |
	awk 'NR == 1 { a = $1 } END { printf "%d", ($1 - a) * 1000 }')
check "--duration 1.5: the samples span about 1.5 s (${span} ms)" between "${span:-0}" 500 2500
finish
