#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Replay each fuzz target's corpus (tests/fuzz/corpus/<target>/) plus
# generated mutations through the target built as a plain binary, as many
# targets at a time as there are CPUs (FUZZ_JOBS); one summary line.
set -u
shift # the build directory
missing=0
for bin in "$@"; do
	name=$(basename "$bin" -replay)
	corpus=tests/fuzz/corpus/${name#fuzz_}
	if [ -d "$corpus" ]; then printf '%s %s\n' "$bin" "$corpus"
	else echo "fuzz: no corpus $corpus for $name" >&2; missing=$((missing + 1)); fi
done > /tmp/zt-fuzz-list.$$
"$(dirname "$0")/run-par.sh" fuzz-replay "${FUZZ_JOBS:-$(nproc)}" -- < /tmp/zt-fuzz-list.$$
rc=$?
rm -f /tmp/zt-fuzz-list.$$
[ "$missing" -eq 0 ] && [ "$rc" -eq 0 ]
