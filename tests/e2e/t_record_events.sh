#!/usr/bin/env bash
# zt record's events beyond the clocks (software events, tracepoints, :u,
# --all-user, several -e), the per-event sections of zt report --stdio and
# the event field of zt script, checked against perf on the same workload
# and on the same perf.data; refusals name the event and the fix.
. "$(dirname "$0")/lib.sh"
cd "$T"
not_contains() { ! grep -qE -- "$2" "$1"; }

# a workload with CPU time and page faults
PY='x=[0]*4000000
import time
time.sleep(0.05)'

# "NAME COUNT" per section of a report --stdio, in order; perf's "3K" is
# about 3000 (read as 3, a recording of over 999 samples compared with
# perf's 698 failed on a slow machine)
sections() {
	sed -nE "s/^# Samples: ([0-9]+)([ KMG]) +of event '([^']+)'.*/\3 \1 \2/p" "$1" |
		awk '{ m = $3 == "K" ? 1000 : $3 == "M" ? 1000000 : $3 == "G" ? 1000000000 : 1
		       print $1, $2 * m }'
}
# the ratio a/b is within 1/3 .. 3
same_order() { [ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ $(($1 * 3)) -ge "$2" ] && [ $(($2 * 3)) -ge "$1" ]; }

# ---- two events in one recording, against perf's recording of the same
# (perf's recordings: -B --buildid-mmap; with -B alone perf 6.1's report
# aborts on its own file here, in util/build-id.c, five times of five)
"$ZT" record -q -e cpu-clock -e page-faults -g -o two.zt -- python3 -c "$PY" 2> rec.err
check "record -e cpu-clock -e page-faults" test -s two.zt
"$ZT" report -i two.zt --stdio --no-children -g none > two.txt 2> two.err
sections two.txt > zt.sec
perf_retry record -B --buildid-mmap -q -e cpu-clock -e page-faults -g -o two.perf -- python3 -c "$PY" > /dev/null
perf_retry report -i two.perf --stdio --no-children -g none > ptwo.txt
sections ptwo.txt > perf.sec
pcheck "two sections named as perf's ($(tr '\n' ' ' < perf.sec))" perf.sec \
	test "$(cut -d' ' -f1 zt.sec | tr '\n' ' ')" = "$(cut -d' ' -f1 perf.sec | tr '\n' ' ')"
check "the names: cpu-clock then page-faults" test "$(cut -d' ' -f1 zt.sec | tr '\n' ' ')" = "cpu-clock page-faults "
for ev in cpu-clock page-faults; do
	z=$(awk -v e=$ev '$1 == e { print $2 }' zt.sec)
	p=$(awk -v e=$ev '$1 == e { print $2 }' perf.sec)
	pcheck "$ev: $z samples, perf $p: of the same order" perf.sec same_order "$z" "$p"
done
check "page-faults section has rows" contains two.txt '%  python3'

# --event selects one, with the section's count
"$ZT" report -i two.zt --stdio --no-children -g none --event page-faults > pf.txt 2> pf.err
check "--event page-faults: one section, the same count" \
	test "$(sections pf.txt)" = "$(grep page-faults zt.sec)"
"$ZT" report -i two.zt --stdio --event nosuch > /dev/null 2> no.err
check "--event nosuch: refused, naming the events there" contains no.err "no event 'nosuch'.*cpu-clock, page-faults"

# zt script: each sample's event, as many as the sections say
# (rounded as the section heads are: 3123 is "3K", read 3000)
"$ZT" script -i two.zt -F event 2> /dev/null | sed 's/^ *//' | sort | uniq -c |
	awk '{ n = $1; m = 1; while (n > 1000 && m < 1e9) { n = int(n / 1000); m *= 1000 }
	       print $2, n * m }' | tr -d : > scr.cnt
check "script: event field per sample, counts as report's" test "$(sort zt.sec)" = "$(cat scr.cnt)"
"$ZT" script -i two.zt --event page-faults -F event 2> /dev/null | sort -u | sed 's/ //g' > scr1.txt
check "script --event page-faults: only those" test "$(cat scr1.txt)" = "page-faults:"

# ---- perf's own two-event file: sections and counts exactly perf's
"$ZT" report -i two.perf --stdio --no-children -g none > zp.txt 2> zp.err
pcheck "perf.data: sections and sample counts exactly perf report's" perf.sec \
	test "$(sections zp.txt)" = "$(cat perf.sec)"
pc=$(grep -m1 'Event count' ptwo.txt); zc=$(grep -m1 'Event count' zp.txt)
pcheck "perf.data: event count as perf's ($pc)" ptwo.txt test "$pc" = "$zc"
perf_retry script -i two.perf -F comm,tid,period,event > pscr.txt
"$ZT" script -i two.perf -F comm,tid,period,event > zscr.txt 2> zscr.err
pcheck "perf.data: script's event field as perf script's (aligned)" pscr.txt \
	test "$(sort pscr.txt | md5sum)" = "$(sort zscr.txt | md5sum)"

