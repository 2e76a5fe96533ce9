#!/usr/bin/env bash
# perf.data in: zt report and zt script on files made by the real perf agree with perf's own output.
. "$(dirname "$0")/lib.sh"
cd "$T"
# perf 6.1 on this kernel sometimes aborts in its build-id post-processing
# ("assertion failed at util/build-id.c"): -B skips it; retry a few times
precord() { perf_rec "$@"; }
preport() { perf_retry "$@"; }
# perf names a libc function from its .dynsym with the version
# (clock_gettime@@GLIBC_2.17), zt from libc6-dbg's symbol table without
rows() { grep -E '^ +[0-9]' "$1" | head -n "$2" | sed -E 's/@@?GLIBC_[0-9.]+$//'; }

precord -e cpu-clock -o flat.perf -- "$WL/hot" hot 1
preport report -i flat.perf --stdio --no-children > perf-flat.txt
"$ZT" report -i flat.perf --stdio --no-children > zt-flat.txt 2> zt-flat.err
pcheck "zt report reads perf.data" flat.perf [ $? -eq 0 ]
pcheck "same top rows and percentages as perf report" perf-flat.txt diff <(rows perf-flat.txt 3) <(rows zt-flat.txt 3)

precord -e cpu-clock -g -o g.perf -- "$WL/hot" hot 1
preport report -i g.perf --stdio --children -g none > perf-g.txt
"$ZT" report -i g.perf --stdio > zt-g.txt
# the same rows; entries with equal overhead may come in another order
pcheck "-g: same Children/Self rows as perf report" perf-g.txt diff <(rows perf-g.txt 6 | sort) <(rows zt-g.txt 6 | sort)
preport script -i g.perf > perf-script.txt
"$ZT" script -i g.perf > zt-script.txt
# byte for byte, except which alias names a libc/ld.so address (perf and zt
# may pick different names of one address from libc6-dbg's symbol table)
alias_blind() { sed -E 's/^(\t +[0-9a-f]+ )[^ ]+\+(0x[0-9a-f]+ \(.*\/(libc\.so\.6|ld-linux-x86-64\.so\.2)\))$/\1SYM+\2/' "$1"; }
if ! cmp -s <(alias_blind perf-script.txt) <(alias_blind zt-script.txt); then
	# seen once in a loaded suite, not in 12 runs alone: show where
	diff <(alias_blind perf-script.txt) <(alias_blind zt-script.txt) | head -n 12 | sed 's/^/  | /'
fi
pcheck "zt script prints what perf script prints, byte for byte" perf-script.txt cmp -s <(alias_blind perf-script.txt) <(alias_blind zt-script.txt)
pcheck "... and differs at most in libc alias names" perf-script.txt [ "$(diff perf-script.txt zt-script.txt | grep -c '^<')" -le 20 ]

precord -z -e cpu-clock -g -o z.perf -- "$WL/hot" hot 1
"$ZT" report -i z.perf --stdio --no-children > zt-z.txt
pcheck "-z (zstd) recording read" z.perf [ "$(top_symbol zt-z.txt)" = zt_hot_a ]

precord -e cpu-clock,task-clock -g -o two.perf -- "$WL/hot" hot 1
"$ZT" report -i two.perf --stdio --no-children > two-1.txt
"$ZT" report -i two.perf --event task-clock --stdio --no-children > two-2.txt
pcheck "two events: the first by default" two.perf grep -q "of event 'cpu-clock'" two-1.txt
pcheck "two events: --event task-clock" two.perf grep -q "of event 'task-clock'" two-2.txt
"$ZT" report -i two.perf --event no-such --stdio 2> two-3.err
pcheck "two events: an unknown --event: exit 1, named" two.perf bash -c "[ $? -eq 1 ] && grep -q 'no-such' two-3.err"

