#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The store keeps the best symbols it has been given (issue 37), end to end
# with real zt serve instances on loopback. A program built with -g (its
# functions exported: a stripped copy keeps their names in .dynsym) and
# its stripped copy, one build id; the stripped one is recorded.
# - push first: zt push's automatic upload sends the basic symbols (and
#   says so); the server's views name the function without file:line.
#   Then `zt symbols upload` of the unstripped binary, without --force,
#   replaces them (and says what it replaced): top shows file:line, folded
#   the inlined function, `zt report --symdb` file:line (the local cache,
#   which held the basic ones, takes the better ones);
# - a worse upload without --force (the stripped binary, CI's stripped
#   build): kept, said, exit 0, nothing changes; a push token's PUT of
#   names only: 412 with the quality kept;
# - --force with the worse one replaces them (the views lose file:line);
#   a debug file uploaded then (as debuginfod clients' files are) gives
#   full ones again, and so does the unstripped binary without --force;
# - the reverse order on a second server: full first, then the push of the
#   stripped recording: nothing sent, the client says it kept them, the
#   views keep file:line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
SERVE_LIFETIME=240
cd "$T"
export XDG_CONFIG_HOME="$T/config" # no config file of the machine's
unset ZT_SERVER ZT_TOKEN DEBUGINFOD_URLS

# ---- the program: a hot function with an inlined helper --------------------------
mkdir -p "$T/src" "$T/run"
cat > "$T/src/sq.c" << 'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline __attribute__((always_inline)) unsigned long zt_sq_mix(unsigned long x, int i)
{
	x ^= x << 13;
	x ^= x >> 7;
	return x * 0x9e3779b97f4a7c15ul + (unsigned long)i;
}

__attribute__((noinline)) unsigned long zt_sq_hot(unsigned long x)
{
	for (int i = 0; i < 4000; i++)
		x = zt_sq_mix(x, i);
	return x;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	struct timespec a, b;
	unsigned long x = 1;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		x = zt_sq_hot(x);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	printf("%lu\n", x & 1);
	return 0;
}
EOF
(cd "$T/src" && gcc -O2 -g -fno-omit-frame-pointer -rdynamic -o "$T/sq.full" sq.c) ||
	{ fail "build sq.c"; finish; }
cp "$T/sq.full" "$T/run/sq"
strip --strip-all "$T/run/sq"
BID=$("$ZT" buildid "$T/sq.full" | awk '{ print $1 }')
check "the program and its stripped copy have one build id" bash -c \
	"[ ${#BID} -eq 40 ] && '$ZT' buildid '$T/run/sq' | grep -q '^$BID'"
check "the stripped copy has no DWARF and no .symtab, its function in .dynsym" bash -c \
	"! readelf -S '$T/run/sq' | grep -qE '\.debug_info|\.symtab' && nm -D '$T/run/sq' | grep -q zt_sq_hot"
"$ZT" record -q -g -o sq.data -- "$T/run/sq" 1.0 > rec.out 2> rec.err
check "zt record -g of the stripped program" [ -s sq.data ]

