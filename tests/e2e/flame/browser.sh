#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Drive a flame graph SVG in headless Chromium (browser.js, through the
# DevTools protocol with chrome-remote-interface): installs the pinned
# package on first use (needs the npm registry once, then works offline).
# Usage: browser.sh FILE.svg SCREENSHOT.png FRAME REGEX
# Exit 2: node, npm or chromium missing.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
chrome=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$chrome" ]; then
	echo "flame-browser: chromium not found: install the Debian package 'chromium' (scripts/setup.sh --test)" >&2
	exit 2
fi
if ! command -v node >/dev/null; then
	echo "flame-browser: node not found: install the Debian packages 'nodejs npm'" >&2
	exit 2
fi
if [ ! -f "$dir/node_modules/chrome-remote-interface/package.json" ]; then
	if ! command -v npm >/dev/null; then
		echo "flame-browser: npm not found: install the Debian package 'npm'" >&2
		exit 2
	fi
	# a lock directory: parallel test runs must not install at the same time
	n=0
	until mkdir "$dir/.install-lock" 2>/dev/null; do
		n=$((n + 1))
		if [ $n -gt 600 ]; then
			echo "flame-browser: '$dir/.install-lock' held for 2 minutes: remove it if no install runs" >&2
			exit 2
		fi
		sleep 0.2
	done
	trap 'rmdir "$dir/.install-lock"' EXIT
	if [ ! -f "$dir/node_modules/chrome-remote-interface/package.json" ] &&
	   ! (cd "$dir" && npm install --no-audit --no-fund --loglevel=error >&2); then
		echo "flame-browser: 'npm install' failed in $dir (needs the npm registry once)" >&2
		exit 2
	fi
	rmdir "$dir/.install-lock"
	trap - EXIT
fi
CHROMIUM=$chrome exec node "$dir/browser.js" "$@"