# ---- zt convert --to perf: one attr per event, perf report sees both sections
"$ZT" convert -i two.zt --to perf -o conv.perf 2> conv.err
perf_retry report -i conv.perf --stdio --no-children -g none > pconv.txt
check "convert --to perf: perf report's sections are zt's ($(tr '\n' ' ' < zt.sec))" \
	test "$(sections pconv.txt)" = "$(cat zt.sec)"

# ---- a tracepoint, with stacks: a sleeping workload switches out in schedule
"$ZT" record -q -e sched:sched_switch -g -o tp.zt -- sh -c 'sleep 0.02; sleep 0.02' 2> tp.err
"$ZT" report -i tp.zt --stdio --no-children -G > tp.txt 2>> tp.err
check "sched:sched_switch: its section" contains tp.txt "of event 'sched:sched_switch'$"
check "sched:sched_switch -g: schedule frames" contains tp.txt '__schedule|schedule'
perf_retry record -B --buildid-mmap -q -e sched:sched_switch -g -o tp.perf -- sh -c 'sleep 0.02; sleep 0.02' > /dev/null
perf_retry report -i tp.perf --stdio --no-children > ptp.txt
pcheck "sched:sched_switch: sample counts of the same order as perf's ($(sections ptp.txt))" ptp.txt \
	same_order "$(sections tp.txt | awk '{print $2}')" "$(sections ptp.txt | awk '{print $2}')"
"$ZT" report -i tp.perf --stdio --no-children > ztp.txt 2> ztp.err
pcheck "perf's tracepoint recording: zt's section is perf's" ptp.txt test "$(sections ztp.txt)" = "$(sections ptp.txt)"
"$ZT" report -i tp.zt --header-only > tph.txt
check "tracepoint: every event (period 1)" contains tph.txt '^# period : 1$'
# its fields, as perf script prints them: perf's recording line by line
# (default layout and -F ... ,trace), zt's own, and zt's converted to perf.data
# (the sample lines: frames are t_perfdata's business)
"$ZT" script -i tp.perf | grep -v "$(printf '^\t')" > ztps.txt 2> ztps.err
perf_retry script -i tp.perf | grep -v "$(printf '^\t')" > ptps.txt
pcheck "zt script of perf's tracepoint recording: perf script's lines ($(wc -l < ptps.txt))" ptps.txt \
	eval 'contains ptps.txt "prev_comm=" && cmp -s ztps.txt ptps.txt'
"$ZT" script -i tp.perf -F comm,tid,time,event,trace > ztpf.txt 2>> ztps.err
perf_retry script -i tp.perf -F comm,tid,time,event,trace > ptpf.txt
pcheck "... and with -F comm,tid,time,event,trace" ptpf.txt cmp -s ztpf.txt ptpf.txt
"$ZT" script -i tp.zt > tps.txt 2>> tp.err
check "zt's recording: the sched_switch fields, perf's layout" contains tps.txt \
	'^sleep +[0-9]+ \[[0-9]{3}\] +[0-9.]+: sched:sched_switch: prev_comm=sleep prev_pid=[0-9]+ prev_prio=120 prev_state=S ==> next_comm=.+ next_pid=[0-9]+ next_prio=[0-9]+$'
"$ZT" convert --to perf -i tp.zt -o tpc.perf 2>> tp.err
perf_retry script -i tpc.perf -F comm,tid,cpu,time,event,trace > ptpc.txt
"$ZT" script -i tp.zt -F comm,tid,cpu,time,event,trace > ztpc.txt 2>> tp.err
check "convert --to perf: perf script prints zt's fields ($(wc -l < ztpc.txt) lines)" \
	eval 'contains ztpc.txt "prev_comm=" && cmp -s ztpc.txt ptpc.txt'
# function pointers (%ps: hrtimer_start's function=) named as perf names them,
# from perf's recording and from zt's (its kallsyms keep their symbols)
perf_retry record -B --buildid-mmap -q -a -e timer:hrtimer_start -o hr.perf -- sleep 0.05 > /dev/null
"$ZT" script -i hr.perf -F comm,tid,time,event,trace > zhr.txt 2> zhr.err
perf_retry script -i hr.perf -F comm,tid,time,event,trace > phr.txt
pcheck "%ps fields: function names as perf script's ($(wc -l < phr.txt) lines)" phr.txt \
	eval 'contains phr.txt "function=[a-z_]" && cmp -s zhr.txt phr.txt'
"$ZT" record -q -a -e timer:hrtimer_start -o hr.zt -- sleep 0.05 2>> zhr.err
"$ZT" script -i hr.zt -F comm,tid,time,event,trace > zhrz.txt 2>> zhr.err
check "%ps fields of zt's recording: named" contains zhrz.txt "function=[a-z_]"
check "... none left as an address" bash -c "! grep -q function=0x zhrz.txt"
# no tracefs mounted (a chroot, a container): zt mounts it, as perf does
# (/sys made private in the namespace first: nothing unmounted there
# reaches the machine's own mounts; "/" may not be a mount point in a chroot)
unshare -m --propagation unchanged sh -c 'mount --make-rprivate /sys || exit 4
	umount /sys/kernel/tracing 2> /dev/null
	umount /sys/kernel/debug 2> /dev/null
	test -e /sys/kernel/tracing/events && exit 3
	exec "$0" record -v -e sched:sched_switch -o tpm.zt -- sleep 0.05' "$ZT" > tpm.out 2>&1
