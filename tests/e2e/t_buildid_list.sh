#!/usr/bin/env bash
# zt buildid-list: a recording's modules and build ids, as perf buildid-list prints them; zt.data too.
. "$(dirname "$0")/lib.sh"
cd "$T"
export HOME="$T/home" # no ~/.debug of this machine
mkdir -p "$HOME"
# perf record with its build-id table (its build-id pass aborts now and
# then here: retried), and with -B (no table)
precord() { local i; for i in 1 2 3 4 5 6; do perf record "$@" > /dev/null 2>&1 && return 0; done; return 1; }
work='for i in $(seq 1 50000); do :; done'

# compare FILE OPTIONS...: zt buildid-list and perf's, byte for byte
compare() {
	local f=$1
	shift
	"$ZT" buildid-list "$@" -i "$f" > zt.out 2> zt.err
	if [ $? -ne 0 ]; then
		fail "zt buildid-list $* -i $f: exit status (stderr: $(head -c 300 zt.err))"
		return
	fi
	if ! perf_retry buildid-list "$@" -i "$f" > perf.out || ! [ -s perf.out ]; then
		skip "perf buildid-list $* -i $f: reference unavailable"
		return
	fi
	if cmp -s perf.out zt.out; then
		ok "zt buildid-list $* -i $f: as perf prints it ($(wc -l < zt.out) modules)"
	else
		diff perf.out zt.out | head -n 10 | sed 's/^/  | /'
		fail "zt buildid-list $* -i $f: as perf prints it"
	fi
}

if precord -e cpu-clock -o table.perf -- sh -c "$work"; then
	compare table.perf
	compare table.perf -H
	check "table.perf: libc's build id, as the file has it" \
		grep -qE "^$("$ZT" buildid /usr/lib/x86_64-linux-gnu/libc.so.6 | cut -d' ' -f1) /usr/lib/x86_64-linux-gnu/libc.so.6\$" zt.out
else
	skip "perf record (with build ids) failed 6 times: no table to compare"
fi
if precord -B -e cpu-clock -o nob.perf -- sh -c "$work"; then
	compare nob.perf
	compare nob.perf -H
else
	skip "perf record -B failed 6 times"
fi
compare /bin/ls # an ELF file: its own build id
perf_retry buildid-list -k > perf-k.out || skip "perf buildid-list -k: reference unavailable"
"$ZT" buildid-list -k > zt-k.out 2> zt-k.err
[ -s perf-k.out ] && check "-k: the running kernel's build id, as perf's" cmp -s perf-k.out zt-k.out

# zt.data: every mapped file with the build id zt record kept; -H those
# with samples (the workload's own binary, where it spends its time)
"$ZT" record -q -o z.data -- "$WL/hot" hot 0.3 > /dev/null 2> rec.err
"$ZT" buildid-list -i z.data > z.out 2> z.err
check "zt.data: exit 0" [ $? -eq 0 ]
bid=$("$ZT" buildid "$WL/hot" | cut -d' ' -f1)
check "zt.data: the workload's build id and path" grep -qxF "$bid $(readlink -f "$WL/hot")" z.out
check "zt.data: [kernel.kallsyms] first" bash -c 'head -n 1 z.out | grep -qE "^ {40} \[kernel\.kallsyms\]$"'
check "zt.data: libc listed" grep -qE ' /.*libc\.so\.6$' z.out
"$ZT" buildid-list -H -i z.data > zh.out 2> zh.err
check "zt.data -H: the workload (its samples)" grep -qxF "$bid $(readlink -f "$WL/hot")" zh.out
check "zt.data -H: a subset of the list" bash -c '[ -z "$(comm -23 <(sort zh.out) <(sort z.out))" ]'
# -H is the files where samples' own addresses fall, as zt script names
# them (a short run may have samples in every mapped file: a page fault in
# a library's init is enough, so "fewer than mapped" is not a given)
"$ZT" script -i z.data -F ip,dso 2> zs.err | sed -n 's/^ *[0-9a-f]* (\(\/.*\))$/\1/p' | sort -u > zs.files
grep -o ' /.*$' zh.out | cut -c2- | sort -u > zh.files
check "zt.data -H: the files zt script finds samples in ($(wc -l < zs.files))" \
	bash -c '[ -s zs.files ] && cmp -s zs.files zh.files'
if [ "$(wc -l < zs.files)" -lt "$(grep -c ' /' z.out)" ]; then
	check "zt.data -H: fewer files than mapped" [ "$(grep -c ' /' zh.out)" -lt "$(grep -c ' /' z.out)" ]
fi

"$ZT" buildid-list -i no-such.data > /dev/null 2> e1.err
check "a missing file: exit 1, named" bash -c '[ "$1" -eq 1 ] && grep -q "^zt buildid-list: .*no-such.data" e1.err' _ $?
"$ZT" buildid-list extra > /dev/null 2> e2.err
check "an argument: exit 129" [ $? -eq 129 ]
finish
