#!/usr/bin/env bash
# zt record as perf users type it: -a/-p with a command that bounds the
# recording, no target at all, -o - into zt report -i - (the command's
# output on stderr), perf's pipe-mode
# perf.data, --switch-output, --max-size, --no-inherit, -m, -T and -z.
. "$(dirname "$0")/lib.sh"
cd "$T"
rows() { grep -E '^ +[0-9]' "$1" | head -n "$2" | sed -E 's/@@?GLIBC_[0-9.]+$//'; }
comms() { "$ZT" report -i "$1" --stdio --no-children -g none --sort comm 2> /dev/null | awk '!/^#/ && NF == 2 { print $2 }' | sort; }

# -p PID -- sleep 1: the command only bounds the recording (perf's idiom)
"$WL/hot" wait & hp=$!
bgpids+=("$hp")
sleep 0.2
s=$SECONDS
"$ZT" record -p "$hp" -o p.data -- sleep 1 2> p.err
check "-p PID -- sleep 1: exit 0" [ $? -eq 0 ]
check "... stops when the command ends (not with the process)" [ $((SECONDS - s)) -le 4 ]
check "... records the process, not the command" [ "$(comms p.data)" = "hot" ]
kill "$hp" 2> /dev/null

# -a -- sleep 1: the whole system, bounded by the command
s=$SECONDS
"$ZT" record -a -o a.data -- sleep 1 2> a.err
rc=$?
check "-a -- sleep 1: exit 0" [ $rc -eq 0 ]
check "... bounded by the command (within 4 s)" test $((SECONDS - s)) -le 4
check "... several commands (swapper among them)" all '[ "$(comms a.data | grep -c .)" -ge 2 ]' 'comms a.data | grep -qx swapper'

# no target and no command: the whole system until Ctrl-C, as perf record
timeout --preserve-status -s INT 1.5 "$ZT" record -o sys.data 2> sys.err
check "no target: system-wide until SIGINT, exit 0" [ $? -eq 0 ]
check "... a recording of the whole system" comms sys.data | grep -qx swapper

# -o - | zt report -i -: the stream reads as the file does
"$ZT" record -g -o - -- "$WL/hot" hot 1 > s.data 2> s.err
rc=$?
check "-o -: a stream on stdout, exit 0" [ $rc -eq 0 ]
check "... the stream is not empty" test -s s.data
check "... and zt.data is not written" [ ! -e zt.data ]
"$ZT" report -i s.data --stdio --no-children > s-file.txt 2>&1
"$ZT" report -i - --stdio --no-children < s.data > s-pipe.txt 2>&1
check "zt report -i - reports the stream as the file" diff s-file.txt s-pipe.txt
check "... zt_hot_a first" [ "$(top_symbol s-pipe.txt)" = zt_hot_a ]
"$ZT" record -o - -- "$WL/hot" hot 1 2> /dev/null | "$ZT" report -i - --no-children > live.txt 2>&1
check "zt record -o - | zt report -i - (text report without --stdio)" [ "$(top_symbol live.txt)" = zt_hot_a ]
cat s.data | "$ZT" report --stdio --no-children > nodash.txt 2>&1
check "... and without -i, a pipe on stdin is read (perf's rule)" diff s-file.txt nodash.txt
cat s.data | "$ZT" script -i - > s-script.txt 2>&1
"$ZT" script -i s.data > f-script.txt 2>&1
check "zt script -i - prints the stream as the file" cmp -s s-script.txt f-script.txt
# a command that prints: its lines go to stderr, not into the stream (perf's rule)
"$ZT" record -o - -- sh -c 'echo zt-line-1; echo zt-line-2; exec "$0" hot 1' "$WL/hot" 2> pr.err |
	"$ZT" report -i - --stdio --no-children > pr.txt 2> pr-report.err
rc=("${PIPESTATUS[@]}")
check "-o - with a command that prints: both ends exit 0" [ "${rc[*]}" = "0 0" ]
check "... zt report -i - reads the stream (zt_hot_a first)" [ "$(top_symbol pr.txt)" = zt_hot_a ]
check "... the command's lines arrive on stderr" [ "$(grep -cx 'zt-line-[12]' pr.err)" = 2 ]
if perf record -B -e cpu-clock -o - -- sh -c 'echo perf-line-1' > pr.perf 2> pr-perf.err; then
	check "... as perf record -o - sends them" grep -qx perf-line-1 pr-perf.err
else
	skip "perf record -o - failed: reference unavailable"
fi
# on a terminal (script(1) gives the command one): refused, saying what to do
script -qec "'$ZT' record -o - -- true" /dev/null > tty.out 2>&1
rc=$?
check "-o - on a terminal is refused" [ $rc -eq 1 ]
check "-o - on a terminal is refused: and so it says" contains tty.out 'zt record: standard output is a terminal: pipe it'
script -qec "'$ZT' report -i -" /dev/null > tty2.out 2>&1
rc=$?
check "-i - from a terminal is refused" [ $rc -eq 1 ]
check "-i - from a terminal is refused: and so it says" contains tty2.out 'zt report: standard input is a terminal: pipe a recording'
"$ZT" report -i - --tui < s.data > /dev/null 2> tui.err
rc=$?
check "--tui with -i - is refused, saying why" [ $rc -ne 0 ]
check "--tui with -i - is refused, saying why: and so it says" contains tui.err 'zt report: --tui reads keys from standard input'

# perf's pipe mode: perf record -o - read by zt as perf reads it
for i in 1 2 3; do
	perf record -e cpu-clock -g -o - -- "$WL/hot" hot 1 > pipe.perf 2> /dev/null &&
		perf report -i pipe.perf --stdio > /dev/null 2>&1 && break
