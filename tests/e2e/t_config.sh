#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt config and ~/.ztconfig: set, get, list, unset; values checked, unknown
# names refused; the defaults change report's and record's output exactly as
# the options do, and the command line wins; perf's spellings; unsafe files
# refused; ZT_CONFIG and --system; colors in the browser.
. "$(dirname "$0")/lib.sh"
cd "$T"
export HOME=$T/home
mkdir -p "$HOME"
unset ZT_CONFIG
TM=(tmux -L "zt-cfg-$$")
trap '"${TM[@]}" kill-server 2>/dev/null; cleanup' EXIT

# ---- zt config --------------------------------------------------------------------------
"$ZT" config report.children=false report.sort=sym colors.top="blue, default" 2> set.err
check "set: exit 0" [ $? -eq 0 ]
check "set: ~/.ztconfig in perf's syntax" \
	diff <(printf '[report]\n\tchildren = false\n\tsort = sym\n[colors]\n\ttop = blue, default\n') "$HOME/.ztconfig"
check "set: mode 0644" [ "$(stat -c %a "$HOME/.ztconfig")" = 644 ]
check "get: name=value as perf config" [ "$("$ZT" config report.sort)" = "report.sort=sym" ]
check "get: perf's report.sort_order is report.sort" [ "$("$ZT" config report.sort_order)" = "report.sort_order=sym" ]
check "get: not set: nothing, exit 0" [ -z "$("$ZT" config report.percent-limit)" ]
"$ZT" config -l > list.txt
check "list" diff <(printf 'report.children=false\nreport.sort=sym\ncolors.top=blue, default\n') list.txt
"$ZT" config bogus.name=1 > /dev/null 2> unk.err
check "unknown name: exit 129" [ $? -eq 129 ]
check "unknown name: the valid ones listed" grep -q '^  report.children ' unk.err
"$ZT" config report.sort=nosuchkey 2> badv.err
check "bad sort key refused (129)" [ $? -eq 129 ]
check "bad sort key: named" grep -q "'nosuchkey' is not a sort key" badv.err
"$ZT" config colors.top=purple,default 2> /dev/null
check "bad color refused" [ $? -eq 129 ]
"$ZT" config report.children=maybe 2> /dev/null
check "bad boolean refused" [ $? -eq 129 ]
# comments and other lines are kept when a value changes
printf '# mine\n' >> "$HOME/.ztconfig"
"$ZT" config report.sort_order=dso,sym
check "set through perf's name: written as report.sort" grep -qx $'\tsort = dso,sym' "$HOME/.ztconfig"
check "set: the comment kept" grep -qx '# mine' "$HOME/.ztconfig"
"$ZT" config --unset colors.top
check "unset" bash -c "! grep -q top '$HOME/.ztconfig'"
"$ZT" config report.sort=sym

# ---- the defaults as options ----------------------------------------------------------
ZT_CONFIG=/dev/null "$ZT" record -q -g -o g.data -- "$WL/hot" hot 0.5 2> rec.err
check "record -g" [ -s g.data ]
noconf() { ZT_CONFIG=/dev/null "$ZT" report -i g.data --stdio "$@" 2>/dev/null | grep -v '^#'; }
"$ZT" report -i g.data --stdio 2> rep.err | grep -v '^#' > conf.txt
noconf --no-children --sort sym > want.txt
noconf > default.txt
check "report.children=false report.sort=sym: as --no-children --sort sym" diff want.txt conf.txt
check "... which is not the default output" bash -c "! cmp -s default.txt conf.txt"
check "... and the default has a Children column" bash -c "ZT_CONFIG=/dev/null '$ZT' report -i g.data --stdio 2>/dev/null | grep -q Children"
"$ZT" report -i g.data --stdio --children --sort comm,dso,sym 2>/dev/null | grep -v '^#' > cli.txt
check "the command line wins" diff <(noconf --children --sort comm,dso,sym) cli.txt
# perf's file: [report] sort_order
mkdir -p perfhome
printf '[report]\n\tsort_order = dso\n\tchildren = false\n' > perfhome/.ztconfig
HOME=$T/perfhome "$ZT" report -i g.data --stdio 2>/dev/null | grep -v '^#' > perf.txt
check "perf's report.sort_order in the file" diff <(noconf --no-children --sort dso) perf.txt
# perf's call-graph.* keys make up report's -g
printf '[call-graph]\n\tprint-type = flat\n\torder = caller\n\tthreshold = 1\n' > perfhome/.ztconfig
HOME=$T/perfhome "$ZT" report -i g.data --stdio 2>/dev/null | grep -v '^#' > cg.txt
check "call-graph.print-type/order/threshold: as -g flat,1,caller" diff <(noconf -g flat,1,caller) cg.txt
# a bad value in the file: a usage error naming the file and line
printf '[report]\n\tpercent-limit = lots\n' > perfhome/.ztconfig
HOME=$T/perfhome "$ZT" report -i g.data --stdio > /dev/null 2> badfile.err
check "a bad value in the file: exit 129" [ $? -eq 129 ]
check "... naming the file and line" grep -q "perfhome/.ztconfig:2: 'lots' is not a number" badfile.err

