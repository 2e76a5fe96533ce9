#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt serve's web page in headless Chromium (serve-web/web.js, over the
# DevTools protocol with flame/'s pinned chrome-remote-interface), used as a
# Pyroscope user would: real recordings of two event types (cpu-clock and
# page-faults) with labels env=prod/env=dev pushed to a real server; the
# token asked once a session; the type picker and the label-matcher bar with
# completion; the timeline and its brush; table, flame graph, icicle,
# sandwich and source views, their names and numbers against the API's
# answers; the URL opened again and in a second tab; the profile list a
# page at a time; a diff of two named selections; no request that leaves the
# server. Screenshots of each view in $T/shots (and $ZT_E2E_ARTIFACTS).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
SERVE_LIFETIME=300
e2e=$(cd "$(dirname "$0")" && pwd)
cd "$T"
chrome=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$chrome" ] || { fail "chromium missing: install the Debian package 'chromium' (scripts/setup.sh --test)"; finish; }
. "$e2e/npm-once.sh"
npm_once serve-web "$e2e/flame" chrome-remote-interface || { fail "node and chrome-remote-interface"; finish; }

D=$T/store
ADMIN=$("$ZT" serve token create --scope admin --data-dir "$D" 2> tok.err)
# four cpu-clock profiles (two commands, env=prod and env=dev) and one of
# page faults, two recordings at a time
rec() { "$ZT" record -q -g "$@" > /dev/null 2>> rec.err; }
rec -o p1.data -- "$WL/tree" 1 & rec -o p2.data -- "$WL/tree" 1; wait
rec -o p3.data -- "$WL/hot" hot 1 & rec -o p4.data -- "$WL/tree" 1; wait
rec -e page-faults -c 1 -o pf.data -- "$WL/hot" hot 1
check "five recordings" all "[ -s p1.data ]" "[ -s p2.data ]" "[ -s p3.data ]" "[ -s p4.data ]" "[ -s pf.data ]"
# a second project, for project= in the page's URL
"$ZT" serve project create team1 --data-dir "$D" > /dev/null 2>> tok.err
serve_start "$D" || { fail "zt serve starts"; finish; }
for f in p1:prod p2:dev p3:prod p4:prod pf:prod; do
	TOKEN=$ADMIN api POST "/api/v1/profiles?label=env=${f#*:}" --data-binary "@${f%:*}.data" > /dev/null
	check "push ${f%:*}.data with env=${f#*:}: 201" [ "$(code)" = 201 ]
done
TOKEN=$ADMIN api POST "/api/v1/profiles?project=team1&label=env=prod" --data-binary @pf.data > /dev/null
check "push pf.data into project team1 too ($(code))" [ "$(code)" = 201 -o "$(code)" = 200 ]
# tree with its source files (the source view's text), hot without
"$ZT" symbols upload --server "$SERVE_URL" --token "$ADMIN" -q --with-debuginfo "$WL/tree" > up.out 2> up.err
check "tree's symbols and sources uploaded" [ $? -eq 0 ]
"$ZT" symbols upload --server "$SERVE_URL" --token "$ADMIN" -q "$WL/hot" >> up.out 2>> up.err
check "hot's symbols uploaded" [ $? -eq 0 ]

mkdir -p shots
NODE_PATH=$e2e/flame/node_modules CHROMIUM=$chrome timeout 170 node "$e2e/serve-web/web.js" \
	"$SERVE_URL" "$ADMIN" "$T/shots" > web.tsv 2> web.err
rc=$?
check "the browser session ran to its end (rc $rc)" [ $rc -eq 0 ]
[ -s web.err ] && sed 's/^/  | /' web.err
# web.js's own checks, a line each: ok|FAIL|skip TAB what
while IFS=$'\t' read -r st what; do
	case $st in
	ok) ok "$what" ;;
	skip) skip "$what" ;;
	*) fail "$what" ;;
	esac
done < web.tsv
check "web.js checked something ($(wc -l < web.tsv) checks)" [ "$(wc -l < web.tsv)" -gt 40 ]
n=$(ls shots/*.png 2> /dev/null | wc -l)
check "screenshots of the views ($n)" [ "$n" -ge 10 ]
if [ "$n" -gt 0 ]; then
	a=${ZT_E2E_ARTIFACTS:-/tmp/zt-e2e-artifacts}/serve-web
	mkdir -p "$a" && cp shots/*.png "$a/" 2> /dev/null && echo "  screenshots: $T/shots, $a"
fi
serve_stop
finish
