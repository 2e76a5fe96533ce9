# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the benchmarks: shared helpers.

# ms CMD...: wall milliseconds of CMD > /dev/null (best of 3)
ms() {
	local best=999999999 s e i
	for i in 1 2 3; do
		s=$(date +%s%N); "$@" > /dev/null 2>&1; e=$(date +%s%N)
		[ $(( (e - s) / 1000000 )) -lt "$best" ] && best=$(( (e - s) / 1000000 ))
	done
	echo "$best"
}

# unwind_mix DIR: writes DIR/mix.sh, the --call-graph dwarf benchmarks' mix
# (nofp without frame pointers, gcc, xz, sha256sum), run as
# DIR/mix.sh SECS WL DIR; every job stops after SECS (timeout signals its
# whole process group, so the loops' current gcc, xz or sha256sum stop too)
unwind_mix() {
	local d=$1 big
	"$(dirname "${BASH_SOURCE[0]}")/gen-big-c.sh" 300 > "$d/big.c" || return 1
	big=$(ls -S /usr/lib/x86_64-linux-gnu/*.so* | head -1)
	{
		printf '#!/bin/sh\nS=$1 WL=$2 T=$3 BIG=%s\n' "$big"
		cat << 'EOF'
"$WL/nofp" chain "$S" &
"$WL/nofp" thread "$S" &
"$WL/nofp" qsort "$S" &
timeout "$S" sh -c "while :; do gcc -O2 -g -c -o '$T/big.o' '$T/big.c'; done" &
timeout "$S" sh -c "while :; do head -c 8M '$BIG' | xz -3 -T1 -c; done" > /dev/null &
timeout "$S" sh -c "while :; do find /usr/lib/x86_64-linux-gnu -type f -size +1M -print0 |
	head -z -n 20 | xargs -0 sha256sum; done" > /dev/null &
wait
exit 0
EOF
	} > "$d/mix.sh"
	chmod +x "$d/mix.sh"
}
