#!/usr/bin/env bash
# Inputs that must not hang, grow or crawl: devices, FIFOs, directories as
# recordings; endless folded stacks; crafted recordings with millions of
# processes, many mappings, many distinct stacks.
. "$(dirname "$0")/lib.sh"
cd "$T"
GEN="$WL/../ztgen"

# bad RUN-DESC PATTERN CMD...: ends in time, exit 1, a clear message, no crash
bad() {
	local d=$1 pat=$2 rc
	shift 2
	nbad=$((nbad + 1))
	timeout 20 "$@" > bad.out 2> "bad-$nbad.err"
	rc=$?
	check "$d: ends with exit 1 (got $rc)" [ "$rc" -eq 1 ]
	check "$d: says why" contains "bad-$nbad.err" "$pat"
}
nbad=0
notreg="is not a regular file: give a recording made by 'zt record' or 'perf record'"
mkfifo nowriter busy
mkdir adir
# a writer that never stops (killed by its pid at the end); the FIFO also held
# open read-write here, so that no reader closing it ends the writer
exec 7<> busy
yes >&7 & ypid=$!; bgpids+=($ypid)
for c in "report --stdio" "script" "flame -o f.svg" "convert --to pprof -o c.pb.gz"; do
	cmd=${c%% *}
	# shellcheck disable=SC2086
	bad "$cmd -i /dev/zero" "^zt $cmd: '/dev/zero' $notreg" "$ZT" $c -i /dev/zero
	# shellcheck disable=SC2086
	bad "$cmd -i FIFO without writer" "^zt $cmd: 'nowriter' $notreg" "$ZT" $c -i nowriter
	# shellcheck disable=SC2086
	bad "$cmd -i FIFO with an endless writer" "^zt $cmd: 'busy' $notreg" "$ZT" $c -i busy
	# shellcheck disable=SC2086
	bad "$cmd -i directory" "^zt $cmd: 'adir' is a directory, not a recording" "$ZT" $c -i adir
done
bad "report -i /dev/null" "zt report: '/dev/null' $notreg" "$ZT" report --stdio -i /dev/null
# folded stacks are a stream: read with a limit
bad "flame --folded < /dev/zero" "^zt flame: 'stdin': a line longer than 16 MiB" \
	bash -c "'$ZT' flame --folded -o f.svg < /dev/zero"
bad "flame --folded -i /dev/zero" "^zt flame: '/dev/zero': a line longer than 16 MiB" \
	"$ZT" flame --folded -i /dev/zero -o f.svg
bad "flame --folded -i directory" "^zt flame: 'adir' is a directory" \
	"$ZT" flame --folded -i adir -o f.svg
# --diff: a pipe is folded text, read whole (its first bytes not eaten by the magic check)
printf 'main;a 3\nmain;b 1\n' > old.folded
timeout 20 "$ZT" flame --diff old.folded <(printf 'main;a 1\nmain;b 5\n') -o d.svg 2> diff.err
check "--diff of a pipe works" [ $? -eq 0 ]
check "--diff of a pipe: all its lines" bash -c "! grep -q 'not folded' diff.err"
check "the endless writer still ran" kill -0 "$ypid"
kill "$ypid"
exec 7>&-

# crafted recordings, written by zt's own writer (ztgen), at test time
# time CMD...: runs under a generous bound; what they take is noted below
timed() {
	local d=$1 s e rc
	shift
	ntimed=$((ntimed + 1))
	s=$(date +%s%N)
	timeout 60 "$@" > /dev/null 2> "timed-$ntimed.err"
	rc=$?
	e=$(date +%s%N)
	echo "    $d: $(((e - s) / 1000000)) ms"
	check "$d: exit 0 in time (got $rc)" [ "$rc" -eq 0 ]
}
ntimed=0
# 500k processes, one sample each at an address in no mapping: each such
# frame searched every process's perf map (quadratic: 80k processes took
# 5 s, 500k would take minutes); now hashed: ~1.5 s for report on the
# 2-CPU VM, ~1 s for script (2M took 6 s and 3 s: linear)
npids=500000 nmaps=200000 nstacks=500000
# under ASan (~3x slower, ~3x the memory) a quarter: the sizes that catch
# quadratic work are the normal run's, ASan's is for memory errors
grep -q __asan_init "$ZT" && npids=125000 nmaps=50000 nstacks=125000
npids=${BADINPUT_PIDS:-$npids}
check "generate $npids processes" "$GEN" pids "$npids" pids.data
# 200k mappings in one process: ~1-2 s each
check "generate $nmaps mappings" "$GEN" maps "$nmaps" maps.data
# 500k distinct stacks: ~1-4 s each
check "generate $nstacks stacks" "$GEN" stacks "$nstacks" stacks.data
for f in pids maps stacks; do
	timed "$f: report" "$ZT" report --stdio -i $f.data
	timed "$f: script" "$ZT" script -i $f.data
	timed "$f: flame" "$ZT" flame -i $f.data -o $f.svg
	timed "$f: convert" "$ZT" convert --to pprof -i $f.data -o $f.pb.gz
done
# --sort pid: groups and threads hashed as a ^ b collided (group i, thread
# i + 1): 500k processes took over a minute, now ~1 s
timed "pids: report --sort pid" bash -c "'$ZT' report --stdio --no-children --sort pid \
	-i pids.data > sortpid.txt"
check "report --sort pid: one entry per process" [ "$(grep -c '%' sortpid.txt)" -ge "$npids" ]
finish
