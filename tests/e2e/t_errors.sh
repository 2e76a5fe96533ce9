#!/usr/bin/env bash
# Clear errors: privileges, BTF, missing process, unwritable output, bad files, bad options.
. "$(dirname "$0")/lib.sh"
cd "$T"
asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all -- "$@"; }
mkdir -m 777 nb

# not root, no capabilities: -a fails and names what is missing
( cd nb && asnobody "$ZT" record -a -o a.data -- true ) 2> a.err
check "unprivileged -a fails" [ $? -eq 1 ]
check "names the missing capabilities" contains a.err 'zt record: .*needs root or CAP_BPF and CAP_PERFMON'
# ... but the user's own command is profiled, user space only
( cd nb && asnobody "$ZT" record -g -o u.data -- "$WL/hot" hot 2 ) 2> u.err
check "unprivileged workload recording works" [ $? -eq 0 ]
check "says it records user space only" contains u.err 'user-space stacks'
( cd nb && asnobody "$ZT" report -i u.data --stdio --no-children ) > u.txt 2>/dev/null
check "unprivileged recording has zt_hot_a on top" [ "$(top_symbol u.txt)" = zt_hot_a ]
check "no kernel frames when unprivileged" bash -c "! grep -q '\[k\]' u.txt"

# ... and the user's own running process, with -p
asnobody "$WL/hot" wait & sleep 0.3
npid=$(pgrep -f "^$WL/hot wait" | head -1); bgpids+=($npid)
( cd nb && asnobody "$ZT" record -g -p "$npid" --duration 1 -o p.data ) 2> np.err
check "unprivileged -p of own process works" [ $? -eq 0 ]
( cd nb && asnobody "$ZT" report -i p.data --stdio --no-children ) > np.txt 2>/dev/null
check "unprivileged -p has zt_hot_a on top" [ "$(top_symbol np.txt)" = zt_hot_a ]
kill "$npid"
# ... but not someone else's
( cd nb && asnobody "$ZT" record -p 1 --duration 1 -o p1.data ) 2> p1.err
check "unprivileged -p of init fails" [ $? -eq 1 ]
check "unprivileged -p of init: says why" contains p1.err 'not allowed to sample'

# no BTF: a clear warning, and the perf_event path still records
ZT_BTF_VMLINUX=/nonexistent/vmlinux "$ZT" record -g -o nobtf.data -- "$WL/hot" hot 1 2> nobtf.err
check "no-BTF recording still works" [ $? -eq 0 ]
check "no-BTF warning" contains nobtf.err 'has no BTF .*CONFIG_DEBUG_INFO_BTF'
"$ZT" report -i nobtf.data --stdio --no-children > nobtf.txt
check "no-BTF recording symbolized" [ "$(top_symbol nobtf.txt)" = zt_hot_a ]
ZT_BTF_VMLINUX=/nonexistent/vmlinux "$ZT" record -a -g -o nobtf-a.data -- "$WL/hot" hot 1 2> nobtf-a.err
check "no-BTF system-wide recording works" [ $? -eq 0 ]
"$ZT" report -i nobtf-a.data --stdio --no-children > nobtf-a.txt
# the top function of the workload's own rows (another busy or idle CPU may
# come first overall)
check "no-BTF system-wide recording has zt_hot_a on top of hot's rows" \
	[ "$(awk '!/^#/ && $2 == "hot" { print $NF; exit }' nobtf-a.txt)" = zt_hot_a ]

# -p of a process that does not exist
"$ZT" record -p 999999999 -o x.data 2> p.err
check "-p missing process fails" [ $? -eq 1 ]
check "-p missing process named" contains p.err 'zt record: process 999999999 does not exist'

# unwritable output path
mkdir ro && chmod 555 ro
( cd nb && asnobody "$ZT" record -o ../ro/z.data -- true ) 2> w.err
check "unwritable output fails" [ $? -eq 1 ]
check "unwritable output named" contains w.err "zt record: cannot create '../ro/z.data': Permission denied"
echo precious > keep.data
"$ZT" record -o keep.data -- /nonexistent/cmd 2>/dev/null
check "a failed start leaves the old output in place" [ "$(cat keep.data)" = precious ]
"$ZT" record -o /nonexistent-dir/z.data -- true 2> w2.err
check "missing directory named" contains w2.err "cannot create '/nonexistent-dir/z.data': No such file"

# corrupt and truncated files
"$ZT" record -g -o good.data -- "$WL/hot" hot 1 2>/dev/null
size=$(stat -c %s good.data)
head -c $((size - 100)) good.data > trunc.data
"$ZT" report -i trunc.data --stdio > t.txt 2> t.err
check "truncated file: report works" [ $? -eq 0 ]
check "truncated file: warning names offset" contains t.err 'warning: .*offset [0-9]+'
cp good.data bad.data
printf '\xff\xff\xff\xff' | dd of=bad.data bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$ZT" report -i bad.data --stdio > b.txt 2> b.err
check "corrupt file: report fails" [ $? -eq 1 ]
check "corrupt file: error names offset" contains b.err 'zt report: .*offset [0-9]+'
"$ZT" report -f -i bad.data --stdio > bf.txt 2> bf.err
check "corrupt file with -f: readable part" [ $? -eq 0 ]
head -c 5 good.data > tiny.data
"$ZT" report -i tiny.data --stdio 2> tiny.err
check "not a zt.data file fails" [ $? -eq 1 ]
"$ZT" report -i missing.data --stdio 2> m.err
check "missing input named" contains m.err "zt report: cannot open 'missing.data': No such file"

# usage errors exit 129
"$ZT" record --no-such-option 2>/dev/null; check "record bad option -> 129" [ $? -eq 129 ]
"$ZT" report --no-such-option 2>/dev/null; check "report bad option -> 129" [ $? -eq 129 ]
"$ZT" no-such-command 2>/dev/null; check "bad command -> 129" [ $? -eq 129 ]
# --call-graph dwarf,SIZE: 1 to 65528 bytes, as perf
for sz in 0 65529 0x10000 abc -8 8x ''; do
	"$ZT" record --call-graph "dwarf,$sz" -o cg.data -- true 2> cg.err
	check "--call-graph dwarf,$sz -> 129" [ $? -eq 129 ]
	check "... naming the size and the range" contains cg.err "bad stack dump size '$sz'.*1 to 65528 bytes"
done
check "... and nothing recorded" [ ! -e cg.data ]
"$ZT" record --call-graph nope -o cg.data -- true 2> cg.err
check "--call-graph nope -> 129" [ $? -eq 129 ]
"$ZT" top --call-graph dwarf 2> cgtop.err
check "zt top --call-graph dwarf -> 129" [ $? -eq 129 ]
check "... saying zt top walks stacks in the kernel, and what to use" contains cgtop.err 'zt top: --call-graph dwarf is not supported: zt top walks stacks in the kernel \(use -g, or record'
finish
