#!/usr/bin/env bash
# JIT code named in /tmp/perf-PID.map is symbolized even after the map file is gone.
. "$(dirname "$0")/lib.sh"
cd "$T"
"$ZT" record -g -o j.data -- "$WL/jit" 0.5 2> rec.err
check "record exits 0" [ $? -eq 0 ]
check "the map file is gone" bash -c "! grep -qs zt_jit_spin /tmp/perf-*.map"
"$ZT" report -i j.data --stdio --no-children > r.txt
check "JIT function named from the snapshot" [ "$(top_symbol r.txt)" = zt_jit_spin ]
finish
