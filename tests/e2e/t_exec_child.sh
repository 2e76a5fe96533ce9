#!/usr/bin/env bash
# A child that forks, execs another binary and exits mid-recording is still symbolized.
. "$(dirname "$0")/lib.sh"
cd "$T"
"$ZT" record -g -o s.data -- "$WL/hot" spawn 3 "$WL/child" 2> rec.err
check "record exits 0" [ $? -eq 0 ]
"$ZT" report -i s.data --stdio --no-children > r.txt
c=$(self_pct r.txt zt_child_spin)
echo "  zt_child_spin ${c:-?}% (expected ~33)"
check "exec'd child's function resolved" between "${c:-}" 20 45
check "child's comm is its new name" awk '!/^#/ && $NF=="zt_child_spin" {exit !($2=="child")}' r.txt
check "child's module is its binary" awk '!/^#/ && $NF=="zt_child_spin" {exit !($3=="child")}' r.txt
check "parent still resolved" contains r.txt 'zt_hot_a$'
finish