# record.call-graph: what -g records (perf: it does not turn call graphs on)
"$ZT" config record.call-graph=dwarf record.freq=99
"$ZT" record -q -g -o d.data -- "$WL/hot" hot 0.3 2> /dev/null
"$ZT" report -i d.data --header-only > d.hdr 2>&1
check "record.call-graph=dwarf: -g records dwarf" grep -q '^# callchain : dwarf' d.hdr
check "record.freq=99: -F 99" grep -q '^# freq : 99' d.hdr
"$ZT" record -q -o n.data -- "$WL/hot" hot 0.3 2> /dev/null
check "record.call-graph without -g: no call graph" bash -c "'$ZT' report -i n.data --header-only 2>&1 | grep -q '^# callchain : none'"
"$ZT" record -q -g --call-graph fp -F 200 -o f.data -- "$WL/hot" hot 0.3 2> /dev/null
"$ZT" report -i f.data --header-only > f.hdr 2>&1
check "--call-graph fp and -F 200 on the command line win" \
	bash -c "grep -q '^# callchain : fp' f.hdr && grep -q '^# freq : 200' f.hdr"
"$ZT" record -q -c 100000 -o c.data -- "$WL/hot" hot 0.2 2> c.err
check "record.freq set and -c on the command line: -c wins, no conflict" \
	bash -c "'$ZT' report -i c.data --header-only 2>&1 | grep -q '^# period : 100000'"
"$ZT" config --unset record.call-graph record.freq

# ---- unsafe files -------------------------------------------------------------------
chmod 666 "$HOME/.ztconfig"
"$ZT" report -i g.data --stdio 2> ww.err | grep -v '^#' > ww.txt
check "a world-writable ~/.ztconfig: not used" diff default.txt ww.txt
check "... with a warning saying how to fix it" grep -q "can be changed by others (mode 666).*chmod go-w" ww.err
chmod 644 "$HOME/.ztconfig"
chown 65534 "$HOME/.ztconfig"
"$ZT" report -i g.data --stdio 2> own.err | grep -v '^#' > own.txt
check "a ~/.ztconfig of another user: not used" diff default.txt own.txt
check "... with a warning" grep -q "owned by user 65534" own.err
chown 0 "$HOME/.ztconfig"
# a token only from a private file
"$ZT" config server.token=s3cret
check "server.token: the file made 0600" [ "$(stat -c %a "$HOME/.ztconfig")" = 600 ]
check "server.token: not printed" [ "$("$ZT" config server.token)" = "server.token=(set)" ]
"$ZT" config --unset server.token

# zt config runs as root in homes: never through a symlink, never another's file
mkdir -p lhome && ln -s /etc/passwd lhome/.ztconfig
HOME=$T/lhome "$ZT" config report.sort=sym 2> link.err
check "a symlinked ~/.ztconfig: not written (exit 1)" [ $? -eq 1 ]
check "... saying so" grep -q "is a symbolic link" link.err

# ---- ZT_CONFIG and --system ------------------------------------------------------------
ZT_CONFIG=$T/alt.cfg "$ZT" config --system report.children=false
check "--system writes the file ZT_CONFIG names" grep -q 'children = false' alt.cfg
check "ZT_CONFIG: only that file is read" \
	bash -c "[ \"\$(ZT_CONFIG='$T/alt.cfg' '$ZT' config -l)\" = report.children=false ]"
check "--user: ~/.ztconfig only" bash -c "'$ZT' config --user -l | grep -qx report.sort=sym"

# ---- /etc/ztconfig, then ~/.ztconfig: in a mount namespace whose /etc is an
# overlay, so the machine's /etc is never written
mkdir -p ovl/up ovl/work syshome
etc_before=$(md5sum /etc/ztconfig 2>&1)
cat > sys.sh <<END
set -e
mount -t overlay overlay -o lowerdir=/etc,upperdir=$T/ovl/up,workdir=$T/ovl/work /etc
unset ZT_CONFIG
export HOME=$T/syshome
"$ZT" config --system report.sort=dso report.children=false
stat -c %a /etc/ztconfig > sys.mode
"$ZT" config report.sort=sym
"$ZT" config -l > sys.list
"$ZT" config --system -l > sys.only
"$ZT" report -i g.data --stdio 2> /dev/null | grep -v '^#' > sys.txt
chmod 666 /etc/ztconfig
"$ZT" report -i g.data --stdio 2> sys.ww.err > /dev/null
END
if unshare -m --propagation private bash sys.sh 2> sys.err; then
	check "--system: /etc/ztconfig, mode 644" [ "$(cat sys.mode)" = 644 ]
	check "--system -l: that file only" diff <(printf 'report.sort=dso\nreport.children=false\n') sys.only
	check "-l: both, ~/.ztconfig winning" diff <(printf 'report.sort=sym\nreport.children=false\n') sys.list
	check "report: /etc/ztconfig's children, ~/.ztconfig's sort" diff <(noconf --no-children --sort sym) sys.txt
	check "a world-writable /etc/ztconfig: refused" grep -q "'/etc/ztconfig' can be changed by others" sys.ww.err
	check "the machine's /etc/ztconfig untouched" [ "$(md5sum /etc/ztconfig 2>&1)" = "$etc_before" ]
else
	echo "  (no overlay /etc in a mount namespace here: /etc/ztconfig not tested)"; sed 's/^/  | /' sys.err
fi

# ---- colors in the browser ---------------------------------------------------------------
if command -v tmux > /dev/null; then
	"$ZT" config colors.root="red, green"
	"${TM[@]}" new-session -d -s c -x 100 -y 20 -c "$T" "HOME='$HOME' TERM=xterm '$ZT' report -i g.data"
	for i in $(seq 50); do
		"${TM[@]}" capture-pane -e -p -t c > scr.txt 2>/dev/null
		grep -q 'Samples' scr.txt && break
		sleep 0.1
	done
	check "colors.root=red, green: the title bar red on green" grep -q $'\e\\[31m\e\\[42m.*Samples' scr.txt
	"${TM[@]}" send-keys -t c q
fi
finish
