#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt serve's HTTP API end to end: tokens and scopes, bad input (each gets the
# right 4xx and nothing is stored), a slow client, a real recording ingested
# and queried (list, top, folded, flame, pprof, diff), /healthz, /metrics,
# the access log, SIGTERM, TLS with a self-signed certificate, and the
# refusal of a non-loopback bind without tokens. Servers listen on 127.0.0.1.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
SERVE_LIFETIME=240
cd "$T"
D=$T/store

# number of stored recordings on disk
stored() { find "$D/profiles" -type f -name '*.zt' 2> /dev/null | wc -l; }
tmpfiles() { find "$D/tmp" -type f 2> /dev/null | wc -l; }

# ---- a non-loopback bind without tokens is refused --------------------------
timeout 20 "$ZT" serve --listen 0.0.0.0:0 --data-dir "$D" > nl.out 2> nl.err
check "non-loopback bind without tokens: refused" [ $? -ne 0 ]
check "... saying to create a token first" grep -q "create one first" nl.err
check "... prefixed 'zt serve:'" grep -q "^zt serve: " nl.err

# ---- tokens ---------------------------------------------------------------------
PUSH=$("$ZT" serve token create --scope push --name pusher --data-dir "$D" 2> tok.err)
READ=$("$ZT" serve token create --scope read --name reader --data-dir "$D" 2>> tok.err)
ADMIN=$("$ZT" serve token create --scope admin --name boss --data-dir "$D" 2>> tok.err)
check "token create prints 64 hex digits" bash -c "[[ '$PUSH' =~ ^[0-9a-f]{64}$ ]]"
check "tokens differ" [ "$PUSH" != "$READ" ]
"$ZT" serve token list --data-dir "$D" > toklist.out 2>&1
check "token list names them" bash -c "grep -q pusher toklist.out && grep -q reader toklist.out"
check "token list never shows a token" bash -c "! grep -q '$PUSH' toklist.out"
"$ZT" serve token create --scope bogus --data-dir "$D" > /dev/null 2> bad.err
check "a bad scope: usage error 129" [ $? -eq 129 ]
REVOKED=$("$ZT" serve token create --scope admin --name gone --data-dir "$D" 2>> tok.err)
"$ZT" serve token revoke gone --data-dir "$D" 2>> tok.err
check "token revoke by name" [ $? -eq 0 ]

# ---- a recording -------------------------------------------------------------------
"$ZT" record -q -g -o tree.data -- "$WL/tree" 1 > rec.out 2> rec.err
check "record the tree workload" [ -s tree.data ]
"$ZT" record -q -g -o tree2.data -- "$WL/tree" 1 > rec.out 2>> rec.err

serve_start "$D" --timeout 3 || { fail "zt serve starts"; finish; }
api GET /healthz > h.out
check "/healthz: 200 ok" bash -c "[ $(code) = 200 ] && grep -qx ok h.out"
api GET / > page.html
check "/: the page, open" bash -c "[ $(code) = 200 ] && grep -q '<title>zt serve</title>' page.html"
check "the page loads nothing from elsewhere" bash -c "! grep -qiE '(src|href)=\"?(https?:)?//' page.html"

# ---- tokens and scopes: nothing stored ---------------------------------------
post() { # post TOKEN FILE [curl args...]: the code
	local tok=$1 f=$2
	shift 2
	TOKEN=$tok api POST "/api/v1/profiles" --data-binary "@$f" \
		-H 'Content-Type: application/octet-stream' "$@" > post.out
	code
}
check "push without a token: 401" [ "$(TOKEN= post "" tree.data)" = 401 ]
check "... with WWW-Authenticate: Bearer" \
	bash -c "curl -s -D - -o /dev/null -X POST '$SERVE_URL/api/v1/profiles' | grep -qi '^WWW-Authenticate: Bearer'"
check "push with a wrong token: 401" [ "$(post 0000 tree.data)" = 401 ]
check "push with a revoked token: 401" [ "$(post "$REVOKED" tree.data)" = 401 ]
check "push with a read token: 403" [ "$(post "$READ" tree.data)" = 403 ]
check "the errors are JSON" grep -q '^{"error":"' post.out
TOKEN= api GET /api/v1/profiles > /dev/null
check "list without a token: 401" [ "$(code)" = 401 ]
TOKEN=$PUSH api GET /api/v1/profiles > /dev/null
check "list with a push token: 403" [ "$(code)" = 403 ]
TOKEN= api GET /metrics > /dev/null
check "metrics without a token: 401" [ "$(code)" = 401 ]
check "nothing stored after refused pushes" [ "$(stored)" -eq 0 ]

