#!/usr/bin/env bash
# Every command: -h works, a bad option exits 129, a man page exists.
. "$(dirname "$0")/lib.sh"
man=$(cd "$(dirname "$0")/../../man" && pwd)
cd "$T"
cmds=$("$ZT" --help | awk '/^   [a-z]/ {print $1}')
check "command list not empty" [ -n "$cmds" ]
for c in $cmds; do
	"$ZT" "$c" -h > h.txt 2>&1; check "zt $c -h exits 0" [ $? -eq 0 ]
	check "zt $c -h shows usage" grep -q "^usage: zt $c" h.txt
	"$ZT" "$c" --bogus-option >/dev/null 2>&1; check "zt $c bad option -> 129" [ $? -eq 129 ]
	check "man page zt-$c.1" [ -s "$man/zt-$c.1" ]
	# every option's placeholder whole: each '<' closed on its line
	check "zt $c -h: no placeholder cut" \
		awk '/^    -/ && gsub(/</, "<") != gsub(/>/, ">") { bad = 1 } END { exit bad }' h.txt
done
"$ZT" report -h > rh.txt 2>&1
check "report -h shows --call-graph's whole placeholder" \
	grep -qF -- "--call-graph[=<mode[,min%][,caller|callee][,percent|period|count]>]" rh.txt
for c in report top; do
	for v in TERM NO_COLOR ESCDELAY; do
		check "zt-$c(1) names $v (read by the TUI)" grep -q "^\.B $v\$" "$man/zt-$c.1"
	done
done
check "man page zt.1" [ -s "$man/zt.1" ]
check "man page zt-data.5" [ -s "$man/zt-data.5" ]
"$ZT" --version | grep -q '^zt version'; check "zt --version" [ $? -eq 0 ]
finish
