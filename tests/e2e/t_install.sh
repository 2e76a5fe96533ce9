#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make install into a staging root (DESTDIR, PREFIX=/usr): the binary, every
# man page and the bash completion are there, the installed zt runs and its
# completion completes commands, options and sort keys; make uninstall takes
# all of it away again; CPPFLAGS reaches the compiler.
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$(dirname "$ZT")" && pwd)
cd "$T"
# the zt under test is installed as it is, never rebuilt here (-o)
mk() { make -s -C "$src" BUILD="$build" -o "$build/zt" "$@"; }

mk install DESTDIR="$T/root" PREFIX=/usr > install.out 2>&1
check "make install: exit 0" [ $? -eq 0 ] || sed 's/^/  | /' install.out
R=$T/root/usr
check "bin/zt, executable" [ -x "$R/bin/zt" ]
check "bin/zt is the zt under test" cmp "$ZT" "$R/bin/zt"
for m in "$src"/man/*.[0-9]; do
	s=${m##*.}
	check "man page $(basename "$m") in share/man/man$s" cmp "$m" "$R/share/man/man$s/$(basename "$m")"
done
check "zt-config(1) among them" [ -s "$R/share/man/man1/zt-config.1" ]
comp=$R/share/bash-completion/completions/zt
check "bash completion in share/bash-completion/completions/zt" [ -s "$comp" ]
[ -f "$build/libztcupti.so" ] && check "libztcupti.so in lib/zt" [ -x "$R/lib/zt/libztcupti.so" ]
check "the installed zt runs" bash -c "'$R/bin/zt' --version | grep -q '^zt version'"
check "man finds the installed pages" bash -c "MANPATH='$R/share/man' man -w zt-config | grep -q '$R/share/man/man1/zt-config.1'"

# the completion: sourced in a non-interactive bash, _zt called as bash would
cat > comp.sh <<END
source '$comp'
PATH='$R/bin':\$PATH
t() { COMP_WORDS=("\$@"); COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _zt; printf '%s\n' "\${COMPREPLY[*]}"; }
END
comp() { bash -c "source comp.sh; t $*"; }
check "complete.sh is set up" bash -c "source comp.sh; complete -p zt | grep -q '_zt'"
check "zt re<TAB>: record report" [ "$(comp zt re)" = "record report" ]
check "zt <TAB>: every command" bash -c "[ \"\$(source comp.sh; t zt '')\" = \"\$('$ZT' --list-cmds | tr '\n' ' ')help --help --version\" ]"
check "zt con<TAB>: convert config" [ "$(comp zt con)" = "convert config" ]
check "zt report --chi<TAB>: --children" [ "$(comp zt report --chi)" = "--children" ]
check "zt report --no-chi<TAB>: --no-children" [ "$(comp zt report --no-chi)" = "--no-children" ]
check "zt record --call<TAB>: --call-graph= (takes a value)" [ "$(comp zt record --call)" = "--call-graph=" ]
check "zt top -<TAB>: short options too" bash -c "source comp.sh; t zt top - | tr ' ' '\n' | grep -qx -- -K"
check "zt report --sort <TAB>: the sort keys" \
	[ "$(comp zt report --sort "''")" = "$("$ZT" --list-sort-keys | tr '\n' ' ' | sed 's/ $//')" ]
check "zt report -s dso,s<TAB>: lists" [ "$(comp zt report -s dso,s)" = "dso,sym dso,srcline dso,symq" ]
check "zt report --sort=sy<TAB> (bash splits at =)" [ "$(comp zt report --sort = sy)" = "sym symq" ]
check "zt top --sort co<TAB>" [ "$(comp zt top --sort co)" = "comm" ]
check "zt config report.ch<TAB>: the key and =" [ "$(comp zt config report.ch)" = "report.children=" ]
check "zt symbols <TAB>: its subcommands" [ "$(comp zt symbols "''")" = "extract upload" ]
check "zt symbols upload --ser<TAB>: its options" [ "$(comp zt symbols upload --ser)" = "--server=" ]
check "zt help rep<TAB>" [ "$(comp zt help rep)" = "report" ]
check "zt report -i <TAB>: files" bash -c "touch zfile.data; source comp.sh; t zt report -i zfi | grep -q zfile.data"
check "--list-opts of a command: every long option of its -h" bash -c "
	'$ZT' report -h | grep -oE -- '--[a-z][a-z-]*' | sort -u | grep -vx -- --no-children > h.txt
	'$ZT' report --list-opts | sed 's/=\$//' | sort -u > l.txt
	comm -23 h.txt l.txt | grep -q . && exit 1 || exit 0"

mk uninstall DESTDIR="$T/root" PREFIX=/usr > uninstall.out 2>&1
check "make uninstall: exit 0" [ $? -eq 0 ]
left=$(find "$T/root" -type f -o -type l)
check "make uninstall leaves no file" [ -z "$left" ]
[ -z "$left" ] || echo "$left" | sed 's/^/  left: /'
check "... and not lib/zt" [ ! -e "$R/lib/zt" ]

# CPPFLAGS on every compile line (make -n: nothing is built)
make -n -B -C "$src" BUILD="$T/cppbuild" CPPFLAGS=-DZT_CPPFLAGS_REACHES "$T/cppbuild/cmd/zt.o" \
	> cpp.out 2>&1
check "CPPFLAGS reaches the compiler" grep -q -- '-DZT_CPPFLAGS_REACHES .*-c cmd/zt.c' cpp.out
finish
