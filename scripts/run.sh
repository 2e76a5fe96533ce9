#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The main job on a fresh Debian 12 machine: install what is missing, build,
# record a small program with a known call tree (tests/workloads/tree.c)
# for a few seconds, kernel and user stacks, and show what zt's report says
# of it: its functions with their source lines, then who calls them.
# ZT_OUTPUT: where the recording goes (/tmp/zt-demo.data); ZT_SECONDS: how
# long (4).
set -eu
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
	echo "scripts/run.sh: run as root (system-wide recording loads BPF programs): sudo $0" >&2
	exit 1
fi
scripts/setup.sh
make -j"$(nproc)"
out=${ZT_OUTPUT:-/tmp/zt-demo.data}
secs=${ZT_SECONDS:-4}
wl=build/tests/workloads/tree
run() { echo; echo "+ $*"; "$@"; }
echo
echo "zt records $wl for $secs s: two threads (tree, tree-worker) calling"
echo "leaf_x, leaf_y and an inlined inl_mix, in a known proportion (3:1:2)"
run build/zt record -g -o "$out" -- "$wl" "$secs"
echo
echo "1. Where the time went: each thread's functions by their share of the"
echo "   samples (Self), with the source line they were at; [.] user space, [k] kernel"
run build/zt report -i "$out" --stdio --no-children --sort comm,dso,sym,srcline -g none --percent-limit 1
echo
echo "2. The same functions with who called them (-G: the callers, outermost first):"
run build/zt report -i "$out" --stdio --no-children -G --sort sym --percent-limit 5 -q |
	grep -v '^$' | head -n 70
echo
echo "The recording is $out. Next:"
printf '  %-50s %s\n' \
	"build/zt report -i $out" "the same, browsed in the terminal (perf report's keys)" \
	"build/zt flame -i $out -o flame.svg" "an interactive flame graph for a web browser" \
	"build/zt script -i $out | head" "every sample, as perf script prints them" \
	"sudo build/zt record -a -g -- sleep 5" "the whole system for 5 s, into ./zt.data" \
	"sudo make install" "zt on the PATH (/usr/local/bin) with its man pages: man zt"
