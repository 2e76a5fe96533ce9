#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run every end-to-end test script; one summary line at the end.
# E2E_ONLY=REGEX: only the scripts it matches; E2E_SKIP=REGEX: not those.
set -u
cd "$(dirname "$0")"
pass=0 fail=0
for t in t_*.sh; do
	[ -n "${E2E_ONLY:-}" ] && ! [[ "$t" =~ $E2E_ONLY ]] && continue
	[ -n "${E2E_SKIP:-}" ] && [[ "$t" =~ $E2E_SKIP ]] && continue
	echo "== $t"
	start=$(date +%s)
	# stdin from /dev/null: zt report and zt script read a pipe on stdin
	# when given no -i, as perf does; the runner's own stdin may be one
	if timeout 300 bash "$t" < /dev/null; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAILED: $t"; fi
	echo "   ($(( $(date +%s) - start ))s)"
done
echo "e2e: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