# ---- helpers ---------------------------------------------------------------------
# tokens and a server on data directory $1: PUSH, SYM, READ set
server() {
	PUSH=$("$ZT" serve token create --scope push --data-dir "$1" 2>> tok.err)
	SYM=$("$ZT" serve token create --scope symbols --data-dir "$1" 2>> tok.err)
	READ=$("$ZT" serve token create --scope read --data-dir "$1" 2>> tok.err)
	[ -n "$PUSH" ] && [ -n "$SYM" ] && [ -n "$READ" ] && serve_start "$1"
}
push() { ZT_TOKEN=$PUSH "$ZT" push -i sq.data --server "$SERVE_URL" --no-debuginfod "$@"; }
up() { ZT_TOKEN=$SYM "$ZT" symbols upload --server "$SERVE_URL" "$@"; }
# the quality the server has for the program (HEAD: X-ZT-Symbol-Quality)
quality() {
	curl -s -I -H "Authorization: Bearer $READ" "$SERVE_URL/api/v1/symbols/$BID" | tr -d '\r' |
		sed -n 's/^X-ZT-Symbol-Quality: //Ip'
}
# the server's views of the label test=$1 into $1.top and $1.folded
views() {
	TOKEN=$READ api GET "/api/v1/top?label=test=$1&limit=50" > "$1.top"
	TOKEN=$READ api GET "/api/v1/folded?label=test=$1" > "$1.folded"
}
# top names the function with its file:line; folded shows the inlined helper
has_lines() { grep -qE '"name":"zt_sq_hot","module":"sq",[^}]*"file":"[^"]*sq\.c","line":[1-9]' "$1.top"; }
has_inline() { grep -qE ';zt_sq_hot;zt_sq_mix [0-9]+$' "$1.folded"; }
names_only() {
	grep -qE '"name":"zt_sq_hot","module":"sq","self":[0-9]+,"children":[0-9]+\}' "$1.top" &&
		grep -qE ';zt_sq_hot [0-9]+$' "$1.folded" && ! grep -q zt_sq_mix "$1.folded"
}
# zt report --symdb of the recording: the stripped binary here, the
# server's symbols through the local cache
rep() {
	ZT_TOKEN=$READ "$ZT" report -i sq.data --stdio --no-children --sort sym,srcline --comm sq \
		--no-debuginfod --symdb "$SERVE_URL"
}

# ---- push first, then the full symbols without --force -------------------------------
server "$T/d1" || { fail "zt serve starts"; finish; }
export ZT_CACHE_DIR=$T/cache1
push -v --label test=q1 > push1.out 2> push1.err
check "zt push of the stripped recording: exit 0" [ $? -eq 0 ]
check "... its automatic upload says it sent basic symbols, and what replaces them" \
	grep -qE "^zt push: sent the basic symbols of '[^']*/run/sq' \($BID\): function names only.*zt symbols upload" push1.err
check "the server has basic symbols of the program" [ "$(quality)" = basic ]
views q1
check "the server's views: the function named, without file:line, no inlined frame" names_only q1
rep > rep1.out 2> rep1.err
check "zt report --symdb: the function without file:line (the server's basic symbols)" \
	bash -c "grep -q zt_sq_hot rep1.out && ! grep -q 'sq\.c:' rep1.out"

up "$T/sq.full" > up1.out 2> up1.err
check "zt symbols upload of the unstripped binary, no --force: exit 0" [ $? -eq 0 ]
check "... uploaded, full, saying what it replaced" \
	grep -qE "^uploaded +$BID .*\(full, .*\): replaced the server's basic symbols" up1.out
check "the server has full symbols now" [ "$(quality)" = full ]
views q1
check "the server's views re-symbolized: top shows file:line" has_lines q1
check "... folded the inlined function" has_inline q1
rep > rep2.out 2> rep2.err
check "zt report --symdb: file:line (the local cache's basic symbols replaced)" \
	grep -qE 'zt_sq_hot.* sq\.c:[0-9]+' rep2.out
check "... the local cache keeps the full ones" \
	grep -qx 'quality 2' "$ZT_CACHE_DIR/gsym/$BID.meta"

# ---- a worse upload without --force: kept, said; the views unchanged ---------------
up --json "$T/run/sq" > up2.json 2> up2.err
check "zt symbols upload of the stripped binary: exit 0" [ $? -eq 0 ]
check "... skipped: the server's full symbols kept, said" bash -c \
	"grep -q '\"status\":\"skipped\"' up2.json && grep -q '\"kept\":true' up2.json &&
	 grep -q '\"server_quality\":\"full\"' up2.json &&
	 grep -q \"kept the server's full symbols (this upload: basic)\" up2.json"
up "$T/run/sq" > up3.out 2> up3.err
check "... in its line too" grep -qE "^skipped +$BID .*kept the server's full symbols \(this upload: basic\)" up3.out
up "$T/sq.full" > up4.out 2> up4.err
check "the same full symbols again: skipped, already on the server" \
	grep -qE "^skipped +$BID .*already on the server" up4.out
