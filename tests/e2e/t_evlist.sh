#!/usr/bin/env bash
# zt evlist: a recording's events, as perf evlist prints them; zt.data too.
. "$(dirname "$0")/lib.sh"
cd "$T"
export HOME="$T/home"
mkdir -p "$HOME"
precord() { local i; for i in 1 2 3 4 5; do perf record -B "$@" > /dev/null 2>&1 && return 0; done; return 1; }

compare() {
	local f=$1
	shift
	"$ZT" evlist "$@" -i "$f" > zt.out 2> zt.err
	if [ $? -ne 0 ]; then
		fail "zt evlist $* -i $f: exit status (stderr: $(head -c 300 zt.err))"
		return
	fi
	if ! perf_retry evlist "$@" -i "$f" > perf.out || ! [ -s perf.out ]; then
		skip "perf evlist $* -i $f: reference unavailable"
		return
	fi
	if cmp -s perf.out zt.out; then
		ok "zt evlist $* -i $f: as perf prints it ($(head -n 1 zt.out))"
	else
		diff perf.out zt.out | head -n 6 | sed 's/^/  | /'
		fail "zt evlist $* -i $f: as perf prints it"
	fi
}

if precord -e cpu-clock -o one.perf -- "$WL/hot" hot 0.1; then
	compare one.perf
	compare one.perf -F
else
	skip "perf record failed 5 times"
fi
if precord -e cpu-clock,task-clock -c 200000 -o two.perf -- "$WL/hot" hot 0.1; then
	compare two.perf
	compare two.perf -F
	"$ZT" evlist -v -i two.perf > v.out 2> v.err
	check "-v: perf's fields zt keeps, in perf's form" \
		grep -qx "task-clock: type: 1, config: 0x1, { sample_period, sample_freq }: 200000" v.out
else
	skip "perf record of two events failed 5 times"
fi
if precord -e cpu-clock:u -F 999 -o u.perf -- "$WL/hot" hot 0.1; then
	compare u.perf
	compare u.perf -F
else
	skip "perf record -e cpu-clock:u failed 5 times"
fi

# system wide: perf adds its side-band event dummy:HG, which perf evlist lists
if precord -a -e cpu-clock -o all.perf -- sleep 0.1; then
	compare all.perf
	compare all.perf -F
	check "-a: perf's dummy:HG listed" grep -q "^dummy:HG" zt.out
else
	skip "perf record -a failed 5 times"
fi

"$ZT" record -q -F 997 -o z.data -- "$WL/hot" hot 0.2 > /dev/null 2> rec.err
"$ZT" evlist -i z.data > z.out 2> z.err
check "zt.data: the event" grep -qx "cpu-clock" z.out
"$ZT" evlist -F -i z.data > zf.out 2> zf.err
check "zt.data -F: its frequency" grep -qx "cpu-clock: sample_freq=997" zf.out
"$ZT" evlist -v -i z.data > zv.out 2> zv.err
check "zt.data -v: type and frequency" grep -qx "cpu-clock: type: 1, { sample_period, sample_freq }: 997, freq: 1" zv.out
"$ZT" evlist -i no-such.data > /dev/null 2> e1.err
check "a missing file: exit 1, named" bash -c '[ "$1" -eq 1 ] && grep -q "^zt evlist: .*no-such.data" e1.err' _ $?
finish
