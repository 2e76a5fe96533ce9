#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run each libFuzzer target for a bounded time, from its corpus
# (tests/fuzz/corpus/<target>/, read only: new inputs go to a scratch
# directory). A crash, leak or timeout fails the run; its input is kept in
# BUILD/crashes/ and named, to be minimized and added to the corpus.
#   tests/run-fuzz.sh BUILD SECONDS TARGET...
set -u
build=$1 secs=$2; shift 2
mkdir -p "$build/crashes"
pass=0 fail=0
for bin in "$@"; do
	name=$(basename "$bin"); corpus=tests/fuzz/corpus/${name#fuzz_}
	scratch=$(mktemp -d /tmp/zt-fuzz.XXXXXX)
	echo "== $name: ${secs}s from $corpus"
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$build/crashes/$name-" "$scratch" "$corpus" > "$build/crashes/$name.log" 2>&1
	rc=$?
	grep -E '^#[0-9]+.*(DONE|cov:)' "$build/crashes/$name.log" | tail -1
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAILED: $name (exit $rc): $(grep -m1 -E 'ERROR|SUMMARY|Test unit written' "$build/crashes/$name.log")"
		grep -E 'Test unit written to' "$build/crashes/$name.log" | sed 's/^/  /'
	fi
	rm -rf "$scratch"
done
echo "fuzz-run: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
