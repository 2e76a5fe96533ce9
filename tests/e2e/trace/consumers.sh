#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Open a chrome-trace JSON in real consumers: installs the pinned packages
# on first use (needs the npm registry once, then works offline).
#   consumers.sh engine TRACE.json          Chrome DevTools' trace engine (engine.mjs)
#   consumers.sh speedscope TRACE.json PNG  speedscope in headless Chromium (speedscope.js)
# Exit 2: node, npm or chromium missing.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/../npm-once.sh"
npm_once trace-consumers "$dir" @paulirish/trace_engine || exit 2
what=$1
shift
case "$what" in
engine) exec node "$dir/engine.mjs" "$@" ;;
speedscope)
	chrome=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
	if [ -z "$chrome" ]; then
		echo "trace-consumers: chromium not found: install the Debian package 'chromium' (scripts/setup.sh --test)" >&2
		exit 2
	fi
	CHROMIUM=$chrome exec node "$dir/speedscope.js" "$@" ;;
*) echo "usage: consumers.sh engine|speedscope TRACE.json [PNG]" >&2; exit 2 ;;
esac
