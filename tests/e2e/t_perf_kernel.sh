#!/usr/bin/env bash
# perf.data from another boot or kernel build: --kallsyms FILE and -k VMLINUX name the
# kernel frames as perf report does with the same options (perf is the oracle).
. "$(dirname "$0")/lib.sh"
cd "$T"
# perf 6.1 sometimes aborts in its build-id handling: retry, then skip that check only
precord() { local i; for i in 1 2 3; do perf record "$@" > /dev/null 2> rec.err && return 0; done; perf_stderr rec.err; return 1; }
preport() { # preport OUT ARGS...: perf report, 3 tries
	local out=$1 i; shift
	for i in 1 2 3; do perf report "$@" > "$out" 2> "$out.err" && return 0; done
	perf_stderr "$out.err"
	unavailable "perf report $* (3 tries)"
	return 1
}
# the kernel rows of a --no-children --sort sym -g none report: "6.07% [k] do_syscall_64"
krows() { grep -E '^ +[0-9.]+% +\[k\] ' "$1" | head -n "${2:-8}" | awk '{print $1, $3}' | sort; }
# named: not "[kernel.kallsyms+0x...]" (zt) nor "0xffffffff81..." (perf)
named() { [ "$(grep -E '^ +[0-9.]+% +\[k\] [^[0]' "$1" | wc -l)" -ge 3 ]; }
unnamed() { ! grep -qE '^ +[0-9.]+% +\[k\] [^[0]' "$1"; }
# krows with each name as its address in this host's kallsyms: the vmlinux path and the
# kallsyms path may name an address by different aliases (6.x kernels have
# __pi___x86_indirect_thunk_rax and __x86_indirect_thunk_rax at one address,
# and perf names them apart the same way), not different functions
krows_addr() {
	krows "$1" | awk 'NR == FNR { if (!($3 in a)) a[$3] = $1; next } { print $1, ($2 in a) ? a[$2] : $2 }' ks.orig - | sort
}
differs() { ! diff -q <(krows "$1") <(krows "$2") > /dev/null; }
same_as_perf() { # same_as_perf DESC FILE ZT-ARGS...: zt and perf, the same kernel rows
	local d=$1 f=$2; shift 2
	"$ZT" report -i "$f" --stdio --no-children -g none --sort sym "$@" > "zt.$d.txt" 2> "zt.$d.err"
	check "$d: zt names the kernel frames" named "zt.$d.txt"
	if preport "perf.$d.txt" -i "$f" --stdio --no-children -g none --sort sym "$@"; then
		check "$d: the same kernel rows and shares as perf report" \
			diff <(krows "perf.$d.txt") <(krows "zt.$d.txt")
	fi
}

precord -a -g -e cpu-clock -o k.perf -- dd if=/dev/zero of=/dev/null bs=1 count=2000000 ||
	precord -B -a -g -e cpu-clock -o k.perf -- dd if=/dev/zero of=/dev/null bs=1 count=2000000 ||
	{ unavailable "perf record -a -g (with and without -B): every check here reads its recording"; finish; }
cp /proc/kallsyms ks.orig
text=$(awk '$3 == "_text" {print $1; exit}' ks.orig)
etext=$(awk '$3 == "_etext" {print $1; exit}' ks.orig)
bid=$(perf buildid-list -i k.perf 2>/dev/null | awk '$2 == "[kernel.kallsyms]" {print $1}')

# a fake other boot of this build: every address 0x20000000 higher
perl -pe 's/^([0-9a-f]{16})/my $a = hex($1); sprintf("%016x", $a ? $a + 0x20000000 : 0)/e' ks.orig > ks.shifted
same_as_perf kallsyms k.perf --kallsyms ks.shifted
"$ZT" report -i k.perf --stdio --no-children -g none --sort sym > zt.host.txt
check "--kallsyms shifted: the rows of this host's own kallsyms" diff <(krows zt.host.txt) <(krows zt.kallsyms.txt)
# the file not relocated would name nothing or other functions: the test can fail
perl -pe 's/^([0-9a-f]{16})/my $a = hex($1); sprintf("%016x", $a ? $a + 0x20000 : 0)/e; s/ _text$/ _text_not/' \
	ks.orig > ks.notext
"$ZT" report -i k.perf --stdio --no-children -g none --sort sym --kallsyms ks.notext > zt.notext.txt
check "a kallsyms without _text is not moved (other names)" differs zt.host.txt zt.notext.txt

