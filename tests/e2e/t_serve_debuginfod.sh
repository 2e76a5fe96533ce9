#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt serve's own debuginfod upstream: a stripped program recorded here and
# pushed without symbols (zt push --no-symbols) is named on the server from
# the debug file a real debuginfod server on loopback holds;
# - top and folded name its hot function, the symbols land in the server's
#   symbol store (HEAD /api/v1/symbols/ID: 200) and the fetched file in
#   DIR/debuginfod-cache (not in $HOME);
# - asked again (a restarted server), debuginfod is not asked again, and with
#   the debuginfod server gone the frames are still named;
# - the debug file fetched for symbols is kept in the symbol store too, and
#   what only the debuginfod server has is fetched through zt serve's own
#   /buildid/ (debuginfod-find with a token in DEBUGINFOD_URLS), kept, and
#   still served once the debuginfod server is gone;
# - a server without --debuginfod shows the frame as [binary+0x...];
# - the same with lld's layout (code not at its vaddr's file offset, which
#   objcopy keeps in the debug file) when ld.lld is there.
# Everything runs in a network namespace of its own when unshare -n works
# (debuginfod 0.188 binds every address: there, only loopback exists), else
# on 127.0.0.1 as t_debuginfod.sh does. Both servers stop by PID, and by
# themselves (timeout, servelib's watchdog).
if [ -z "${ZT_SERVE_DBG_NETNS:-}" ] && command -v unshare > /dev/null && command -v ip > /dev/null &&
	unshare -n sh -c 'ip link set lo up' 2> /dev/null; then
	ZT_SERVE_DBG_NETNS=1 exec unshare -n bash "$0" "$@"
fi
if [ -n "${ZT_SERVE_DBG_NETNS:-}" ]; then
	ip link set lo up 2> /dev/null ||
		{ echo "  FAIL: cannot bring loopback up in the network namespace"; exit 1; }
	echo "  (in a network namespace of its own: only loopback)"
fi
src=$(cd "$(dirname "$0")/../data/serve" && pwd)/hot.c
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
SERVE_LIFETIME=240
cd "$T"
command -v debuginfod > /dev/null || { fail "debuginfod is not installed (scripts/setup.sh --test)"; finish; }
D=$T/data
D0=$T/data-nodbg

# ---- a program with a known hot function, a fixed build id ---------------------
BID=7a7e5e12d0b9c0debafd00d1e2f3a4b5c6d7e8f9
mkdir srv bin
gcc -O2 -g -fno-omit-frame-pointer -DHOT=zt_only_debuginfod_knows -DMS=700 -Wl,--build-id=0x$BID -o hot "$src" || { fail "build hot.c"; finish; }
objcopy --only-keep-debug hot srv/hot.debug
objcopy --strip-all hot bin/hotstripped     # no debuglink, no symbols at all
rm hot
check "the stripped copy has the build id" bash -c "'$ZT' buildid bin/hotstripped | grep -q '^$BID'"
check "... and no symbols" bash -c "! nm bin/hotstripped 2> /dev/null | grep -q zt_only"

"$ZT" record -q -g -o x.data -- bin/hotstripped > rec.out 2> rec.err
check "zt record -g of the stripped binary" [ -s x.data ]
# linked by lld: its code segment's file offset is not its vaddr (0x600 at 0x1600)
BIDL=7a7e5e12d0b9c0debafd00d1e2f3a4b5c6d7e8fa
ndebug=1 haslld=0
if command -v ld.lld > /dev/null &&
	gcc -O2 -g -fno-omit-frame-pointer -DHOT=zt_only_debuginfod_knows -DMS=700 -fuse-ld=lld -Wl,--build-id=0x$BIDL -o hotl "$src"; then
	objcopy --only-keep-debug hotl srv/hotl.debug
	objcopy --strip-all hotl bin/hotlstripped
	rm hotl
	"$ZT" record -q -g -o xl.data -- bin/hotlstripped > recl.out 2> recl.err
	check "zt record -g of the lld-linked stripped binary" [ -s xl.data ]
	ndebug=2 haslld=1
