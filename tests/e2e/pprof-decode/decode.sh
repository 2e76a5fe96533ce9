#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Decode a pprof file with the independent decoder (decode.js, pprof-format):
# installs the pinned package on first use (needs the npm registry once,
# then works offline). Usage: decode.sh FILE   Exit 2: node or npm missing.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null; then
	echo "pprof-decode: node not found: install the Debian packages 'nodejs npm'" >&2
	exit 2
fi
if [ ! -f "$dir/node_modules/pprof-format/package.json" ]; then
	if ! command -v npm >/dev/null; then
		echo "pprof-decode: npm not found: install the Debian package 'npm'" >&2
		exit 2
	fi
	# a lock directory: parallel test runs must not install at the same time
	n=0
	until mkdir "$dir/.install-lock" 2>/dev/null; do
		n=$((n + 1))
		if [ $n -gt 600 ]; then
			echo "pprof-decode: '$dir/.install-lock' held for 2 minutes: remove it if no install runs" >&2
			exit 2
		fi
		sleep 0.2
	done
	trap 'rmdir "$dir/.install-lock"' EXIT
	if [ ! -f "$dir/node_modules/pprof-format/package.json" ] &&
	   ! (cd "$dir" && npm install --no-audit --no-fund --loglevel=error >&2); then
		echo "pprof-decode: 'npm install' failed in $dir (needs the npm registry once)" >&2
		exit 2
	fi
	rmdir "$dir/.install-lock"
	trap - EXIT
fi
exec node "$dir/decode.js" "$@"
