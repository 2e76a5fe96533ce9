#!/usr/bin/env bash
# Output paths of root's zt against a hostile local user (nobody): a FIFO,
# a socket or a device at -o is refused at once, with a message that says
# what to do, and nothing reaches it; -o - still writes to a pipe.
. "$(dirname "$0")/lib.sh"
cd "$T"
NB=(setpriv --reuid=65534 --regid=65534 --clear-groups)
nb() { "${NB[@]}" "$@"; }
mkdir pub && chmod 1777 pub
"$ZT" record -q -g -o in.data -- "$WL/hot" hot 0.3
check "the input recording" test -s in.data
bid=$(readelf -n "$WL/hot" | awk '/Build ID/ { print $3; exit }')
check "the workload has a build id" [ -n "$bid" ]

# refused NAME PATH WHAT CMD...: CMD, given PATH (nobody's FIFO, socket or a
# device), fails within the timeout, says what PATH is, and leaves nothing
# behind in pub/
refused() {
	local name=$1 path=$2 what=$3 rc
	shift 3
	timeout 20 "$@" > "$name.out" 2> "$name.err"
	rc=$?
	check "$name: refused, not waited for (exit $rc)" bash -c "[ $rc -ne 0 ] && [ $rc -ne 124 ]"
	check "$name: the message names it a $what and says what to do" \
		contains "$name.err" "^zt [a-z]+: '$path' is a $what, not a regular file: .*give another output file"
	check "$name: nothing else left in pub/" [ "$(ls -A pub)" = "$(basename "$path")" ]
}

# fifo NAME PATH CMD...: nobody plants a FIFO at PATH; CMD is refused both
# with a reader at the other end (which must get nothing) and without one
fifo() {
	local name=$1 path=$2 rp
	shift 2
	nb mkfifo "$path"
	nb timeout 10 cat "$path" > "$name.got" 2> /dev/null & rp=$!
	bgpids+=("$rp")
	sleep 0.2 # the reader is waiting
	refused "$name" "$path" FIFO "$@"
	kill "$rp" 2> /dev/null
	wait "$rp"
	check "$name: nobody's reader got nothing" [ ! -s "$name.got" ]
	# no reader: open(2) of a FIFO for writing would wait for ever
	refused "$name, no reader" "$path" FIFO "$@"
	rm -f "$path"
}

fifo record pub/r.data "$ZT" record -q -o pub/r.data -- "$WL/hot" hot 0.2
fifo record-a pub/zt.data "$ZT" record -q -a -g -o pub/zt.data -- sleep 0.2
fifo flame pub/flame.svg "$ZT" flame -i in.data -o pub/flame.svg
fifo convert-pprof pub/c.pb.gz "$ZT" convert -i in.data -o pub/c.pb.gz
fifo convert-perf pub/c.perf "$ZT" convert -i in.data --to perf -o pub/c.perf
fifo convert-trace pub/c.json "$ZT" convert -i in.data --to chrome-trace -o pub/c.json
fifo symbols-extract "pub/$bid.gsym" "$ZT" symbols extract "$WL/hot" -o pub

# a unix socket of nobody's
nb /usr/bin/python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' pub/s.sock
check "nobody's socket is there" [ -S pub/s.sock ]
refused record-socket pub/s.sock socket "$ZT" record -q -o pub/s.sock -- "$WL/hot" hot 0.2
refused flame-socket pub/s.sock socket "$ZT" flame -i in.data -o pub/s.sock
rm -f pub/s.sock

# a device: written to, it takes everything (and /dev/zero, /dev/full say nothing)
cd pub
for dev in /dev/zero /dev/full; do
	n=${dev#/dev/}
	timeout 20 "$ZT" record -q -o "$dev" -- "$WL/hot" hot 0.2 > "../dev-$n.out" 2> "../dev-$n.err"
	rc=$?
	check "record -o $dev: refused (exit $rc)" bash -c "[ $rc -ne 0 ] && [ $rc -ne 124 ]"
	check "record -o $dev: the message says it is a device" \
		contains "../dev-$n.err" "^zt record: '$dev' is a device, not a regular file: .*give another output file"
	timeout 20 "$ZT" flame -i ../in.data -o "$dev" > "../fdev-$n.out" 2> "../fdev-$n.err"
	rc=$?
	check "flame -o $dev: refused (exit $rc)" bash -c "[ $rc -ne 0 ] && [ $rc -ne 124 ]"
done
cd ..
check "nothing was left in /dev" bash -c "! ls -A /dev | grep -qE '^\.(zero|full|null)\.'"
# /dev/null only: nobody reads or blocks through it (a benchmark's habit)
timeout 20 "$ZT" record -q -o /dev/null -- "$WL/hot" hot 0.2 2> devnull.err
check "record -o /dev/null still works" [ $? -eq 0 ]
check "/dev/null is still the null device" [ "$(stat -c %F:%t:%T /dev/null)" = "character special file:1:3" ]

# -o -: the way to write into a pipe
"$ZT" record -q -o - -- "$WL/hot" hot 0.2 | "$ZT" report -i - --stdio --no-children > pipe.txt 2> pipe.err
check "record -o - | report -i -" [ "$(top_symbol pipe.txt)" = zt_hot_a ]
"$ZT" flame -i in.data -o - 2> fpipe.err | head -c 5 > fpipe.txt
check "flame -o - into a pipe" [ "$(cat fpipe.txt)" = "<?xml" ]
"$ZT" convert -i in.data --to pprof -o - 2> cpipe.err | wc -c > cpipe.txt
check "convert -o - into a pipe" [ "$(cat cpipe.txt)" -gt 100 ]
# and a regular file of nobody's in the sticky directory is replaced, not written through
nb sh -c 'echo nobody > pub/own.data'
"$ZT" record -q -o pub/own.data -- "$WL/hot" hot 0.2 2> own.err
check "a file of nobody's at -o: root's recording replaces it" [ "$(stat -c %u pub/own.data)" = 0 ]
finish