"$ZT" symbols extract "$T/run/sq" -o "$T/gs" > /dev/null 2>&1
c=$(curl -s -o put.json -D put.hdr -w '%{http_code}' -X PUT -H "Authorization: Bearer $PUSH" \
	-H 'If-None-Match: *' -H 'X-ZT-Symbol-Quality: basic' --data-binary "@$T/gs/$BID.gsym" \
	"$SERVE_URL/api/v1/symbols/$BID")
check "a push token's PUT of names only: 412 ($c), naming the quality kept" bash -c \
	"[ '$c' = 412 ] && grep -qi '^X-ZT-Symbol-Quality: full' put.hdr && grep -q 'keeps the full symbols' put.json"
c=$(curl -s -o put2.json -w '%{http_code}' -X PUT -H "Authorization: Bearer $PUSH" \
	-H 'If-None-Match: *' -H 'X-ZT-Symbol-Quality: full' --data-binary "@$T/gs/$BID.gsym" \
	"$SERVE_URL/api/v1/symbols/$BID")
check "... and said to be full: judged by what it holds, still 412 ($c)" [ "$c" = 412 ]
check "the server still has full symbols" [ "$(quality)" = full ]
views q1
check "the views still show file:line" has_lines q1

# ---- --force still overrides, then the better ones win again -------------------------
up --force "$T/run/sq" > up5.out 2> up5.err
check "--force with the worse symbols: exit 0, uploaded, replacing the full ones" \
	grep -qE "^uploaded +$BID .*\(basic, .*\): replaced the server's full symbols" up5.out
check "the server has basic symbols" [ "$(quality)" = basic ]
views q1
check "the views re-symbolized with them: no file:line, no inlined frame" names_only q1
# a debug file given (as a debuginfod-style upload): the GSYM made of it is better
objcopy --only-keep-debug "$T/sq.full" "$T/sq.debug"
c=$(curl -s -o dbg.json -w '%{http_code}' -X PUT -H "Authorization: Bearer $PUSH" \
	-H 'If-None-Match: *' --data-binary "@$T/sq.debug" "$SERVE_URL/api/v1/symbols/$BID/debuginfo")
check "a debug file uploaded over the basic symbols: 201 ($c), the GSYM made of it full" \
	bash -c "[ '$c' = 201 ] && [ '$(quality)' = full ]"
views q1
check "... the views show file:line" has_lines q1
up --force "$T/run/sq" > up5b.out 2> up5b.err
check "--force with the basic ones again" bash -c "[ '$(quality)' = basic ]"
up "$T/sq.full" > up6.out 2> up6.err
check "the full ones again without --force: uploaded over the basic ones" \
	grep -qE "^uploaded +$BID .*replaced the server's basic symbols" up6.out
views q1
check "the views show file:line again" has_lines q1
serve_stop

# ---- the reverse order: full first, then the push ------------------------------------
server "$T/d2" || { fail "a second zt serve starts"; finish; }
export ZT_CACHE_DIR=$T/cache2
up "$T/sq.full" > rup.out 2> rup.err
check "reverse order: the full symbols uploaded first" grep -qE "^uploaded +$BID .*\(full" rup.out
check "... the server has them" [ "$(quality)" = full ]
push -v --label test=q2 > rpush.out 2> rpush.err
check "zt push of the stripped recording: exit 0" [ $? -eq 0 ]
check "... the program's symbols not sent, saying it kept the server's full ones" bash -c \
	"grep -qE \"kept the server's full symbols of '[^']*/run/sq' \\($BID\\)\" rpush.err &&
	 ! grep -qE \"sent the .*/run/sq'\" rpush.err"
check "the server still has full symbols" [ "$(quality)" = full ]
views q2
check "the server's views show file:line" has_lines q2
check "... and the inlined function" has_inline q2
push --label test=q2 > rpush2.out 2> rpush2.err
check "without -v: not a word of symbols" bash -c "! grep -q 'symbols of' rpush2.err"
serve_stop
finish
