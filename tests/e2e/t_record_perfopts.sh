#!/usr/bin/env bash
# zt record's perf options that change what is kept: -B/-N (the build-id
# cache), -u (one user's processes), --exclude-perf, --filter on a
# tracepoint, and -s and -d (accepted, without effect, said once). Each
# is checked for its effect, and against perf where perf runs it here.
. "$(dirname "$0")/lib.sh"
cd "$T"
comms() { "$ZT" report -i "$1" --stdio --no-children -g none --sort comm 2> /dev/null | awk '!/^#/ && NF == 2 { print $2 }' | sort; }
not() { ! "$@"; }
pids() { "$ZT" script -i "$1" -F pid 2> /dev/null | awk '{ print $1 }' | sort -u; }

# -B and -N: the recording reads as before, nothing goes to the build-id cache
ZT_CACHE_DIR=$T/c0 "$ZT" record -o c0.data -- "$WL/hot" hot 0.5 > /dev/null 2>&1
check "without -B or -N the sampled binaries go to the build-id cache" \
	[ -n "$(find c0 -path '*/buildid/*' -name elf 2> /dev/null)" ]
for o in -B --no-buildid -N --no-buildid-cache; do
	ZT_CACHE_DIR=$T/c$o "$ZT" record "$o" -o "c$o.data" -- "$WL/hot" hot 0.5 > /dev/null 2> "c$o.err"
	check "$o: accepted, exit 0" [ $? -eq 0 ]
	check "$o: nothing said" not grep -q '^zt record: ' "c$o.err"
	check "$o: no binary in the build-id cache" [ -z "$(find "c$o" -path '*/buildid/*' -name elf 2> /dev/null)" ]
	ZT_CACHE_DIR=$T/c$o "$ZT" report -i "c$o.data" --stdio --no-children > "c$o.txt" 2>&1
	check "$o: the recording resolves (zt_hot_a first)" [ "$(top_symbol "c$o.txt")" = zt_hot_a ]
done
# perf's -N leaves ~/.debug alone (without it perf fills it, when its build-id pass survives)
mkdir -p h0 h1
for i in 1 2 3 4 5; do
	HOME=$T/h0 perf record -e cpu-clock -o h0.perf -- "$WL/hot" hot 0.3 > /dev/null 2>&1 && break
done
if [ -d h0/.debug ]; then
	HOME=$T/h1 perf record -N -e cpu-clock -o h1.perf -- "$WL/hot" hot 0.3 > /dev/null 2>&1
	check "... as perf record -N, which leaves ~/.debug empty" [ -z "$(ls -A h1/.debug 2> /dev/null)" ]
else
	skip "perf record kept no build ids here: reference unavailable"
fi

# -s and -d: accepted, no effect, said once
"$ZT" record -s -o s.data -- "$WL/tree" 0.5 > /dev/null 2> s.err
check "-s: accepted, exit 0" [ $? -eq 0 ]
check "... said once on stderr, pointing to zt report -T" [ "$(grep -c 'zt record: note: -s has no effect.*zt report -T' s.err)" = 1 ]
"$ZT" report -i s.data -T --stdio > sT.txt 2>&1
check "... zt report -T shows the two threads' counts" \
	[ "$(awk '/^# +PID +TID +cpu-clock$/ { t = 1; next } t && NF == 3 { n++ } END { print n + 0 }' sT.txt)" -ge 2 ]
if perf_retry record -B -s -e cpu-clock -o s.perf -- "$WL/tree" 0.5 > /dev/null &&
	perf_retry report -i s.perf -T --stdio > sTp.txt; then
	check "... with perf report -T's table header" diff <(grep -E '^# +PID +TID' sTp.txt) <(grep -E '^# +PID +TID' sT.txt)
else
	skip "perf record -s failed: reference unavailable"
fi
"$ZT" record -d -o d.data -- "$WL/hot" hot 0.5 > /dev/null 2> d.err
check "-d: accepted, exit 0" [ $? -eq 0 ]
check "... said once on stderr" [ "$(grep -c 'zt record: note: -d has no effect' d.err)" = 1 ]
"$ZT" record --data -q -o d2.data -- "$WL/hot" hot 0.3 > /dev/null 2> d2.err
check "... not with -q" [ ! -s d2.err ]
# perf records a data address of 0 for every cpu-clock sample: nothing to keep
if perf_retry record -B -d -e cpu-clock -o d.perf -- "$WL/hot" hot 0.3 > /dev/null &&
	perf_retry script -i d.perf -F addr > dp.txt; then
	check "... perf's cpu-clock samples have no data address either (all 0)" \
		[ "$(grep -c . dp.txt)" -gt 0 -a "$(grep -vcE '^ *0 *$' dp.txt)" = 0 ]
else
	skip "perf record -d failed: reference unavailable"
fi