rc=$?
check "no tracefs mounted: zt mounts it and records (exit $rc)" test "$rc" = 0
check "... saying so" contains tpm.out 'mounted tracefs on /sys/kernel/tracing'

# ---- a software event on its own
"$ZT" record -q -e context-switches -g -o cs.zt -- sh -c 'sleep 0.02; sleep 0.02' 2> cs.err
"$ZT" report -i cs.zt --stdio --no-children > cs.txt 2>> cs.err
check "context-switches: samples" contains cs.txt "^# Samples: [1-9][0-9]* +of event 'context-switches'"

# ---- :u and --all-user: no kernel frames
"$ZT" record -q -e cpu-clock:u -g -o u.zt -- "$WL/hot" 2> u.err
"$ZT" script -i u.zt > u.txt 2>> u.err
check ":u: samples" contains u.txt 'cpu-clock:u: $'
check ":u: no kernel frames" not_contains u.txt 'kernel.kallsyms'
"$ZT" record -q --all-user -e page-faults -g -o au.zt -- python3 -c "$PY" 2> au.err
"$ZT" script -i au.zt > au.txt 2>> au.err
check "--all-user: page-faults samples" contains au.txt 'page-faults: $'
check "--all-user: no kernel frames" not_contains au.txt 'kernel.kallsyms'

# ---- :k: samples in the kernel only (their chains go on into user space, as perf's)
"$ZT" record -q -e cpu-clock:k -g -o k.zt -- dd if=/dev/zero of=/dev/null bs=64k count=10000 2> k.err
"$ZT" script -i k.zt > k.txt 2>> k.err
read -r kn kbad < <(awk 'hdr { n++; if ($0 !~ /kernel[.]kallsyms/) bad++ } { hdr = /cpu-clock:k: $/ } END { print n + 0, bad + 0 }' k.txt)
check ":k: $kn samples, each one's leaf in the kernel" test "$kn" -gt 0 -a "$kbad" = 0

# ---- refusals name the event and the fix
"$ZT" record -e instructions -o i.zt -- true 2> ins.err; rc=$?
check "instructions refused here (exit 1)" test "$rc" = 1
check "... naming it and cpu-clock" contains ins.err "event 'instructions' is not supported.*use cpu-clock"
"$ZT" record -e cpu-clock,instructions -o i.zt -- true 2> ins2.err; rc=$?
check "one unsupported event of several: refused too, as perf" test "$rc" = 1
"$ZT" record -e sched:nosuch -o i.zt -- true 2> tpn.err; rc=$?
check "unknown tracepoint refused, named, perf list suggested" \
	contains tpn.err "unknown tracepoint 'sched:nosuch'.*sched/nosuch.*perf list"
"$ZT" record -e bogus -o i.zt -- true 2> bog.err; rc=$?
check "unknown event: usage error naming it" test "$rc" = 129
check "... and what to give" contains bog.err "unknown event 'bogus': use a software event"
"$ZT" record --all-user --all-kernel -o i.zt -- true 2> both.err; rc=$?
check "--all-user with --all-kernel refused" test "$rc" = 129
"$ZT" record -e cycles -o cy.zt -q -- true 2> cy.err
"$ZT" report -i cy.zt --header-only > cy.txt
check "cycles falls back to cpu-clock" contains cy.txt '^# event : name = cpu-clock,'
perf_retry record -B --buildid-mmap -q -e cycles -e page-faults -o cy2.perf -- true > /dev/null
"$ZT" record -q -e cycles -e page-faults -o cy2.zt -- true 2> cy2.err
"$ZT" report -i cy2.zt --header-only > cy2.txt
pcheck "cycles of several falls back too, as perf's ($(perf evlist -i cy2.perf 2> /dev/null | tr '\n' ' '))" cy2.perf \
	test "$(sed -n 's/^# events : //p' cy2.txt)" = "$(perf evlist -i cy2.perf 2> /dev/null | paste -sd,)"
# without privileges: kernel-only and tracepoint sampling refused, saying what is missing
asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all -- "$@"; }
asnobody "$ZT" record -e cpu-clock:k -o /tmp/zt-nope.data -- true 2> nk.err; rc=$?
check "unprivileged :k: refused (exit 1), naming what it needs" \
	eval '[ "$rc" = 1 ] && contains nk.err "kernel-only sampling .* needs root"'
asnobody "$ZT" record -e sched:sched_switch -o /tmp/zt-nope.data -- true 2> ntp.err; rc=$?
check "unprivileged tracepoint: refused" eval '[ "$rc" = 1 ] && contains ntp.err "tracepoint sampling needs root"'
finish
