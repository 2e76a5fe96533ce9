#!/usr/bin/env bash
# Reports that ask the team symbol database (--symdb, ZT_SYMDB, 'symdb =' in
# the configuration file), against a real zt serve on loopback:
# - a stripped binary whose GSYM was uploaded: the same functions,
#   file:line and inline frames as a report of the unstripped binary, and
#   the summary says the database served it;
# - the answer is kept in the symbol cache: with the server stopped, the
#   next report still has them;
# - a closed port costs under 5 s and is said exactly once; a 404 is
#   silent; a refused token is said once; --no-symdb turns a default off;
# - zt symbolize --symdb; every symbolizing command lists --symdb;
# - the server's own flame graph, top and pprof of the recording name the
#   frames, files and lines as zt flame and zt convert --symdb do.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
decode=$(cd "$(dirname "$0")/pprof-decode" && pwd)/decode.sh
cd "$T"
D=$T/data

for c in report script flame top symbolize convert; do
	check "zt $c -h lists --symdb and --no-symdb" \
		bash -c "'$ZT' $c -h | grep -q -- '--symdb <url>' && '$ZT' $c -h | grep -q -- '--no-symdb'"
done

# a program with an inlined function, built -g -O2; a stripped copy of it,
# which is the one recorded
mkdir -p full stripped
cat > sd.c <<'EOF'
#include <time.h>
volatile int sd_rounds = 2000;
static inline __attribute__((always_inline)) unsigned long sd_mix(unsigned long v)
{
	for (int i = 0; i < sd_rounds; i++)
		v = v * 6364136223846793005ul + (v >> 7) + 1442695040888963407ul;
	return v;
}
__attribute__((noinline)) unsigned long sd_hot(unsigned long s)
{
	return sd_mix(s) ^ s;
}
int main(void)
{
	struct timespec a, b;
	unsigned long s = 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		s += sd_hot(s);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 600 * 1000000L);
	return s == 42; /* 0, and s is used */
}
EOF
gcc -g -O2 -fno-omit-frame-pointer -Wl,--build-id=sha1 -o full/sd sd.c || fail "build sd.c"
strip -o stripped/sd full/sd || fail "strip"
id=$("$ZT" buildid full/sd 2> /dev/null | awk '{print $1; exit}')
check "the build id is known" [ -n "$id" ]
"$ZT" record -q -g -o str.data -- stripped/sd 2> rec.err
check "record the stripped binary" [ $? -eq 0 ]

rep() { # rep OUT DATA [options...]: report --stdio; stderr in OUT.err
	local out=$1 in=$2
	shift 2
	"$ZT" report --stdio --no-children -i "$in" "$@" > "$out" 2> "$out.err"
}
body() { grep -v '^#' "$1"; } # a report without its header
names() { grep -oE 'sd_(hot|mix)( \(inlined\))?' "$1" | sort -u; }

# the reference: the same recording with the unstripped binary in the
# stripped one's place (the same build id), read with its own DWARF
mv stripped/sd stripped/sd.s
cp full/sd stripped/sd
ZT_CACHE_DIR=$T/c0 rep ref.rep str.data
ZT_CACHE_DIR=$T/c0 rep ref.src str.data --sort srcline -g none
ZT_CACHE_DIR=$T/c0 "$ZT" script -i str.data > ref.script 2> /dev/null
mv stripped/sd.s stripped/sd
check "reference: sd_hot with sd_mix inlined" grep -q 'sd_mix (inlined)' ref.rep
check "reference: file:line of sd.c" grep -qE 'sd\.c:[0-9]+' ref.src
ZT_CACHE_DIR=$T/cnone rep nodb.rep str.data --no-symdb
check "without the database, the stripped binary has no sd_hot" bash -c "! grep -q sd_hot nodb.rep"

