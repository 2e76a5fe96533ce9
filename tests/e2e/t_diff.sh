#!/usr/bin/env bash
# zt diff: perf diff's table, against perf diff's own output on the same perf.data files; zt.data files too.
. "$(dirname "$0")/lib.sh"
cd "$T"
export HOME="$T/home" # no ~/.debug of this machine
mkdir -p "$HOME"
# perf 6.1 here sometimes aborts in its build-id pass: -B skips it; retried
precord() { local i; for i in 1 2 3 4 5; do perf record -B "$@" > /dev/null 2>&1 && return 0; done; return 1; }
# The names perf and zt give alike differently: an address without a
# symbol (perf: 0x0000000000001234, zt: [module+0x1234]; perf diff merges
# them into one entry either way, named after the first), a libc symbol's
# version (perf's .dynsym name, zt's libc6-dbg one); then perf's
# trailing blanks
norm() {
	sed -E 's/\[(\.|k)\] (0x[0-9a-f]{16}|\[[^] ]*\+0x[0-9a-f]+\])( +|$)/[\1] UNRESOLVED\3/; s/@@?GLIBC_[0-9.]+//; s/ +$//' "$1"
}
# the same workloads run twice, different enough to change every share
loop1='for i in $(seq 1 150000); do :; done'
loop2='for i in $(seq 1 100000); do x=$((i*3)); done'
have_perf=1
precord -e cpu-clock -o a.perf -- sh -c "$loop1" &&
	precord -e cpu-clock -o b.perf -- sh -c "$loop2" &&
	precord -e cpu-clock -o c.perf -- "$WL/hot" hot 0.3 || have_perf=0

# compare OPTIONS...: zt diff and perf diff with these options and files
# (SQUEEZE=1: runs of blanks as one, where the widths of the names of
# addresses without a symbol set a column's width)
sq() { if [ -n "${SQUEEZE:-}" ]; then tr -s ' '; else cat; fi; }
compare() {
	local name="$*"
	"$ZT" diff "$@" > zt.out 2> zt.err
	if [ $? -ne 0 ]; then
		fail "zt diff $name: exit status (stderr: $(head -c 300 zt.err))"
		return
	fi
	if ! perf_retry diff "$@" > perf.out; then
		skip "perf diff $name: reference unavailable (perf failed 5 times)"
		return
	fi
	if ! [ -s perf.out ]; then
		skip "perf diff $name: reference unavailable (empty output)"
		return
	fi
	if ! cmp -s <(norm perf.out | sq) <(norm zt.out | sq); then
		diff <(norm perf.out | sq) <(norm zt.out | sq) | head -n 10 | sed 's/^/  | /'
		fail "zt diff $name: as perf diff prints it"
	else
		ok "zt diff $name: as perf diff prints it ($(grep -cE '^ +[0-9 ]' zt.out) rows)"
	fi
}

if [ $have_perf = 1 ]; then
	for o in "" "-p" "-F" "-c delta" "-c ratio" "-c wdiff:1,2" "-c wdiff:3,-2 -F" "-o 0" \
		"-s sym" "-s dso" "-s comm,dso" "-b" "-b -F" "-q" "-d libc.so.6" \
		"-d libc.so.6 --percentage relative" "-S read" "-c ratio -p -F"; do
		# shellcheck disable=SC2086
		compare $o a.perf b.perf
	done
	SQUEEZE=1 compare -s sym,dso a.perf b.perf
	compare b.perf a.perf
	compare a.perf c.perf
	compare a.perf b.perf c.perf
	compare -o 2 -c ratio a.perf b.perf c.perf
	compare -o 0 -p a.perf b.perf c.perf
	compare -c wdiff:2,3 -F a.perf b.perf c.perf
	# a stripped program: rows without a function, which perf's columns
	# make as wide as "[.] 0x" and 16 digits (the module column 16),
	# whatever name zt gives them
	cp "$WL/hot" hs && strip -R .note.gnu.build-id hs # no build id: no symbols elsewhere
	if precord -e cpu-clock -o s1.perf -- ./hs hot 0.3 && precord -e cpu-clock -o s2.perf -- ./hs hot 0.2; then
		compare -b s1.perf s2.perf
		compare s1.perf s2.perf
		compare -s sym s1.perf s2.perf
		# zt report sizes its columns by the same rule (its own check,
		# here for the same recording)
		dots() { grep -m1 '^# \.' "$1"; }
		"$ZT" report --stdio --no-children --sort dso,sym -i s1.perf > rep.zt 2> /dev/null
		if perf_retry report --stdio --no-children --sort dso,sym -i s1.perf > rep.perf &&
			[ -s rep.perf ]; then
			check "zt report's column widths as perf report's for rows without a function ($(dots rep.zt))" \
				[ "$(dots rep.zt)" = "$(dots rep.perf)" ]
		else
			skip "perf report: reference unavailable"
		fi
	else
		skip "perf record of a stripped program failed 5 times"
	fi
