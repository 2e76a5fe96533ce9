#!/usr/bin/env bash
# Symbols through debuginfod: a real server on 127.0.0.1 serving the debug file
# of a stripped binary; zt symbolize and zt report use it; --no-debuginfod does not.
src=$(cd "$(dirname "$0")/../data/symbolize" && pwd)/inl.c
. "$(dirname "$0")/lib.sh"
cd "$T"
command -v debuginfod >/dev/null || { fail "debuginfod is not installed (scripts/setup.sh --test)"; finish; }
gcc -O2 -g -o inl "$src"
mkdir srv bin
objcopy --only-keep-debug inl srv/inl.debug
objcopy --strip-all inl bin/inl     # no debuglink, no local debug file
a=0x$(nm inl | awk '$3 == "outer" { print $1 }')
addr2line -f -i -e inl "$a" | sed 's/ (discriminator [0-9]*)$//' > want.out
# a free port on loopback (the server has no option to bind loopback only;
# nothing but 127.0.0.1 ever talks to it)
port=$(( 20000 + RANDOM % 20000 ))
while (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; do port=$((port + 1)); done
timeout 120 debuginfod -p "$port" -d "$T/db.sqlite" -F -t 0 -g 0 -c 1 "$T/srv" > server.log 2>&1 &
spid=$!; bgpids+=($spid)
export DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$T/dcache DEBUGINFOD_TIMEOUT=5
# wait for the server to index the debug file (at most 30 s): ask its
# /metrics, not for the file, since the client remembers a "not found"
metrics() { exec 3<>/dev/tcp/127.0.0.1/$port && printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3 && cat <&3; exec 3<&-; }
for i in $(seq 150); do
	metrics 2>/dev/null | grep -q '^found_debuginfo_total{source="files"} [1-9]' && break
	sleep 0.2
done
"$ZT" symbolize --no-symbol-cache -f -i -e bin/inl "$a" > got.out
check "stripped binary resolved through debuginfod" cmp -s got.out want.out
check "the debug file landed in DEBUGINFOD_CACHE_PATH" [ -n "$(find "$T/dcache" -name debuginfo 2>/dev/null)" ]
"$ZT" symbolize --no-symbol-cache --no-debuginfod -f -e bin/inl "$a" > off.out
check "--no-debuginfod: no file:line" grep -q '^??' off.out
# a build id the server does not have: a clear reason, not an error
gcc -O2 -g -o other "$src" -DOTHER=1 -Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567
objcopy --strip-all other other.stripped
"$ZT" symbolize -v --no-symbol-cache -f -e other.stripped "$a" > nf.out 2> nf.err
check "unknown to the server: exits 0" [ $? -eq 0 ]
check "unknown to the server: says why" grep -q 'no symbols\|no debug info' nf.err
# a server that is gone: fails fast, no hang
kill "$spid"; wait "$spid" 2>/dev/null
start=$(date +%s)
"$ZT" symbolize --no-symbol-cache -f -e other.stripped "$a" > gone.out 2>&1
check "a server that is gone costs no more than the timeout" [ $(( $(date +%s) - start )) -le 8 ]
finish
