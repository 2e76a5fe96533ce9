#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Symbols for the team, end to end on loopback (issue 17):
# - a program built with -g in a temporary directory is uploaded by
#   `zt symbols upload --with-debuginfo` (exit 0, one line per file, the
#   JSON summary), then stripped in place, run and recorded;
# - `zt report --symdb` and `zt script --inline --symdb` of that recording
#   show the same functions, file:lines and inline frames as with the
#   unstripped binary, and keep them in the local GSYM cache: the next report
#   works with the server gone;
# - `zt push --no-symbols` of the recording resolves on the server from the
#   uploaded symbols;
# - `debuginfod-find debuginfo|executable|source` against zt serve return
#   the uploaded files byte for byte (reads need a token: sent with
#   DEBUGINFOD_HEADERS_FILE; refused without);
# - a re-upload is skipped, --dry-run changes nothing, --force overwrites,
#   a token without the symbols scope fails with exit 1, usage errors exit 2,
#   non-ELF files and a symlink loop in a walked directory are passed over.
# - a server that keeps fewer source files a build id (--max-sources): the
#   upload still exits 0 with the debug file and binary, and says so.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
SERVE_LIFETIME=240
cd "$T"
export XDG_CONFIG_HOME="$T/config" # no config file of the machine's
for c in debuginfod-find node; do
	command -v $c > /dev/null || { fail "$c is not installed (scripts/setup.sh --test)"; finish; }
done

# ---- a program with an inlined function and a callee of its own, built -g -----------
mkdir -p "$T/src/app" "$T/bin"
cat > "$T/src/app/inl.h" << 'EOF'
static inline __attribute__((always_inline)) unsigned long mix(unsigned long x, int i)
{
	x ^= x << 13;
	x ^= x >> 7;
	return x * 0x9e3779b97f4a7c15ul + (unsigned long)i;
}
EOF
cat > "$T/src/app/team.c" << 'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "inl.h"

__attribute__((noinline)) unsigned long zt_team_inner(unsigned long x)
{
	for (int i = 0; i < 4000; i++)
		x = mix(x, i);
	return x;
}