# [vdso] frames: named from this machine's vDSO, with the build id perf
# recorded (perf_record_times: its build-id pass) and without one (-B).
# An address no symbol covers (the vDSO's static functions): perf prints
# it bare, zt as [vdso+0xOFF] (zt-report(1)), the same offset
vdso_rows() { grep -E '^ +[0-9].*\[vdso\]' "$1" | head -n 3 |
	sed -E 's/\[\.\] 0x0*([0-9a-f]+)$/[.] [vdso+0x\1]/'; }
perf_record_times v.perf -- "$WL/hot" clock 0.3 || rm -f v.perf
precord -e cpu-clock -o vb.perf -- "$WL/hot" clock 0.3
for f in v vb; do
	preport report -i $f.perf --stdio --no-children --sort dso,sym > perf-$f.txt
	"$ZT" report -i $f.perf --stdio --no-children --sort dso,sym > zt-$f.txt 2> /dev/null
	pcheck "[vdso] ($f.perf): named as perf names it ($(awk '$2=="[vdso]" {print $4; exit}' perf-$f.txt))" perf-$f.txt \
		diff <(vdso_rows perf-$f.txt) <(vdso_rows zt-$f.txt)
done
pcheck "[vdso]: perf named __vdso_clock_gettime" perf-v.txt grep -q "__vdso_clock_gettime" perf-v.txt
# annotate: [vdso] code read where perf reads it (this machine's image, or
# perf's ~/.debug copy); the same instructions and percentages as perf's
vdso_insns() { awk '$2==":" && $3 ~ /^[0-9a-f]+:$/ {print $1, $3}' "$1"; }
preport annotate -i v.perf --stdio -s __vdso_clock_gettime > perf-va.txt
"$ZT" annotate -i v.perf --stdio -s __vdso_clock_gettime > zt-va.txt 2> zt-va.err
vdso_insns perf-va.txt > perf-va.ins
vdso_insns zt-va.txt > zt-va.ins
pcheck "annotate [vdso]: __vdso_clock_gettime's instructions, as perf's ($(wc -l < perf-va.ins))" \
	perf-va.ins cmp -s perf-va.ins zt-va.ins

precord -a -e cpu-clock -g -o a.perf -- dd if=/dev/zero of=/dev/null bs=4k count=300000
"$ZT" report -i a.perf --stdio --no-children --sort comm,dso,sym > zt-a.txt
pcheck "-a: kernel frames named from this machine's kallsyms" a.perf \
	awk '!/^#/ && $2=="dd" && $4=="[k]" && $NF !~ /^\[/ {f=1} END {exit !f}' zt-a.txt

# PLT stubs named as perf names them ("labs@plt", an IFUNC's "@plt"): a
# uprobe at each .plt stub of a program built here, so that every stub is
# a sample; stripped (no _init symbol for perf 6.1 to stretch over the
# stubs) but defining stdout (perf makes stub symbols only for a module it
# loaded a symbol of)
cat > plt.c << 'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int impl(int x) { return x + 1; }
static int (*resolve(void))(int) { return impl; }
int zt_ifunc(int) __attribute__((ifunc("resolve")));
int main(int argc, char **argv)
{
	long s = 0;
	for (int i = 0; i < 50; i++)
		s += labs(i - argc) + (long)strlen(argv[0]) + zt_ifunc(i);
	fputs("", stdout);
	return (int)(s & 1);
}
EOF
cc -O1 -fno-builtin -o plt plt.c && strip plt || fail "cc plt.c"
uev=/sys/kernel/tracing/uprobe_events ugrp=zt_e2e_plt_$$ mounted=
# no tracefs mounted (a fresh chroot, a container): mounted here, as perf
# and zt record do, and unmounted at the end
if [ ! -e "$uev" ] && mount -t tracefs nodev /sys/kernel/tracing; then
	mounted=1
