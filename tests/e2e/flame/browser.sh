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
. "$dir/../npm-once.sh"
npm_once flame-browser "$dir" chrome-remote-interface || exit 2
CHROMIUM=$chrome exec node "$dir/browser.js" "$@"