else
	echo "  skip: no ld.lld (the lld layout part)"
fi

# a program only the debuginfod server has (not stripped: its executable and
# debug file in one), asked for through zt serve's /buildid/
BIDO=7a7e5e12d0b9c0debafd00d1e2f3a4b5c6d7e8fb
printf 'int main(void) { return 0; }\n' | gcc -g -x c - -Wl,--build-id=0x$BIDO -o srv/onlyupstream ||
	{ fail "build onlyupstream"; finish; }
ndebug=$((ndebug + 1))
# a program pushed with names only (its symbol table, no lines) whose debug
# file only the debuginfod server has
BIDB=7a7e5e12d0b9c0debafd00d1e2f3a4b5c6d7e8fd
gcc -O2 -g -fno-omit-frame-pointer -DHOT=zt_basic_then_debuginfod -DMS=500 -Wl,--build-id=0x$BIDB \
	-o hotb "$src" || { fail "build hot.c (names only)"; finish; }
objcopy --only-keep-debug hotb srv/hotb.debug
objcopy --strip-debug hotb bin/hotbasic
rm hotb
"$ZT" record -q -g -o xb.data -- bin/hotbasic > recb.out 2> recb.err
ndebug=$((ndebug + 1))

# ---- the debuginfod server -------------------------------------------------------
port=$(( 20000 + RANDOM % 20000 ))
while (exec 3<>/dev/tcp/127.0.0.1/$port) 2> /dev/null; do port=$((port + 1)); done
timeout 200 debuginfod -p "$port" -d "$T/db.sqlite" -F -t 0 -g 0 -c 1 "$T/srv" > dbgd.log 2>&1 &
dpid=$!; bgpids+=($dpid)
metrics() { exec 3<>/dev/tcp/127.0.0.1/$port && printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3 && cat <&3; exec 3<&-; }
indexed=0
for i in $(seq 150); do
	metrics 2> /dev/null | awk -v n=$ndebug '$1 == "found_debuginfo_total{source=\"files\"}" && $2 >= n { f = 1 } END { exit !f }' &&
		{ indexed=1; break; }
	sleep 0.2
done
check "debuginfod indexed the debug file" [ $indexed = 1 ]
# requests for the program's debug file, as the debuginfod server logs them
buildid_reqs() { grep -c "GET /buildid/$BID/" dbgd.log; }

