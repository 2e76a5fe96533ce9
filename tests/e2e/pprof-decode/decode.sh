#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Decode a pprof file with the independent decoder (decode.js, pprof-format):
# installs the pinned package on first use (needs the npm registry once,
# then works offline). Usage: decode.sh FILE   Exit 2: node or npm missing.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/../npm-once.sh"
npm_once pprof-decode "$dir" pprof-format || exit 2
exec node "$dir/decode.js" "$@"
