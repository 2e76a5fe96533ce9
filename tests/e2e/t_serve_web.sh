#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt serve's web page in headless Chromium (serve-web/web.js, over the
# DevTools protocol with flame/'s pinned chrome-remote-interface): the token
# asked for, profiles listed and selected, the flame graph shown, a frame
# clicked to zoom, a search, the top table, a diff of two selections, and no
# request that leaves the server.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
SERVE_LIFETIME=200
e2e=$(cd "$(dirname "$0")" && pwd)
cd "$T"
chrome=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$chrome" ] || { fail "chromium missing: install the Debian package 'chromium' (scripts/setup.sh --test)"; finish; }
. "$e2e/npm-once.sh"
npm_once serve-web "$e2e/flame" chrome-remote-interface || { fail "node and chrome-remote-interface"; finish; }

D=$T/store
ADMIN=$("$ZT" serve token create --scope admin --data-dir "$D" 2> tok.err)
"$ZT" record -q -g -o a.data -- "$WL/tree" 1 > /dev/null 2> rec.err
"$ZT" record -q -g -o b.data -- "$WL/tree" 1 > /dev/null 2>> rec.err
"$ZT" symbols extract "$WL/tree" -o syms > /dev/null 2> syms.err
serve_start "$D" || { fail "zt serve starts"; finish; }
for f in a.data b.data; do
	TOKEN=$ADMIN api POST /api/v1/profiles --data-binary "@$f" > /dev/null
	check "push $f: 201" [ "$(code)" = 201 ]
done
g=$(ls syms/*.gsym | head -1)
load=$(readelf -lW "$WL/tree" | awk '$1 == "LOAD" { f = ""; for (i = 7; i < NF; i++) f = f $i;
	if (f ~ /E/) { o = $2; v = $3; n = $5; sub(/^0x/, "", o); sub(/^0x/, "", v); sub(/^0x/, "", n);
		printf "%s%s:%s:%s", sep, o, v, n; sep = "," } }')
TOKEN=$ADMIN api PUT "/api/v1/symbols/$(basename "$g" .gsym)" --data-binary "@$g" \
	-H 'X-ZT-Symbol-Quality: full' -H "X-ZT-Symbol-Load: $load" > /dev/null
check "the workload's symbols uploaded" [ "$(code)" = 201 ]

NODE_PATH=$e2e/flame/node_modules CHROMIUM=$chrome timeout 120 node "$e2e/serve-web/web.js" \
	"$SERVE_URL/" "$ADMIN" tree_a 'leaf_' shot.png > web.json 2> web.err
check "the browser session ran" [ $? -eq 0 ]
[ -s web.err ] && sed 's/^/  | /' web.err
j() { node -e "const o = JSON.parse(require('fs').readFileSync('web.json')); console.log(JSON.stringify(o$1))"; }
if [ -s web.json ]; then
	check "the page asked for a token and kept it" [ "$(j .tokenKept)" = true ]
	check "two profiles listed" [ "$(j .rows)" = 2 ]
	check "the flame graph of the selection is shown ($(j .frames) frames)" [ "$(j .frames)" -gt 5 ]
	check "the top table names the workload's functions" [ "$(j .topHasFrame)" = true ]
	check "... with tree_a's source line ($(j .topSource))" grep -qE '^"tree\.c:[0-9]+"$' <<< "$(j .topSource)"
	check "a click on tree_a zooms it to the full width ($(j .before) -> $(j .after))" \
		awk -v b="$(j .before)" -v a="$(j .after)" 'BEGIN { exit !(a > b * 1.5) }'
	check "reset zoom restores it" [ "$(j .reset)" = "$(j .before)" ]
	check "search highlights frames ($(j .matches))" [ "$(j .matches)" -gt 0 ]
	check "diff enabled once A and B are marked" [ "$(j .diffEnabled)" = true ]
	check "the diff of two selections is shown ($(j .diffFrames) frames)" [ "$(j .diffFrames)" -gt 5 ]
	check "no request left the server" [ "$(j .foreign)" = '[]' ]
fi
serve_stop
finish
