#!/usr/bin/env bash
# JIT code named in /tmp/perf-PID.map or a jitdump is symbolized even after the file is gone.
. "$(dirname "$0")/lib.sh"
cd "$T"
"$ZT" record -g -o j.data -- "$WL/jit" 0.5 2> rec.err
check "record exits 0" [ $? -eq 0 ]
check "the map file is gone" bash -c "! grep -qs zt_jit_spin /tmp/perf-*.map"
"$ZT" report -i j.data --stdio --no-children > r.txt
check "JIT function named from the snapshot" [ "$(top_symbol r.txt)" = zt_jit_spin ]
# perf's JIT interface: jit-PID.dump, mapped executable; code replaced half way
"$ZT" record -g -o jd.data -- "$WL/jit" 2 dump 2> jrec.err
check "jitdump record exits 0" [ $? -eq 0 ]
check "the jitdump is gone" bash -c "! ls jit-*.dump 2>/dev/null | grep -q ."
"$ZT" report -i jd.data --stdio --no-children > jd.txt
v1=$(self_pct jd.txt zt_jit_v1); v2=$(self_pct jd.txt zt_jit_v2)
echo "  zt_jit_v1 ${v1:-?}% zt_jit_v2 ${v2:-?}% (expected ~50/50: the same address, replaced half way)"
check "first version named for its time" between "${v1:-}" 30 70
check "replacing version named for its time" between "${v2:-}" 30 70
finish