PUSH=$("$ZT" serve token create --scope push --data-dir "$D" 2> tok.err)
READ=$("$ZT" serve token create --scope read --data-dir "$D" 2>> tok.err)
check "tokens are created" [ ${#PUSH} -ge 32 -a ${#READ} -ge 32 ]

# HOME points nowhere useful: the client's cache must not land there
mkdir home
export HOME=$T/home
unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH
serve_start "$D" --debuginfod "http://127.0.0.1:$port" || { fail "zt serve starts"; finish; }

ZT_TOKEN=$PUSH "$ZT" push --no-symbols -i x.data --server "$SERVE_URL" > push.out 2> push.err
check "push --no-symbols: exit 0" [ $? -eq 0 ]
id=$(sed -n 's/^zt push: stored \([0-9a-f]*\) .*/\1/p' push.out)
check "... stored" [ -n "$id" ]
c=$(curl -s -I -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $PUSH" "$SERVE_URL/api/v1/symbols/$BID")
check "no symbols in the store before the query ($c)" [ "$c" = 404 ]
before=$(buildid_reqs)

TOKEN=$READ api GET "/api/v1/top?id=$id&limit=20" > top1.json
check "top: 200 ($(code))" [ "$(code)" = 200 ]
check "top names the hot function (debuginfod's symbols)" grep -q '"name":"zt_only_debuginfod_knows"' top1.json
TOKEN=$READ api GET "/api/v1/folded?id=$id" > f1.folded
check "folded: 200 ($(code))" [ "$(code)" = 200 ]
check "folded: main;zt_only_debuginfod_knows" grep -qE '(^|;)main;zt_only_debuginfod_knows [0-9]+$' f1.folded
check "folded: no unresolved frame of the binary" bash -c "! grep -q '\[hotstripped+0x' f1.folded"
c=$(curl -s -I -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $PUSH" "$SERVE_URL/api/v1/symbols/$BID")
check "the symbols are in the store now: HEAD /api/v1/symbols/ID ($c)" [ "$c" = 200 ]
check "... as a GSYM with its meta" bash -c "[ -s '$D/symbols/gsym/$BID.gsym' ] && [ -s '$D/symbols/gsym/$BID.meta' ]"
check "... its source: debuginfod" grep -qx 'source debuginfod' "$D/symbols/gsym/$BID.meta"
xseg=$(readelf -lW bin/hotstripped | awk '$1 == "LOAD" && ($7 ~ /E/ || $8 == "E") { print $2, $3; exit }' |
	{ read -r o v && printf 'load %x %x' "$o" "$v"; })
check "... and the binary's code segment where the binary has it ($xseg)" \
	grep -q "^$xseg " "$D/symbols/gsym/$BID.meta"
check "the fetched debug file is cached under DIR/debuginfod-cache" \
	bash -c "[ -n \"\$(find '$D/debuginfod-cache' -name debuginfo 2> /dev/null)\" ]"
check "... not in the home directory" bash -c "[ -z \"\$(find '$HOME' -type f 2> /dev/null)\" ]"
after1=$(buildid_reqs)
check "debuginfod was asked ($before -> $after1)" [ "$after1" -gt "$before" ]

check "the debug file the symbolizer fetched is in the symbol store" cmp -s srv/hot.debug "$D/symbols/debuginfo/$BID.debug"

# ---- /buildid/ of what only the upstream has: fetched, stored, served ---------------
export DEBUGINFOD_CACHE_PATH=$T/dfcache
dfind() { DEBUGINFOD_URLS="http://zt:$READ@${SERVE_URL#http://}" debuginfod-find "$@" 2>> dfind.err; }
p=$(dfind debuginfo $BIDO)
check "debuginfod-find debuginfo through zt serve: the upstream's file" cmp -s "$p" srv/onlyupstream
check "... kept in the symbol store" cmp -s srv/onlyupstream "$D/symbols/debuginfo/$BIDO.debug"
p=$(dfind executable $BIDO)
check "debuginfod-find executable through zt serve: the upstream's file" cmp -s "$p" srv/onlyupstream
check "... kept in the symbol store" cmp -s srv/onlyupstream "$D/symbols/executable/$BIDO"
check "an id no one has: 404" [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $READ" "$SERVE_URL/buildid/7a7e5e12d0b9c0debafd00d1e2f3a4b5c6d7e8fc/debuginfo")" = 404 ]
unset DEBUGINFOD_CACHE_PATH

# ---- lld's layout: the debug file's offsets are the binary's ----------------------
if [ "$haslld" = 1 ]; then
	ZT_TOKEN=$PUSH "$ZT" push --no-symbols -i xl.data --server "$SERVE_URL" > pushl.out 2> pushl.err
	idl=$(sed -n 's/^zt push: stored \([0-9a-f]*\) .*/\1/p' pushl.out)
	check "lld: pushed" [ -n "$idl" ]
	TOKEN=$READ api GET "/api/v1/folded?id=$idl" > fl.folded
	check "lld: folded names the hot function" grep -qE '(^|;)main;zt_only_debuginfod_knows [0-9]+$' fl.folded
	xsegl=$(readelf -lW bin/hotlstripped | awk '$1 == "LOAD" && ($7 ~ /E/ || $8 == "E") { print $2, $3; exit }' |
		{ read -r o v && printf 'load %x %x' "$o" "$v"; })
	check "lld: the code segment where the binary has it ($xsegl)" \
		grep -q "^$xsegl " "$D/symbols/gsym/$BIDL.meta"
fi

# ---- names only pushed first: debuginfod's full symbols replace them ----------------
quality() { curl -s -I -H "Authorization: Bearer $PUSH" "$SERVE_URL/api/v1/symbols/$1" |
	tr -d '\r' | sed -n 's/^[Xx]-[Zz][Tt]-[Ss]ymbol-[Qq]uality: //p'; }
ZT_TOKEN=$PUSH "$ZT" push -i xb.data --server "$SERVE_URL" > pushb.out 2> pushb.err
idb=$(sed -n 's/^zt push: stored \([0-9a-f]*\) .*/\1/p' pushb.out)
qb=$(quality $BIDB)
check "push of a binary with names only: its basic symbols stored ($qb)" \
	all '[ -n "$idb" ]' '[ "$qb" = basic ]'
TOKEN=$READ api GET "/api/v1/top?id=$idb&limit=20" > topb.json
qb=$(quality $BIDB)
check "a query: debuginfod's full symbols replace the stored names only ($qb), the function named" \
	all '[ "$qb" = full ]' \
	    'grep -q "\"name\":\"zt_basic_then_debuginfod\",[^}]*\"file\":\"[^\"]*hot.c\",\"line\":[0-9]" topb.json' \
	    'grep -qx "source debuginfod" "$D/symbols/gsym/$BIDB.meta"'

# ---- asked again: from the store, not from debuginfod ----------------------------
serve_stop
serve_start "$D" --debuginfod "http://127.0.0.1:$port" || { fail "zt serve restarts"; finish; }
TOKEN=$READ api GET "/api/v1/top?id=$id&limit=20" > top2.json
check "restarted server: top still names the hot function" grep -q '"name":"zt_only_debuginfod_knows"' top2.json
after2=$(buildid_reqs)
check "... without asking debuginfod again ($after1 -> $after2)" [ "$after2" = "$after1" ]
kill "$dpid"; wait "$dpid" 2> /dev/null
serve_stop
serve_start "$D" --debuginfod "http://127.0.0.1:$port" || { fail "zt serve restarts"; finish; }
TOKEN=$READ api GET "/api/v1/folded?id=$id" > f3.folded
check "debuginfod gone: folded still names the hot function" \
	grep -qE '(^|;)main;zt_only_debuginfod_knows [0-9]+$' f3.folded
check "debuginfod gone: /buildid/ still serves what was fetched" \
	bash -c "curl -s -H 'Authorization: Bearer $READ' '$SERVE_URL/buildid/$BIDO/executable' | cmp -s - srv/onlyupstream"
serve_stop
check "the server stopped cleanly" [ $? -eq 0 ]

# ---- without --debuginfod: the frame stays an address -----------------------------
PUSH0=$("$ZT" serve token create --scope push --data-dir "$D0" 2> tok0.err)
READ0=$("$ZT" serve token create --scope read --data-dir "$D0" 2>> tok0.err)
serve_start "$D0" || { fail "zt serve (no --debuginfod) starts"; finish; }
ZT_TOKEN=$PUSH0 "$ZT" push --no-symbols -i x.data --server "$SERVE_URL" > push0.out 2> push0.err
check "push to a server without --debuginfod: exit 0" [ $? -eq 0 ]
TOKEN=$READ0 api GET "/api/v1/folded?id=$id" > f0.folded
check "without --debuginfod: [hotstripped+0x...]" grep -qE ';\[hotstripped\+0x[0-9a-f]+\] [0-9]+$' f0.folded
check "... and never the function's name" bash -c "! grep -q zt_only_debuginfod_knows f0.folded"
c=$(curl -s -I -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $PUSH0" "$SERVE_URL/api/v1/symbols/$BID")
check "... nor symbols in its store ($c)" [ "$c" = 404 ]
serve_stop
finish
