#!/usr/bin/env bash
# zt record -p PID and -t TID on a running process; --duration ends it.
. "$(dirname "$0")/lib.sh"
cd "$T"
"$WL/hot" wait & pid=$!; bgpids+=($pid)
sleep 0.3
"$ZT" record -g -p "$pid" --duration 2 -o p.data 2> rec.err
check "record -p exits 0" [ $? -eq 0 ]
"$ZT" report -i p.data --stdio --no-children > r.txt
check "zt_hot_a top for -p" [ "$(top_symbol r.txt)" = zt_hot_a ]
check "comm is the process name" awk '!/^#/ && $NF=="zt_hot_a" {exit !($2=="hot")}' r.txt
"$ZT" record -g -t "$pid" --duration 1 -o t.data 2> rec2.err
check "record -t exits 0" [ $? -eq 0 ]
"$ZT" report -i t.data --stdio --no-children > t.txt
check "zt_hot_a top for -t" [ "$(top_symbol t.txt)" = zt_hot_a ]
# -C: one CPU, system-wide on it
"$ZT" record -g -C 0 --duration 1 -o c.data 2> c.err
check "record -C 0 exits 0" [ $? -eq 0 ]
"$ZT" report -i c.data --stdio --sort comm > c.txt
check "-C 0 saw samples" grep -qv '^#' c.txt
# recording stops by itself when the process exits
( sleep 1; kill "$pid" ) &
timeout 20 "$ZT" record -g -p "$pid" -o gone.data 2> gone.err
check "record -p stops when the process exits" [ $? -eq 0 ]
finish