# ---- bad input: nothing stored --------------------------------------------------------
size=$(stat -c %s tree.data)
head -c $((size / 2)) tree.data > trunc.data
check "truncated recording: 400" [ "$(post "$PUSH" trunc.data)" = 400 ]
cp tree.data corrupt.data
printf '\xde\xad\xbe\xef\xde\xad\xbe\xef' | dd of=corrupt.data bs=1 seek=$((size / 2)) conv=notrunc 2> /dev/null
check "corrupt recording: 400" [ "$(post "$PUSH" corrupt.data)" = 400 ]
head -c 4096 /bin/true > elf.data
check "wrong magic: 415" [ "$(post "$PUSH" elf.data)" = 415 ]
check "... with a reason" grep -q '"error":"..' post.out
: > empty.data
c=$(post "$PUSH" empty.data)
check "empty body: 400 or 415 ($c)" bash -c "[ $c = 400 ] || [ $c = 415 ]"
check "unknown Content-Encoding: 415" [ "$(post "$PUSH" tree.data -H 'Content-Encoding: br')" = 415 ]
check "bad zstd content: 400" [ "$(post "$PUSH" tree.data -H 'Content-Encoding: zstd')" = 400 ]
check "bad gzip content: 400" [ "$(post "$PUSH" tree.data -H 'Content-Encoding: gzip')" = 400 ]
# a huge declared size: refused from the headers, before any byte of body
port=${SERVE_URL##*:}
exec 3<> "/dev/tcp/127.0.0.1/$port"
printf 'POST /api/v1/profiles HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 99999999999999\r\n\r\n' "$PUSH" >&3
timeout 5 head -1 <&3 > huge.out
exec 3<&-
check "huge declared Content-Length: 413 before the body" grep -q '^HTTP/1.1 413' huge.out
TOKEN=$PUSH api POST '/api/v1/profiles?label=..%2F..%2Fetc=x' --data-binary @tree.data > /dev/null
check "path tricks in a label key: 400" [ "$(code)" = 400 ]
TOKEN=$PUSH api POST '/api/v1/profiles?label=k=a%0Ab' --data-binary @tree.data > /dev/null
check "control characters in a label value: 400" [ "$(code)" = 400 ]
TOKEN=$READ api GET '/api/v1/profiles/..%2F..%2F..%2Fetc%2Fpasswd' > /dev/null
check "path tricks in a profile id: 400" [ "$(code)" = 400 ]
TOKEN=$READ api GET '/api/v1/symbols/..%2Fzt.db' > /dev/null
check "path tricks in a symbol id: 400" [ "$(code)" = 400 ]
TOKEN=$READ api GET '/api/v1/../../etc/passwd' --path-as-is > /dev/null
check "dot segments in the path: 400" [ "$(code)" = 400 ]
TOKEN=$READ api GET '/api/v1/nothing' > /dev/null
check "unknown route: 404" [ "$(code)" = 404 ]
TOKEN=$READ api PUT '/api/v1/top' > /dev/null
check "wrong method: 405" [ "$(code)" = 405 ]
check "nothing stored after bad input" [ "$(stored)" -eq 0 ]
check "no upload left in tmp/" [ "$(tmpfiles)" -eq 0 ]

# ---- a slow client: the connection is closed after --timeout --------------------
exec 3<> "/dev/tcp/127.0.0.1/$port"
printf 'POST /api/v1/profiles HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 100000\r\n\r\nZTDATA' "$PUSH" >&3
start=$(date +%s)
timeout 15 cat <&3 > slow.out
elapsed=$(( $(date +%s) - start ))
exec 3<&-
check "a slow client is dropped after the timeout (${elapsed}s)" [ "$elapsed" -le 10 ]
check "... and its partial upload is not stored" [ "$(stored)" -eq 0 ]
sleep 0.5
check "... nor left in tmp/" [ "$(tmpfiles)" -eq 0 ]

# ---- ingest and queries ------------------------------------------------------------------
TOKEN=$PUSH api POST '/api/v1/profiles?label=branch=main&label=ci=1' --data-binary @tree.data > post.out
c=$(code)
check "push a recording: 201 ($c)" [ "$c" = 201 ]
check "... answered stored:true" grep -q '"stored":true' post.out
id=$(sed -n 's/.*"id":"\([0-9a-f]\{64\}\)".*/\1/p' post.out)
check "... with a sha256 id" [ ${#id} -eq 64 ]
check "... stored on disk" [ "$(stored)" -eq 1 ]
TOKEN=$PUSH api POST '/api/v1/profiles' --data-binary @tree.data > post2.out
check "the same recording again: 200 stored:false" bash -c "[ $(code) = 200 ] && grep -q '\"stored\":false' post2.out"
if command -v zstd > /dev/null; then
	zstd -q -c tree2.data > tree2.zst
	TOKEN=$PUSH api POST '/api/v1/profiles?label=branch=dev' --data-binary @tree2.zst \
		-H 'Content-Encoding: zstd' > post3.out
	check "a zstd-encoded push: 201" [ "$(code)" = 201 ]
else
	gzip -c tree2.data > tree2.gz
	TOKEN=$PUSH api POST '/api/v1/profiles?label=branch=dev' --data-binary @tree2.gz \
		-H 'Content-Encoding: gzip' > post3.out
	check "a gzip-encoded push: 201" [ "$(code)" = 201 ]
fi
id2=$(sed -n 's/.*"id":"\([0-9a-f]\{64\}\)".*/\1/p' post3.out)
check "two profiles stored" [ "$(stored)" -eq 2 ]

# symbols for the workload, as zt push would send them: then the queries name functions
"$ZT" symbols extract "$WL/tree" -o syms > syms.out 2> syms.err
g=$(ls syms/*.gsym 2> /dev/null | head -1)
bid=$(basename "${g:-none}" .gsym)
load=$(readelf -lW "$WL/tree" | awk '$1 == "LOAD" { f = ""; for (i = 7; i < NF; i++) f = f $i;
	if (f ~ /E/) { o = $2; v = $3; n = $5; sub(/^0x/, "", o); sub(/^0x/, "", v); sub(/^0x/, "", n);
		printf "%s%s:%s:%s", sep, o, v, n; sep = "," } }')
printf '%s\n' "$bid" > ids.txt
TOKEN=$PUSH api POST /api/v1/symbols/missing --data-binary @ids.txt > missing.txt
check "symbols/missing: the workload's build id is missing" bash -c "[ $(code) = 200 ] && grep -qx '$bid' missing.txt"
TOKEN=$PUSH api PUT "/api/v1/symbols/$bid" --data-binary "@$g" -H 'X-ZT-Symbol-Quality: full' \
	-H "X-ZT-Symbol-Load: $load" > /dev/null
check "PUT symbols with a push token, without If-None-Match: 403" [ "$(code)" = 403 ]
TOKEN=$PUSH api PUT "/api/v1/symbols/$bid" --data-binary "@$g" -H 'If-None-Match: *' \
	-H 'X-ZT-Symbol-Quality: full' -H "X-ZT-Symbol-Load: $load" > put.out
check "PUT symbols (push, If-None-Match: *): 201" [ "$(code)" = 201 ]
TOKEN=$PUSH api PUT "/api/v1/symbols/$bid" --data-binary "@$g" -H 'If-None-Match: *' \
	-H 'X-ZT-Symbol-Quality: full' -H "X-ZT-Symbol-Load: $load" > /dev/null
check "PUT symbols again with If-None-Match: *: 412" [ "$(code)" = 412 ]
TOKEN=$PUSH api POST /api/v1/symbols/missing --data-binary @ids.txt > missing.txt
check "symbols/missing: no longer missing" bash -c "[ $(code) = 200 ] && ! grep -q '$bid' missing.txt"
TOKEN=$READ api HEAD "/api/v1/symbols/$bid" -I > /dev/null
check "HEAD symbols: 200" [ "$(code)" = 200 ]

TOKEN=$READ api GET /api/v1/profiles > list.json
check "list: 200" [ "$(code)" = 200 ]
check "list: both profiles" bash -c "grep -q '$id' list.json && grep -q '$id2' list.json"
check "list: the command is tree" grep -q '"command":"tree"' list.json
TOKEN=$READ api GET '/api/v1/profiles?label=branch=dev' > list2.json
check "list filtered by label: only the second" bash -c "grep -q '$id2' list2.json && ! grep -q '$id' list2.json"
TOKEN=$READ api GET "/api/v1/profiles/$id" > one.json
check "one profile: 200 with its labels" bash -c "[ $(code) = 200 ] && grep -q '\"ci\":\"1\"' one.json"
# every function (a loaded machine gives the workload few samples: kernel
# frames of its forks and page faults may outnumber its own in the top 20)
TOKEN=$READ api GET "/api/v1/top?id=$id&limit=100000" > top.json
check "top: 200" [ "$(code)" = 200 ]
check "top: the workload's functions" bash -c "grep -q 'leaf_x' top.json && grep -q 'tree_a' top.json"
TOKEN=$READ api GET "/api/v1/folded?id=$id" > folded.txt
check "folded: stacks with counts" bash -c "[ $(code) = 200 ] && grep -qE '^tree.*leaf_x [0-9]+$' folded.txt"
TOKEN=$READ api GET "/api/v1/flame?id=$id&id=$id2&title=both" > flame.svg
check "flame: an SVG" bash -c "[ $(code) = 200 ] && grep -q '<svg' flame.svg && grep -q 'leaf_x' flame.svg"
TOKEN=$READ api GET "/api/v1/pprof?id=$id" > p.pb.gz
check "pprof: gzipped" bash -c "[ $(code) = 200 ] && [ \"\$(head -c 2 p.pb.gz | od -An -tx1 | tr -d ' ')\" = 1f8b ]"
TOKEN=$READ api GET "/api/v1/diff?a.id=$id&b.id=$id2" > diff.svg
check "diff: an SVG" bash -c "[ $(code) = 200 ] && grep -q '<svg' diff.svg"
TOKEN=$READ api GET "/api/v1/top?id=$id&sort=nonsense" > /dev/null
check "top with a bad sort: 400" [ "$(code)" = 400 ]

# ---- metrics and the log ---------------------------------------------------------------
TOKEN=$READ api GET /metrics > metrics.txt
check "metrics: 200" [ "$(code)" = 200 ]
check "metrics: requests by code" grep -qE '^zt_requests_total\{code="201"\} [0-9]+' metrics.txt
check "metrics: 401s counted" grep -qE '^zt_requests_total\{code="401"\} [0-9]+' metrics.txt
check "metrics: profiles" grep -qE '^zt_profiles 2$' metrics.txt
check "metrics: bytes in" grep -qE '^zt_request_bytes_total [1-9]' metrics.txt
check "metrics: ingest errors" grep -qE '^zt_ingest_errors_total [1-9]' metrics.txt
check "access log: one line per request" grep -qE 'POST /api/v1/profiles 201 in=[0-9]+ out=[0-9]+ [0-9.]+ms' "$T/serve.err"
check "access log: no query string, no token" bash -c "! grep -qE 'branch=|$PUSH' '$T/serve.err'"

# ---- delete -----------------------------------------------------------------------------
TOKEN=$PUSH api DELETE "/api/v1/profiles/$id2" > /dev/null
check "delete with a push token: 403" [ "$(code)" = 403 ]
TOKEN=$ADMIN api DELETE "/api/v1/profiles/$id2" > /dev/null
check "delete with an admin token: 204" [ "$(code)" = 204 ]
TOKEN=$ADMIN api DELETE "/api/v1/profiles/$id2" > /dev/null
check "delete again: 404" [ "$(code)" = 404 ]

# ---- SIGTERM ------------------------------------------------------------------------------
serve_stop
check "SIGTERM: a clean stop (exit 0)" [ $? -eq 0 ]
check "... saying so" grep -q "stopping" "$T/serve.err"

# ---- public reads --------------------------------------------------------------------------
serve_start "$D" --public-read || fail "zt serve --public-read starts"
TOKEN= api GET /api/v1/profiles > pub.json
check "--public-read: list without a token" bash -c "[ $(code) = 200 ] && grep -q '$id' pub.json"
TOKEN= api POST /api/v1/profiles --data-binary @tree2.data > /dev/null
check "--public-read: a push still needs a token" [ "$(code)" = 401 ]
serve_stop

# ---- TLS ----------------------------------------------------------------------------------
if command -v openssl > /dev/null; then
	openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 \
		-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 > /dev/null 2>&1
	: > "$T/serve.err"
	SERVE_CACERT=cert.pem serve_start "$D" --tls-cert cert.pem --tls-key key.pem ||
		fail "zt serve with --tls-cert starts"
	check "TLS: /healthz over https" bash -c "curl -sf --cacert cert.pem '$SERVE_URL/healthz' | grep -qx ok"
	c=$(curl -s --cacert cert.pem -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $READ" \
		"$SERVE_URL/api/v1/profiles")
	check "TLS: an authorized list" [ "$c" = 200 ]
	c=$(curl -s -o /dev/null -w '%{http_code}' "${SERVE_URL/https:/http:}/healthz")
	check "TLS: plain HTTP is not answered" [ "$c" != 200 ]
	serve_stop
	rc=$?
	check "TLS server: a clean stop" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || tail -5 "$T/serve.err"
	echo "garbage" > bad.pem
	timeout 20 "$ZT" serve --listen 127.0.0.1:0 --data-dir "$D" --tls-cert bad.pem --tls-key key.pem 2> badtls.err
	check "a certificate that is not PEM: refused" bash -c "[ $? -ne 0 ] && grep -q 'not PEM' badtls.err"
else
	fail "openssl is missing: install the Debian package 'openssl' (scripts/setup.sh --test)"
fi

# ---- a non-loopback bind with a token: accepted, with a warning ---------------------
timeout 3 "$ZT" serve --listen 0.0.0.0:0 --data-dir "$D" > nl2.out 2> nl2.err
check "non-loopback bind with a token: serves (until timeout)" [ $? -eq 124 ]
check "... warning about plain HTTP" grep -q "clear text" nl2.err
finish
