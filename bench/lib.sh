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