fi
unprobe() { sed -n "s|^p:$ugrp/\([a-z0-9]*\) .*|-:$ugrp/\1|p" "$uev" 2> /dev/null | while read -r p; do echo "$p" >> "$uev"; done; }
trap 'unprobe; [ -z "$mounted" ] || umount /sys/kernel/tracing; cleanup' EXIT
read -r poff psize < <(readelf -SW plt | sed 's/^ *\[ *[0-9]*\] //' | awk '$1 == ".plt" {print $4, $5}')
for ((o = 16#$poff; o < 16#$poff + 16#$psize; o += 16)); do
	echo "p:$ugrp/s$(printf %x $o) $T/plt:$(printf 0x%x $o)" >> "$uev" || fail "uprobe_events: cannot add a probe"
done
precord -a -e "$ugrp:*" -o plt.perf -- ./plt
unprobe
preport script -i plt.perf -F ip,sym > perf-plt.txt
"$ZT" script -i plt.perf -F ip,sym > zt-plt.txt 2> zt-plt.err
pcheck "PLT stubs: zt script names them as perf script ($(awk '{print $2}' perf-plt.txt | sort -u | tr '\n' ' '))" perf-plt.txt \
	cmp -s perf-plt.txt zt-plt.txt
pcheck "PLT stubs: perf named labs@plt and the IFUNC's @plt" perf-plt.txt \
	bash -c "grep -q ' labs@plt$' perf-plt.txt && grep -q ' @plt$' perf-plt.txt"

# perf.data out: a zt recording converted, read by the real perf
"$ZT" record -q -g -o w.data -- "$WL/hot" hot 1
"$ZT" convert -i w.data -o out.perf > /dev/null 2> conv.err
check "zt convert to perf.data exits 0" [ $? -eq 0 ]
preport report -i out.perf --stdio --no-children > perf-out.txt
"$ZT" report -i w.data --stdio --no-children > zt-out.txt
check "perf report of it: the same rows as zt report" diff <(rows perf-out.txt 3 | sort) <(rows zt-out.txt 3 | sort)
preport script -i out.perf > perf-out-script.txt
"$ZT" script -i w.data > zt-out-script.txt
check "perf script of it: every sample, as zt script shows them" \
	[ "$(grep -c ' cpu-clock: $' perf-out-script.txt)" = "$(grep -c ' cpu-clock: $' zt-out-script.txt)" ]
preport report -i out.perf --header-only > out-h.txt
check "a -g recording: its samples with call chains" grep -q 'sample_type = IP|TID|TIME|CALLCHAIN|' out-h.txt
# without -g: no call chains in the samples, as perf record without -g writes them
"$ZT" record -q -o ng.data -- "$WL/hot" hot 0.3
"$ZT" convert -i ng.data -o ng.perf > /dev/null 2> ngc.err
preport report -i ng.perf --header-only > ng-h.txt
check "no -g: sample_type without CALLCHAIN" grep -qE 'sample_type = IP\|TID\|TIME\|(CPU\|)?PERIOD,' ng-h.txt
preport script -i ng.perf -F ip,sym > ng-p.txt
"$ZT" script -i ng.data -F ip,sym > ng-z.txt
check "no -g: perf script of it as zt script ($(wc -l < ng-z.txt) samples)" \
	bash -c '[ -s ng-p.txt ] && cmp -s ng-p.txt ng-z.txt'
"$ZT" convert -i w.data -o out.unknown 2> conv2.err
check "an output name that says no format: asks for --to" bash -c "[ $? -eq 129 ] && grep -q -- '--to' conv2.err"

# a damaged perf.data: a clear error, the readable part with -f
size=$(stat -c %s g.perf 2> /dev/null || echo 0)
head -c $((size / 2)) g.perf > cut.perf 2> /dev/null
"$ZT" report -i cut.perf --stdio > cut.txt 2> cut.err
pcheck "truncated perf.data: reported with a warning" cut.perf [ $? -eq 0 ]
pcheck "truncated perf.data: the warning names an offset" cut.perf grep -q 'offset' cut.err
finish