# a fake other build: the recorded kernel build id rewritten
if [ -n "$bid" ]; then
	other=$(echo "$bid" | tr '0-9a-f' 'f0-9a-e')
	perl -0777 -pe "s/$(echo "$bid" | sed 's/../\\x&/g')/$(echo "$other" | sed 's/../\\x&/g')/g" \
		k.perf > other.perf
	check "other build: the build id rewritten" \
		[ "$(perf buildid-list -i other.perf 2>/dev/null | awk '$2 == "[kernel.kallsyms]" {print $1}')" = "$other" ]
	"$ZT" report -v -i other.perf --stdio --no-children -g none --sort sym > zt.other.txt 2> zt.other.err
	check "other build, no option: kernel frames unresolved" unnamed zt.other.txt
	check "other build, no option: says what would resolve them" contains zt.other.err -- '--kallsyms'
	same_as_perf otherbuild other.perf --kallsyms ks.orig
else
	skip "the recording has no kernel build id (perf record -B): the other-build checks"
fi
# without build ids (perf record -B), hostname and release tell the build
if precord -B -a -g -e cpu-clock -o nb.perf -- dd if=/dev/zero of=/dev/null bs=1 count=1000000; then
	rel=$(uname -r)
	fake=$(echo "$rel" | tr '0-9' '1-90')
	perl -0777 -pe "s/\\Q$rel\\E/$fake/g" nb.perf > nbother.perf
	"$ZT" report -i nbother.perf --stdio --no-children -g none --sort sym > zt.nbother.txt 2> /dev/null
	check "other release, no build id: kernel frames unresolved" unnamed zt.nbother.txt
	"$ZT" report -i nbother.perf --stdio --no-children -g none --sort sym --kallsyms ks.shifted > zt.nbk.txt
	check "other release: --kallsyms names them" named zt.nbk.txt
else
	unavailable "perf record -B: the other-release checks"
fi

# -k: a synthetic vmlinux, this kernel's functions linked at the shifted _text
perl -e '
my ($t, $e) = (hex($ARGV[0]), hex($ARGV[1])); my (%s, %seen);
open(my $f, "<", "ks.orig") or die;
while (<$f>) {
	next unless /^([0-9a-f]{16}) [tT] (\S+)$/;
	my $a = hex($1);
	next if $a < $t || $a >= $e || $seen{$2}++;
	push @{$s{$a - $t}}, $2;
}
print "\t.text\n";
for my $o (sort { $a <=> $b } keys %s) {
	printf("\t.org 0x%x\n", $o);
	print "\t.globl \"$_\"\n\t.type \"$_\",\@function\n\"$_\":\n" for @{$s{$o}};
}
printf("\t.org 0x%x\n", $e - $t);' "$text" "$etext" > v.s
as -o v.o v.s 2> as.err || fail "assembling the synthetic vmlinux"
vbid=${bid:-0123456789abcdef0123456789abcdef01234567}
ld -o vmlinux --build-id=0x$vbid -e 0 -Ttext=0x$(printf %x $((0x$text + 0x20000000))) v.o ||
	fail "linking the synthetic vmlinux"
same_as_perf vmlinux k.perf -k vmlinux
check "-k: the rows of this host's own kallsyms (aliases by address)" \
	diff <(krows_addr zt.host.txt) <(krows_addr zt.vmlinux.txt)
if [ -n "$bid" ]; then
	ld -o vmlinux.other --build-id=0x$other -e 0 -Ttext=0x$(printf %x $((0x$text + 0x20000000))) v.o
	"$ZT" report -i k.perf --stdio --no-children -g none --sort sym -k vmlinux.other > zt.vo.txt 2> zt.vo.err
	check "-k of another build: not used, with a warning" contains zt.vo.err "build id .* not used"
	check "-k of another build: kernel frames unresolved (as perf)" unnamed zt.vo.txt
	if preport perf.vo.txt -i k.perf --stdio --no-children -g none --sort sym -k vmlinux.other; then
		check "-k of another build: perf does not use it either" unnamed perf.vo.txt
	fi
fi
"$ZT" report -i k.perf --stdio -k /nonexistent/vmlinux > /dev/null 2> nx.err
rc=$?
check "-k of a missing file: exit 1" [ $rc -eq 1 ]
check "-k of a missing file: an error naming it" contains nx.err "cannot read '/nonexistent/vmlinux'"

# zt.data: the options replace the recorded kernel symbols
"$ZT" record -q -a -g -o z.data -- dd if=/dev/zero of=/dev/null bs=1 count=1000000 2> /dev/null
"$ZT" report -i z.data --stdio --no-children -g none --sort sym > zt.z.txt
"$ZT" report -i z.data --stdio --no-children -g none --sort sym --kallsyms ks.shifted > zt.zk.txt
check "zt.data --kallsyms: the same rows as its own" diff <(krows zt.z.txt) <(krows zt.zk.txt)
perl -pe 's/ (\S+)$/ renamed_$1/ if / [tT] / && !/ _text$/' ks.shifted > ks.renamed
"$ZT" report -i z.data --stdio --no-children -g none --sort sym --kallsyms ks.renamed > zt.zr.txt
check "zt.data --kallsyms: replaces the recorded names" \
	[ "$(grep -cE '\[k\] renamed_' zt.zr.txt)" -ge 3 ]
finish
