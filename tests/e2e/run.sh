#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run every end-to-end test script; two summary lines at the end: the
# checks, then the scripts. A script that exits 0 with no check passed and
# some skipped (no CUDA, no ClickHouse) is counted skipped, not passed.
# E2E_ONLY=REGEX: only the scripts it matches; E2E_SKIP=REGEX: not those.
set -u
cd "$(dirname "$0")"
pass=0 fail=0 skip=0 cpass=0 cfail=0 cskip=0 unav=0
log=$(mktemp /tmp/zt-e2e-run.XXXXXX)
trap 'rm -f "$log"' EXIT
for t in t_*.sh; do
	[ -n "${E2E_ONLY:-}" ] && ! [[ "$t" =~ $E2E_ONLY ]] && continue
	[ -n "${E2E_SKIP:-}" ] && [[ "$t" =~ $E2E_SKIP ]] && continue
	echo "== $t"
	start=$(date +%s)
	# stdin from /dev/null: zt report and zt script read a pipe on stdin
	# when given no -i, as perf does; the runner's own stdin may be one
	timeout 300 bash "$t" < /dev/null 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	read -r p f s < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p' "$log" | tail -n 1)
	u=$(sed -nE 's/^\(([0-9]+) of the skipped: reference unavailable.*/\1/p' "$log" | tail -n 1)
	cpass=$((cpass + ${p:-0})) cfail=$((cfail + ${f:-0})) cskip=$((cskip + ${s:-0})) unav=$((unav + ${u:-0}))
	if [ "$rc" -ne 0 ]; then
		fail=$((fail + 1)); echo "FAILED: $t"
		[ -n "${p:-}" ] || cfail=$((cfail + 1)) # died before its closing line
	elif [ "${p:-0}" -eq 0 ] && [ "${s:-0}" -gt 0 ]; then
		skip=$((skip + 1)); echo "SKIPPED: $t"
	else
		pass=$((pass + 1))
	fi
	echo "   ($(( $(date +%s) - start ))s)"
done
echo "e2e checks: $cpass passed, $cfail failed, $cskip skipped ($unav of them: reference unavailable)"
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
