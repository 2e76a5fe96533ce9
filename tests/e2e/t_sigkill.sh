#!/usr/bin/env bash
# A recorder killed with SIGKILL leaves a file that opens up to its last flushed chunk.
. "$(dirname "$0")/lib.sh"
cd "$T"
"$ZT" record -g -o k.data -- "$WL/hot" hot 30 2> rec.err & zpid=$!; bgpids+=($zpid)
sleep 3.5
kill -9 "$zpid"; wait "$zpid" 2>/dev/null
pkill -9 -f "$WL/hot hot 30"
"$ZT" report -i k.data --stdio --no-children > r.txt 2> r.err
check "report of a killed recording exits 0" [ $? -eq 0 ]
check "warns that the recording did not finish" contains r.err 'zt report: warning: .*(did not finish|cut short|incomplete)'
check "readable part has zt_hot_a on top" [ "$(top_symbol r.txt)" = zt_hot_a ]
n=$(awk '/^# Samples:/ {print $3}' r.txt)
echo "  samples read: $n"
check "samples were read" [ -n "$n" ]
finish