__attribute__((noinline)) unsigned long zt_team_outer(unsigned long x)
{
	return zt_team_inner(x) + 1;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	struct timespec a, b;
	unsigned long x = 1;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		x = zt_team_outer(x);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	printf("%lu\n", x & 1);
	return 0;
}
EOF
(cd "$T/src/app" && gcc -O2 -g -fno-omit-frame-pointer -o "$T/bin/team" team.c) || { fail "build team.c"; finish; }
BID=$("$ZT" buildid "$T/bin/team" | awk '{ print $1 }')
check "the program has a build id" [ ${#BID} -eq 40 ]
cp "$T/bin/team" "$T/team.unstripped"
# a directory as CI has it: the program, a non-ELF file, a symlink loop, a link to the program
mkdir -p "$T/out/sub"
cp "$T/bin/team" "$T/out/team"
echo "not ELF" > "$T/out/README"
ln -s .. "$T/out/sub/loop"
ln -s ../team "$T/out/sub/team-link"

# ---- the server and its tokens (reads need a token) ----------------------------------
D=$T/data
SYM=$("$ZT" serve token create --scope symbols --data-dir "$D" 2> tok.err)
PUSH=$("$ZT" serve token create --scope push --data-dir "$D" 2>> tok.err)
READ=$("$ZT" serve token create --scope read --data-dir "$D" 2>> tok.err)
check "tokens created" test -n "$SYM" -a -n "$PUSH" -a -n "$READ"
serve_start "$D" || { fail "zt serve does not start"; finish; }
up() { ZT_TOKEN=$SYM "$ZT" symbols upload --server "$SERVE_URL" "$@"; }
store_sum() { find "$D/symbols" -type f ! -name '*.tmp' -exec sha256sum {} + 2> /dev/null | sort; }

# ---- upload ------------------------------------------------------------------------
up --with-debuginfo --description "build 42" --json "$T/out" > up1.json 2> up1.err
check "zt symbols upload of the build directory: exit 0" [ $? -eq 0 ]
node -e '
	const s = JSON.parse(require("fs").readFileSync("up1.json"));
	const f = s.files.filter(f => f.status === "uploaded");
	if (s.failed !== 0 || s.uploaded !== 1 || f.length !== 1) process.exit(1);
	if (f[0].build_id !== process.argv[1] || f[0].quality !== "full") process.exit(2);
	if (!f[0].debuginfo || !f[0].executable || f[0].sources < 2) process.exit(3);
' "$BID" 2> node.err
check "the JSON summary: one file uploaded, full symbols, debug file, binary and its 2 sources" [ $? -eq 0 ]
check "the non-ELF file and the symlink loop were passed over quietly" bash -c "! grep -qiE 'README|loop|error' up1.err"
check "the symbols are in the server's store" [ -s "$D/symbols/gsym/$BID.gsym" ]
TOKEN=$READ api HEAD "/api/v1/symbols/$BID" -I > head1.txt
check "HEAD: 200 with what is stored (X-ZT-Has) and the description" bash -c \
	"[ \$(cat '$T/code') = 200 ] && grep -qi '^X-ZT-Has:.*debuginfo' head1.txt && grep -qi '^X-ZT-Description: build%2042' head1.txt"

up "$T/out/team" > up2.out 2> up2.err
check "a second upload: exit 0" [ $? -eq 0 ]
check "... skips it with one line saying so" grep -q "^skipped .*$BID.*already on the server" up2.out
before=$(store_sum)
up --dry-run --force --description "dry" "$T/out" > dry.out 2> dry.err
check "--dry-run --force: exit 0, says what it would upload" bash -c "[ $? -eq 0 ] && grep -q '^would-upload .*$BID' dry.out"
check "... and changes nothing on the server" [ "$before" = "$(store_sum)" ]
up --force --no-dwarf --description "forced" "$T/out/team" > force.out 2> force.err
check "--force --no-dwarf: exit 0, uploaded" bash -c "[ $? -eq 0 ] && grep -q '^uploaded .*(basic' force.out"
TOKEN=$READ api HEAD "/api/v1/symbols/$BID" -I > head2.txt
check "... replaced the symbols on the server (basic now, new description)" bash -c \
	"grep -qi '^X-ZT-Symbol-Quality: basic' head2.txt && grep -qi '^X-ZT-Description: forced' head2.txt"
up --force "$T/out/team" > force2.out 2> force2.err
check "--force again: full symbols back" bash -c "[ $? -eq 0 ] && grep -q '^uploaded .*(full' force2.out"
if command -v script > /dev/null; then
	ZT_TOKEN=$SYM script -qec "'$ZT' symbols upload --server '$SERVE_URL' --force '$T/out/team'" /dev/null > tty.out 2>&1
	check "on a terminal: a progress bar and the summary, no per-file line" bash -c \
		"grep -q 'zt symbols: \[#*\] 1/1 files' tty.out && grep -q '1 uploaded' tty.out && ! grep -q '^uploaded ' tty.out"
fi

ZT_TOKEN=$PUSH "$ZT" symbols upload --server "$SERVE_URL" --force "$T/out/team" > scope.out 2> scope.err
check "a push token cannot --force: exit 1, the reason named" bash -c \
	"[ $? -eq 1 ] && grep -q 'symbols scope' scope.err"
"$ZT" symbols upload --server "$SERVE_URL" --jobs 0x > /dev/null 2> usage.err
check "a usage error: exit 2" [ $? -eq 2 ]
up "$T/nothing-here" > /dev/null 2> missing.err
check "a path that does not exist: exit 1, named" bash -c "[ $? -eq 1 ] && grep -q nothing-here missing.err"

# ---- debuginfod clients against zt serve -------------------------------------------
export DEBUGINFOD_URLS=$SERVE_URL DEBUGINFOD_CACHE_PATH=$T/dcache DEBUGINFOD_TIMEOUT=10
printf 'Authorization: Bearer %s\n' "$READ" > hdrs
got=$(DEBUGINFOD_HEADERS_FILE=$T/hdrs debuginfod-find debuginfo "$BID" 2> dfind.err)
check "debuginfod-find debuginfo BUILDID returns the uploaded file" bash -c "[ -n '$got' ] && cmp -s '$got' '$T/team.unstripped'"
got=$(DEBUGINFOD_HEADERS_FILE=$T/hdrs debuginfod-find executable "$BID" 2>> dfind.err)
check "debuginfod-find executable BUILDID too" bash -c "[ -n '$got' ] && cmp -s '$got' '$T/team.unstripped'"
got=$(DEBUGINFOD_HEADERS_FILE=$T/hdrs debuginfod-find source "$BID" "$T/src/app/inl.h" 2>> dfind.err)
check "debuginfod-find source BUILDID PATH: the header as it was" bash -c "[ -n '$got' ] && cmp -s '$got' '$T/src/app/inl.h'"
rm -rf "$T/dcache"
check "without the token, reads are refused" bash -c "! debuginfod-find debuginfo $BID > /dev/null 2>&1"
unset DEBUGINFOD_URLS

# ---- strip it, run it, record it ----------------------------------------------------
strip --strip-all "$T/bin/team"
check "the stripped program keeps its build id and has no symbols" bash -c \
	"'$ZT' buildid '$T/bin/team' | grep -q '^$BID' && ! nm '$T/bin/team' 2> /dev/null | grep -q zt_team"
"$ZT" record -q -g -o team.data -- "$T/bin/team" 1.5 > rec.out 2> rec.err
check "zt record -g of the stripped program" [ -s team.data ]

rep() { "$ZT" report -i team.data --stdio --no-children --sort sym,srcline --comm team --no-debuginfod "$@"; }
scr() { "$ZT" script -i team.data --inline --no-debuginfod "$@"; }
# with the server's symbols, an empty cache
export ZT_CACHE_DIR=$T/cache-symdb
rep --symdb "$SERVE_URL" > r.symdb 2> r.symdb.err
scr --symdb "$SERVE_URL" > s.symdb 2> s.symdb.err
ZT_TOKEN=$READ rep --symdb "$SERVE_URL" > r.symdb.tok 2> r.symdb.tok.err
ZT_TOKEN=$READ scr --symdb "$SERVE_URL" > s.symdb.tok 2> s.symdb.tok.err
# the reference: the unstripped binary back at its path, a fresh cache, no server
cp "$T/bin/team" "$T/team.stripped"
cp "$T/team.unstripped" "$T/bin/team"
ZT_CACHE_DIR=$T/cache-ref rep > r.ref 2> r.ref.err
ZT_CACHE_DIR=$T/cache-ref scr > s.ref 2> s.ref.err
cp "$T/team.stripped" "$T/bin/team"
check "the reference report names the program's functions with file:line" bash -c \
	"grep -q 'zt_team_inner' r.ref && grep -q 'team.c:' r.ref && grep -q 'inl.h:' r.ref"
check "the reference script shows the inlined frame" grep -qE "[0-9a-f]+ mix\+0x[0-9a-f]+ \(inlined\)" s.ref
strip_hdr() { grep -v '^#' "$1"; }
check "report --symdb (with a read token) matches the unstripped binary's report" \
	cmp -s <(strip_hdr r.symdb.tok) <(strip_hdr r.ref)
check "script --inline --symdb matches it frame for frame" bash -c "[ -s s.ref ] && cmp -s s.symdb.tok s.ref"
check "the symbol-quality summary says the symbol database served the program" \
	grep -qiE "symbol (database|server).*team" r.symdb.tok r.symdb.tok.err
# offline: the server gone, the cache answers
serve_stop
rep > r.offline 2> r.offline.err
check "with the server stopped, the cached symbols still resolve (offline)" \
	cmp -s <(strip_hdr r.offline) <(strip_hdr r.ref)
serve_start "$D" || { fail "zt serve does not start again"; finish; }

# ---- zt push of the same recording resolves on the server ----------------------------
ZT_TOKEN=$PUSH "$ZT" push -i team.data --server "$SERVE_URL" --no-symbols --no-debuginfod \
	--label test=symbols > push.out 2> push.err
check "zt push --no-symbols of the stripped recording" [ $? -eq 0 ]
TOKEN=$READ api GET "/api/v1/folded?label=test=symbols" > pushed.folded
# (the stack through zt_team_outer: the check used to want the rare sample
# whose unwind skipped it, and failed when a recording had none)
check "the server names the pushed frames from the uploaded symbols, inlined ones too" \
	grep -qE ';main;zt_team_outer;zt_team_inner;mix [0-9]+$' pushed.folded
serve_stop

# ---- a server that keeps one source file a build id: the others skipped, said so ------
D2=$T/data2
SYM2=$("$ZT" serve token create --scope symbols --data-dir "$D2" 2>> tok.err)
serve_start "$D2" --max-sources 1 || { fail "zt serve --max-sources 1 starts"; finish; }
ZT_TOKEN=$SYM2 "$ZT" symbols upload --server "$SERVE_URL" --with-debuginfo "$T/out/team" > lim.out 2> lim.err
check "--max-sources 1: zt symbols upload --with-debuginfo exits 0" [ $? -eq 0 ]
check "... saying not every source file went, and why" \
	bash -c "grep -q 'not every source file' lim.out && grep -q -- '--max-sources' lim.out"
check "... the debug file, the binary and one source stored" bash -c \
	"[ -s '$D2/symbols/debuginfo/$BID.debug' ] && [ -s '$D2/symbols/executable/$BID' ] &&
	 [ \$(ls '$D2/symbols/source/$BID' | grep -vc '\.path\$') -eq 1 ]"
serve_stop
finish
