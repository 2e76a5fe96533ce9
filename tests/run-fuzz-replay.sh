#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Replay each fuzz target's corpus (tests/fuzz/corpus/<target>/) plus
# generated mutations through the target built as a plain binary.
set -u
build=$1; shift
pass=0 fail=0
for bin in "$@"; do
	name=$(basename "$bin" -replay)
	corpus=tests/fuzz/corpus/${name#fuzz_}
	if [ ! -d "$corpus" ]; then echo "fuzz: no corpus $corpus for $name" >&2; fail=$((fail + 1)); continue; fi
	if "$bin" "$corpus"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAILED: $bin" >&2; fi
done
echo "fuzz-replay: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
