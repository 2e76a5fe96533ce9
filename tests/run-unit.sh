#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run cmocka unit test binaries; print one summary line.
set -u
pass=0 fail=0
for t in "$@"; do
	if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAILED: $t" >&2; fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
