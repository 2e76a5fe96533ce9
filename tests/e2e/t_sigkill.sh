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
# The kallsyms lines go out with the chunks whose kernel frames need them:
# a killed system-wide recording names its kernel frames too.
dd if=/dev/zero of=/dev/null bs=4k count=20000000 2>/dev/null & ddpid=$!; bgpids+=($ddpid)
"$ZT" record -a -g -o ka.data -- sleep 31.5 2> ka-rec.err & zpid=$!; bgpids+=($zpid)
sleep 3.5
kill -9 "$zpid"; wait "$zpid" 2>/dev/null
kill -9 "$ddpid"; pkill -9 -f "sleep 31.5"
"$ZT" report -i ka.data --stdio --no-children --sort sym > ka.txt 2> ka.err
check "report of a killed system-wide recording exits 0" [ $? -eq 0 ]
kshare=$(awk '!/^#/ && $2 == "[k]" { gsub("%", "", $1); s += $1 } END { print int(s) }' ka.txt)
unres=$(awk '!/^#/ && /kernel.kallsyms\+0x/ { gsub("%", "", $1); s += $1 } END { print int(s) }' ka.txt)
echo "  kernel rows: ${kshare:-?}%, unresolved kernel rows: ${unres:-?}%"
check "kernel frames were sampled" [ "${kshare:-0}" -ge 10 ]
check "kernel frames of a killed recording are named" [ "${unres:-100}" -lt 2 ]
check "the kernel work of dd is named" contains ka.txt '\[k\] (read_zero|__x64_sys_read|ksys_read|vfs_read|do_syscall_64|iov_iter_zero|clear_user)'
finish
