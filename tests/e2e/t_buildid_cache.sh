#!/usr/bin/env bash
# The build-id cache keeps binaries of sampled processes, not of every process on the machine.
. "$(dirname "$0")/lib.sh"
cd "$T"
bid() { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }
"$WL/idle" & ipid=$!; bgpids+=($ipid)
sleep 0.3
"$ZT" record -a -g -o a.data -- "$WL/hot" hot 1 2> rec.err
check "record -a exits 0" [ $? -eq 0 ]
h=$(bid "$WL/hot"); i=$(bid "$WL/idle")
check "sampled binary cached" [ -f "$ZT_CACHE_DIR/buildid/${h:0:2}/${h:2}/elf" ]
check "binary of a process never sampled not cached" [ ! -e "$ZT_CACHE_DIR/buildid/${i:0:2}/${i:2}" ]
check "cached copy is the same file" cmp -s "$WL/hot" "$ZT_CACHE_DIR/buildid/${h:0:2}/${h:2}/elf"
kill "$ipid"
finish