done
preport() { perf_retry "$@"; }
preport report -i - --stdio --no-children -g none < pipe.perf > perf-pipe.txt
"$ZT" report -i - --stdio --no-children -g none < pipe.perf > zt-pipe.txt 2> zt-pipe.err
check "zt report reads perf's pipe mode from stdin" [ $? -eq 0 ]
check "... the same top rows and percentages as perf report" diff <(rows perf-pipe.txt 3) <(rows zt-pipe.txt 3)
nsamples() { grep -oE "^# Samples: [0-9.]+K? of event '[^']+'" "$1"; }
check "... and the same sample count header" diff <(nsamples perf-pipe.txt) <(nsamples zt-pipe.txt)
preport script -i pipe.perf > perf-pscript.txt
"$ZT" script -i pipe.perf > zt-pscript.txt 2> /dev/null
check "zt script of a pipe-mode file: perf script's sample lines" \
	diff <(grep -E ' cpu-clock: *$' perf-pscript.txt) <(grep -E ' cpu-clock: *$' zt-pscript.txt)
# an odd length: perf's records are 8-byte multiples, so this cuts one
head -c $(( $(stat -c %s pipe.perf) / 2 | 1 )) pipe.perf > cut.perf
"$ZT" report -i cut.perf --stdio > /dev/null 2> cut.err
rc=$?
check "a pipe-mode stream cut short: read with a warning naming the offset" [ $rc -eq 0 ]
check "a pipe-mode stream cut short: read with a warning naming the offset: and so it says" contains cut.err 'offset [0-9]+'

# --switch-output: pieces named as perf names them, each one complete
"$ZT" record -g --switch-output=1s -- "$WL/hot" hot 2.5 2> sw.err
n=$(ls | grep -cE '^zt\.data\.[0-9]{16}$')
check "--switch-output=1s: 2 or more files zt.data.YYYYMMDDhhmmssNN" [ "$n" -ge 2 ]
check "... each said on stderr" [ "$(grep -c '^\[ zt record: Dump zt\.data\.[0-9]\{16\} \]$' sw.err)" -eq "$n" ]
check "... and no zt.data" [ ! -e zt.data ]
last=$(ls zt.data.* | tail -n 1)
"$ZT" report -i "$last" --stdio --no-children > last.txt 2>&1
check "... the last piece resolves on its own (zt_hot_a first)" [ "$(top_symbol last.txt)" = zt_hot_a ]
check "... its own time range" contains last.txt '^# Time: .*\((0\.|1\.0)[0-9]* s\)'
mkdir perfsw && (cd perfsw && perf record -e cpu-clock --switch-output=1s -- "$WL/hot" hot 1.5 > /dev/null 2>&1)
check "... perf's names have the same shape" [ "$(ls perfsw | grep -cE '^perf\.data\.[0-9]{16}$')" -ge 1 ]
rm -f zt.data.*
"$ZT" record --switch-output --switch-max-files=1 -o sig.data -- "$WL/hot" hot 2 2> sig.err &
zp=$!
sleep 1
kill -USR2 "$zp"
wait "$zp"
check "--switch-output (signal): SIGUSR2 cuts the file" contains sig.err 'Dump sig\.data\.[0-9]{16}'
check "... --switch-max-files=1 keeps one file" [ "$(ls | grep -c '^sig\.data\.')" -eq 1 ]
"$ZT" record --switch-output=never -- true 2> bad.err
rc=$?
check "--switch-output=never refused, naming the forms" [ $rc -eq 129 ]
check "--switch-output=never refused, naming the forms: and so it says" contains bad.err "signal, a size .* or a time"

# --max-size: stops at the size, as perf does
s=$SECONDS
"$ZT" record -g --max-size=8K -o max.data -- "$WL/hot" hot 6 2> max.err
check "--max-size=8K stops the recording early" [ $((SECONDS - s)) -lt 5 ]
check "... saying so" contains max.err 'size limit reached'
check "... the file is readable" "$ZT" report -i max.data --stdio > /dev/null 2>&1

# --no-inherit: the command's child is not followed, as with perf
"$ZT" record -o inh.data -- "$WL/hot" spawn 1.5 "$WL/child" > /dev/null 2>&1
"$ZT" record --no-inherit -o noinh.data -- "$WL/hot" spawn 1.5 "$WL/child" > /dev/null 2>&1
check "with inheritance the child is recorded" comms inh.data | grep -qx child
check "--no-inherit: only the command's own thread" [ "$(comms noinh.data)" = hot ]
perf record -e cpu-clock --no-inherit -o noinh.perf -- "$WL/hot" spawn 1.5 "$WL/child" > /dev/null 2>&1
check "... as perf record --no-inherit" [ "$(comms noinh.perf)" = hot ]

# -m, -T and -z
"$ZT" record -m 3 -- true 2> m.err
rc=$?
check "-m 3 refused: not a power of two" [ $rc -eq 129 ]
check "-m 3 refused: not a power of two: and so it says" contains m.err "power of two"
"$ZT" record -m 64 -T -z -o m.data -- "$WL/hot" hot 0.5 2> m.err
rc=$?
check "-m 64 -T -z: accepted" [ $rc -eq 0 ]
check "... and the file written" test -s m.data
"$ZT" record -v -m 1M,16 -T -z3 -o m.data -- "$WL/hot" hot 0.5 2> m.err
check "... -T and -z noted as no-ops under -v, the AUX pages ignored" contains m.err '-T: zt always records' &&
	contains m.err '-z: zt.data is always compressed' && contains m.err 'AUX'
finish
