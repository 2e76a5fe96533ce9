#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-par.sh NAME JOBS -- CMD...: run each line of stdin as one test (an
# argument list for CMD... appended), JOBS at a time; each test's output is
# printed whole, in input order, once all have ended. A test that prints "SKIP:" on
# its first line and exits 0 is counted skipped. Closing line:
# "NAME: N passed, N failed, N skipped".
set -u
name=$1 jobs=$2
shift 3
dir=$(mktemp -d /tmp/zt-par.XXXXXX)
trap 'rm -rf "$dir"' EXIT
n=0
while IFS= read -r line; do
	[ -n "$line" ] || continue
	printf '%s\n' "$line" > "$dir/$n.args"
	n=$((n + 1))
done
export dir
# shellcheck disable=SC2016
seq 0 $((n - 1)) | xargs -P "$jobs" -I{} bash -c '
	i={}; read -r -a a < "$dir/$i.args"
	"$@" "${a[@]}" > "$dir/$i.out" 2>&1
	echo $? > "$dir/$i.rc.tmp" && mv "$dir/$i.rc.tmp" "$dir/$i.rc"' _ "$@"
pass=0 fail=0 skip=0
for ((i = 0; i < n; i++)); do
	cat "$dir/$i.out"
	rc=$(cat "$dir/$i.rc" 2>/dev/null || echo 255)
	if [ "$rc" -ne 0 ]; then
		fail=$((fail + 1)); echo "FAILED: $(cat "$dir/$i.args") (exit $rc)"
	elif head -n 1 "$dir/$i.out" | grep -q '^SKIP:'; then
		skip=$((skip + 1))
	else
		pass=$((pass + 1))
	fi
done
echo "$name: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