# ---- the server, with the GSYM uploaded ------------------------------------------------
SYM=$("$ZT" serve token create --scope symbols --data-dir "$D" 2> tok.err)
READ=$("$ZT" serve token create --scope read --data-dir "$D" 2>> tok.err)
PUSH=$("$ZT" serve token create --scope push --data-dir "$D" 2>> tok.err)
check "tokens are created" [ ${#SYM} -ge 32 -a ${#READ} -ge 32 -a ${#PUSH} -ge 32 ]
serve_start "$D" || { fail "zt serve starts"; finish; }
"$ZT" symbols extract full/sd -o gs > extract.out 2> extract.err
check "zt symbols extract: a full GSYM" grep -q "^gs/$id.gsym full " extract.out
load=
while read -r type off va pa fsz rest; do
	[ "$type" = LOAD ] && load+="${load:+,}$(printf '%x:%x:%x' $((off)) $((va)) $((fsz)))"
done < <(readelf -lW full/sd)
c=$(curl -s -o put.out -w '%{http_code}' -X PUT -H "Authorization: Bearer $SYM" \
	-H 'X-ZT-Symbol-Quality: full' -H "X-ZT-Symbol-Load: $load" \
	--data-binary "@gs/$id.gsym" "$SERVE_URL/api/v1/symbols/$id")
check "the GSYM is uploaded ($c)" [ "$c" = 201 ]

# ---- a report of the stripped binary asks it --------------------------------------------
export ZT_CACHE_DIR=$T/c1
ZT_TOKEN=$READ rep db.rep str.data --symdb "$SERVE_URL"
check "report --symdb: exit 0" [ $? -eq 0 ]
check "... the same report as of the unstripped binary" diff <(body ref.rep) <(body db.rep)
check "... sd_hot with sd_mix inlined ($(names db.rep | tr '\n' ' '))" grep -q 'sd_mix (inlined)' db.rep
check "... the summary says the database served it" \
	grep -qx "# Symbol database $SERVE_URL: served 1 module (sd)" db.rep
check "... 404s for the other modules are silent" bash -c "! grep -q 'symbol server' db.rep.err"
ZT_TOKEN=$READ rep db.src str.data --symdb "$SERVE_URL" --sort srcline -g none
check "... the same file:line ($(grep -oE 'sd\.c:[0-9]+' db.src | sort -u | tr '\n' ' '))" \
	diff <(body ref.src) <(body db.src)
check "... the answer is in the symbol cache" grep -qx "source symbol database $SERVE_URL" \
	"$T/c1/gsym/$id.meta"

# script and flame take it too (a fresh cache each)
ZT_TOKEN=$READ ZT_CACHE_DIR=$T/c2 "$ZT" script -i str.data --symdb "$SERVE_URL" > db.script 2> db.script.err
check "script --symdb: the same as of the unstripped binary" diff ref.script db.script
check "... with sd_hot" grep -q sd_hot db.script
ZT_TOKEN=$READ ZT_CACHE_DIR=$T/c3 "$ZT" flame -i str.data -o db.svg --symdb "$SERVE_URL" 2> db.flame.err
check "flame --symdb: sd_hot in the graph" grep -q 'sd_hot' db.svg

# ---- the server's own views of the recording: the frames, files and lines of zt's ---------
# srcof SVG NAME: the source line in the tooltip of the flame graph's frame NAME
srcof() {
	awk -v n="$2" 'index($0, "<title>" n) && substr($0, length($0) - length(n) + 1) == n { f = 1; next }
		f && /^source: / { print $2; exit } f && /^kind: / { f = 0 }' "$1"
}
c=$(curl -s -o push.out -w '%{http_code}' -H "Authorization: Bearer $PUSH" \
	--data-binary @str.data "$SERVE_URL/api/v1/profiles")
check "the recording pushed ($c)" [ "$c" = 201 ]
pid=$(grep -oE '"id":"[0-9a-f]{64}"' push.out | cut -d'"' -f4)
sget() { curl -s -H "Authorization: Bearer $READ" "$SERVE_URL/api/v1/$1"; }
sget "flame?id=$pid" > srv.svg
for fn in sd_hot sd_mix; do
	a=$(srcof db.svg $fn) b=$(srcof srv.svg $fn)
	check "flame: $fn's source line as zt flame --symdb's ($a, $b)" [ -n "$a" -a "$a" = "$b" ]
done
sget "top?id=$pid&limit=100000" > srv.top
hot=$(grep -oE '\{"name":"sd_hot",[^}]*\}' srv.top)
hl=$(grep -oE '"line":[0-9]+' <<< "$hot" | cut -d: -f2)
check "top: sd_hot's file and hottest line, as the flame graphs' ($hot)" \
	[ "$(grep -cE '"file":"[^"]*/sd\.c"' <<< "$hot")" = 1 -a "sd.c:$hl" = "$(srcof db.svg sd_hot)" ]
ZT_TOKEN=$READ ZT_CACHE_DIR=$T/c3 "$ZT" convert --to pprof -i str.data -o db.pb.gz \
	--symdb "$SERVE_URL" 2> db.conv.err
sget "pprof?id=$pid" > srv.pb.gz
"$decode" db.pb.gz > db.dec 2> db.dec.err
"$decode" srv.pb.gz > srv.dec 2> srv.dec.err
fns() { grep -E '^function sd_(hot|mix) ' "$1"; }
check "pprof: sd_hot and sd_mix with zt convert --symdb's files ($(fns srv.dec | tr '\n' ' '))" \
	[ "$(fns db.dec | wc -l)" = 2 -a "$(fns db.dec)" = "$(fns srv.dec)" ]
check "... their module a mapping with its build id and lines ($(grep '^mapping sd ' srv.dec))" \
	grep -qE "^mapping sd $id F?fli?$" srv.dec

# zt symbolize --symdb: an address in sd_hot of the stripped binary
addr=$(nm full/sd | awk '$3 == "sd_hot" { print "0x" $1 }')
ZT_TOKEN=$READ ZT_CACHE_DIR=$T/c4 "$ZT" symbolize -f -i -e stripped/sd --symdb "$SERVE_URL" "$addr" \
	> sym.out 2> sym.err
"$ZT" symbolize -f -i -e full/sd --no-symbol-cache "$addr" > symref.out 2> /dev/null
check "symbolize --symdb: as of the unstripped binary ($(tr '\n' ' ' < sym.out))" \
	diff symref.out sym.out
check "... sd_hot at sd.c:N" bash -c "grep -qx sd_hot sym.out && grep -qE 'sd\.c:[0-9]+' sym.out"
"$ZT" symbolize -f -e stripped/sd --no-symbol-cache "$addr" > sym0.out 2> /dev/null
check "... which it does not know without it" bash -c "! grep -q sd_hot sym0.out"

# the default from ZT_SYMDB, then from the configuration file; --no-symdb
ZT_SYMDB=$SERVE_URL ZT_TOKEN=$READ ZT_CACHE_DIR=$T/c5 rep env.rep str.data
check "ZT_SYMDB is the default" grep -q "^# Symbol database $SERVE_URL: served 1 module" env.rep
mkdir -p cfg/zt
printf 'server = http://unused.invalid\nsymdb = %s\ntoken = %s\n' "$SERVE_URL" "$READ" > cfg/zt/config
chmod 600 cfg/zt/config
XDG_CONFIG_HOME=$T/cfg ZT_CACHE_DIR=$T/c6 rep cfg.rep str.data
check "'symdb =' and 'token =' of the configuration file" \
	grep -q "^# Symbol database $SERVE_URL: served 1 module" cfg.rep
XDG_CONFIG_HOME=$T/cfg ZT_SYMDB=$SERVE_URL ZT_CACHE_DIR=$T/c7 rep off.rep str.data --no-symdb
check "--no-symdb turns both off" bash -c "! grep -q 'sd_hot\|Symbol database' off.rep"

# a refused token: said once, the report goes on
ZT_TOKEN=not-a-token ZT_CACHE_DIR=$T/c8 rep tok.rep str.data --symdb "$SERVE_URL"
check "a refused token: exit 0" [ $? -eq 0 ]
check "... said once ($(grep -c 'symbol server' tok.rep.err))" \
	[ "$(grep -c "symbol server $SERVE_URL refused the token (401)" tok.rep.err)" = 1 ]

# ---- offline: the server stopped, the cache answers -------------------------------------
serve_stop
rep off1.rep str.data --symdb "$SERVE_URL"
check "server stopped: the same report from the cache ($(names off1.rep | tr '\n' ' '))" \
	diff <(body ref.rep) <(body off1.rep)
check "... from the cached answer" \
	grep -qx "# Symbol database $SERVE_URL: cached answers for 1 module (sd)" off1.rep
check "... the server's absence said at most once" \
	[ "$(grep -c 'did not answer' off1.rep.err)" -le 1 ]

# ---- a closed port: quick, said once ----------------------------------------------------
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
t0=$(date +%s%N)
ZT_CACHE_DIR=$T/c9 rep closed.rep str.data --symdb "http://127.0.0.1:$port"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
check "closed port: exit 0" [ $rc -eq 0 ]
check "... in under 5 s (${ms} ms)" [ "$ms" -lt 5000 ]
check "... said exactly once" \
	[ "$(grep -c "zt report: warning: symbol server http://127.0.0.1:$port did not answer (.*): continuing without it" closed.rep.err)" = 1 ]

# a bad URL is an error
"$ZT" report --stdio -i str.data --symdb "ftp://x" > /dev/null 2> bad.err
rc=$?
check "--symdb ftp://x: exit 1 with a message" \
	bash -c "[ $rc -eq 1 ] && grep -q \"symbol database 'ftp://x'\" bad.err"
finish