# --exclude-perf: zt record's own samples left out (its context switches here)
sw() { # sw OUT [OPTIONS]: zt record's pid in $zp
	local o=$1
	shift
	"$ZT" record -a -e sched:sched_switch "$@" -o "$o" -- sleep 1 > /dev/null 2> "$o.err" &
	zp=$!
	wait "$zp"
}
sw x0.data
check "without --exclude-perf zt record's own switches are there" grep -qx "$zp" <(pids x0.data)
sw x1.data --exclude-perf
check "--exclude-perf: exit 0" [ $? -eq 0 ]
check "... none of zt record's own" not grep -qx "$zp" <(pids x1.data)
check "... the others' are kept" [ "$(pids x1.data | grep -c .)" -ge 3 ]
perf record -B -a -e sched:sched_switch --exclude-perf -o x.perf -- sleep 1 > /dev/null 2>&1 &
pp=$!
if wait "$pp" && perf_retry script -i x.perf -F pid > xp.txt; then
	check "... as perf record --exclude-perf: none of perf's own" not grep -qE "^ *$pp\$" xp.txt
else
	skip "perf record --exclude-perf failed: reference unavailable"
fi

# --filter: the kernel's tracepoint filter on the -e before it
flt='prev_comm == "sleep"'
"$ZT" record -a -e sched:sched_switch -o f0.data -- sleep 0.5 > /dev/null 2>&1
"$ZT" script -i f0.data > f0.txt 2> /dev/null
check "without --filter other tasks' switches are there" grep -q 'sched:sched_switch: prev_comm=[^s]' f0.txt
"$ZT" record -a -e sched:sched_switch --filter "$flt" -o f1.data -- sleep 0.5 > /dev/null 2> f1.err
check "--filter '$flt': exit 0" [ $? -eq 0 ]
"$ZT" script -i f1.data > f1.txt 2> /dev/null
check "... switches of sleep recorded" grep -q 'sched:sched_switch: prev_comm=sleep ' f1.txt
check "... and of no other task" [ "$(grep -c 'sched:sched_switch: prev_comm=' f1.txt)" = "$(grep -c 'sched:sched_switch: prev_comm=sleep ' f1.txt)" ]
if perf_retry record -B -a -e sched:sched_switch --filter "$flt" -o f.perf -- sleep 0.5 > /dev/null &&
	perf_retry script -i f.perf > fp.txt && [ -s fp.txt ]; then
	check "... as perf record --filter: sleep's only" [ "$(grep -c 'sched:sched_switch: prev_comm=' fp.txt)" = "$(grep -c 'sched:sched_switch: prev_comm=sleep ' fp.txt)" ]
else
	skip "perf record --filter failed: reference unavailable"
fi
"$ZT" record -a -e sched:sched_switch --filter 'no_such_field == 1' -o f2.data -- true > /dev/null 2> f2.err
check "a filter the kernel refuses: exit 1" [ $? -eq 1 ]
check "... saying where the fields are" contains f2.err 'zt record: the kernel refused a --filter.*/format'
"$ZT" record -e cpu-clock --filter 'x == 1' -o f3.data -- "$WL/hot" hot 0.3 > /dev/null 2> f3.err
check "--filter on cpu-clock: accepted, exit 0" [ $? -eq 0 ]
check "... saying once that it has no effect there" [ "$(grep -c "note: --filter 'x == 1' has no effect on 'cpu-clock'" f3.err)" = 1 ]
"$ZT" record --filter 'x == 1' -o f4.data -- true > /dev/null 2> f4.err
check "--filter before any -e: usage error (129)" [ $? -eq 129 ]
check "... saying it goes after the -e" contains f4.err 'zt record: --filter goes after the -e'

# -u USER: the user's processes only (perf: the owner of /proc/PID)
cp "$WL/hot" hotn
chmod 755 hotn
setpriv --reuid=nobody --regid=nogroup --clear-groups ./hotn hot 60 & np=$!
bgpids+=("$np")
"$WL/hot" hot 60 & rp=$!
bgpids+=("$rp")
sleep 0.3
"$ZT" record -u nobody -o u.data -- sleep 1 > /dev/null 2> u.err
check "-u nobody -- sleep 1: exit 0" [ $? -eq 0 ]
check "... only nobody's process ($np)" [ "$(pids u.data)" = "$np" ]
uid=$(id -u nobody)
"$ZT" record -u "$uid" -o u2.data -- sleep 0.5 > /dev/null 2>&1
check "-u $uid (a number): the same" [ "$(pids u2.data)" = "$np" ]
check "(root's hot still runs)" kill -0 "$rp"
"$ZT" record -u root -o u3.data -- sleep 1 > /dev/null 2>&1
pids u3.data > u3.pids
check "-u root: root's hot" grep -qx "$rp" u3.pids
check "... not nobody's" not grep -qx "$np" u3.pids
# perf 6.1 -u crashes on this kernel now and then ("Miscounted nr_mmaps")
(timeout -s INT 1.5 perf record -B -u nobody -e cpu-clock -o u.perf > /dev/null 2>&1) 2> /dev/null
if perf_retry script -i u.perf -F pid > up.txt && [ -s up.txt ]; then
	check "... as perf record -u nobody" [ "$(awk '{ print $1 }' up.txt | sort -u)" = "$np" ]
else
	skip "perf record -u failed: reference unavailable"
fi
kill "$np" "$rp" 2> /dev/null
"$ZT" record -u no-such-user-zt -- true > /dev/null 2> ub.err
check "-u of no user: usage error (129)" [ $? -eq 129 ]
check "... naming it" contains ub.err "zt record: -u 'no-such-user-zt': no such user"
"$ZT" record -u nobody -p 1 -- true > /dev/null 2> up.err
check "-u with -p: usage error (129)" [ $? -eq 129 ]
finish