else
	skip "perf record failed 5 times: no perf diff to compare with"
fi

# zt.data: zt record keeps the previous recording as zt.data.old, which
# zt diff compares with zt.data by default
"$ZT" record -q -- sh -c "$loop1" > /dev/null 2> rec1.err
"$ZT" record -q -- sh -c "$loop2" > /dev/null 2> rec2.err
check "zt record twice: zt.data.old and zt.data" [ -s zt.data.old -a -s zt.data ]
"$ZT" diff > zd.out 2> zd.err
check "zt diff: zt.data.old against zt.data, exit 0" [ $? -eq 0 ]
check "zt diff: perf's header" grep -qx "# Baseline  Delta Abs  Shared Object  *Symbol *" zd.out
check "zt diff: the event" grep -qx "# Event 'cpu-clock'" zd.out
# the numbers: Baseline is the old recording's Self share, Delta the new
# one's minus it (as zt report prints them, --sort dso,sym)
"$ZT" report -i zt.data.old --stdio --no-children --sort dso,sym 2> /dev/null > old.rep
"$ZT" report -i zt.data --stdio --no-children --sort dso,sym 2> /dev/null > new.rep
sym=$(awk '$2 == "libc.so.6" && $3 == "[.]" && $4 == "read" { print $4; exit }' old.rep)
if [ -n "$sym" ] && grep -qE ' libc\.so\.6 +\[\.\] read$' new.rep; then
	o=$(awk '$2 == "libc.so.6" && $4 == "read" { sub("%", "", $1); print $1; exit }' old.rep)
	n=$(awk '$2 == "libc.so.6" && $4 == "read" { sub("%", "", $1); print $1; exit }' new.rep)
	row=$(grep -E ' libc\.so\.6 +\[\.\] read$' zd.out)
	b=$(echo "$row" | awk '{ sub("%", "", $1); print $1 }')
	d=$(echo "$row" | awk '{ sub("%", "", $2); print $2 }')
	check "zt diff: read's Baseline ($b) is its share in zt.data.old ($o)" [ "$b" = "$o" ]
	check "zt diff: read's Delta ($d) is its new share ($n) minus the old" \
		awk -v d="$d" -v o="$o" -v n="$n" 'BEGIN { x = n - o - d; exit !(x < 0.015 && x > -0.015) }'
else
	skip "libc's read not sampled in both zt recordings"
fi
"$ZT" diff -c ratio -p zt.data.old zt.data > zr.out 2> zr.err
check "zt diff -c ratio -p on zt.data: Ratio and Period columns" \
	grep -qE "^# Baseline +Base period +Ratio +Period  Shared Object" zr.out
if [ $have_perf = 1 ]; then
	"$ZT" diff zt.data a.perf > mixed.out 2> mixed.err
	check "zt diff: a zt.data against a perf.data (cpu-clock and cpu-clock:ppp match)" \
		grep -qE '^ +[0-9.]+% +[-+][0-9.]+%  ' mixed.out
fi

# usage errors and unreadable files
"$ZT" diff -c bogus zt.data.old zt.data > /dev/null 2> e1.err
check "-c bogus: exit 129, says what to use" bash -c '[ "$1" -eq 129 ] && grep -q "^zt diff: .*delta" e1.err' _ $?
"$ZT" diff -c wdiff:1 zt.data.old zt.data > /dev/null 2> e2.err
check "-c wdiff:1: exit 129" [ $? -eq 129 ]
"$ZT" diff -o 2 zt.data.old zt.data > /dev/null 2> e3.err
check "-o 2 of two files: exit 129" [ $? -eq 129 ]
"$ZT" diff zt.data.old no-such.data > /dev/null 2> e4.err
check "a missing file: exit 1, named" bash -c '[ "$1" -eq 1 ] && grep -q "no-such.data" e4.err' _ $?
finish
