#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt serve as a symbol server: a gcc -g program's GSYM (zt symbols extract),
# debug file (objcopy --only-keep-debug), executable and one source file
# are uploaded with curl; debuginfod-find gets the same bytes back through
# /buildid/ (with --public-read, and with a token in DEBUGINFOD_URLS);
# If-None-Match: * gives 412 on a re-upload, no header overwrites, a GET
# with the ETag gives 304; wrong tokens give 401/403; bad bodies give 400
# and leave nothing in the store's directory; a debug file or source before
# the id's symbols gives 409.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
SERVE_LIFETIME=240
cd "$T"
command -v debuginfod-find > /dev/null || { fail "debuginfod-find is not installed (scripts/setup.sh --test)"; finish; }
D=$T/data
export HOME=$T/home DEBUGINFOD_CACHE_PATH=$T/dcache
mkdir -p "$HOME" src
unset DEBUGINFOD_URLS

# ---- the program, its debug file and GSYM ----------------------------------------
cat > src/prog.c << 'EOF'
int zt_symserve_fn(int x) { return x * 3 + 1; }
int main(int argc, char **argv) { (void)argv; return zt_symserve_fn(argc) == 4 ? 0 : 1; }
EOF
SRC=$T/src/prog.c
gcc -g -O1 -o prog "$SRC" || { fail "build prog.c"; finish; }
objcopy --only-keep-debug prog prog.debug
objcopy --strip-debug prog prog.nodbg
BID=$("$ZT" buildid prog | awk '{ print $1; exit }')
check "the program has a build id ($BID)" [ ${#BID} -eq 40 ]
"$ZT" symbols extract prog -o gsym > extract.out 2> extract.err
check "zt symbols extract made the GSYM" [ -s "gsym/$BID.gsym" ]
printf 'int main(void) { return 0; }\n' | gcc -g -x c - -o other
OBID=$("$ZT" buildid other | awk '{ print $1; exit }')

SYMS=$("$ZT" serve token create --scope symbols --data-dir "$D" 2> tok.err)
PUSH=$("$ZT" serve token create --scope push --data-dir "$D" 2>> tok.err)
READ=$("$ZT" serve token create --scope read --data-dir "$D" 2>> tok.err)
check "tokens are created" [ ${#SYMS} -ge 32 -a ${#PUSH} -ge 32 -a ${#READ} -ge 32 ]
serve_start "$D" --public-read || { fail "zt serve starts"; finish; }
U=$SERVE_URL/api/v1/symbols/$BID

# put KIND-PATH FILE [curl args]: status code on stdout, body in $T/body
put() {
	local p=$1 f=$2
	shift 2
	curl -s -X PUT -o "$T/body" -w '%{http_code}' --data-binary "@$f" "$@" "$U$p"
}
# the files the store keeps (not tmp/, not the catalogue)
stored() { (cd "$D" && find symbols -type f | sort); }

# ---- a debug file or source needs the id's symbols or executable first ----------
check "a debug file before the id's symbols: 409" [ "$(put /debuginfo prog.debug -H "Authorization: Bearer $SYMS")" = 409 ]
check "... saying what to upload first" grep -q "upload its symbols or executable first" body
check "a source before them: 409" [ "$(put "/source${SRC}" "$SRC" -H "Authorization: Bearer $SYMS")" = 409 ]
check "nothing stored" [ -z "$(stored)" ]
check "GSYM: 201" [ "$(put '' "gsym/$BID.gsym" -H "Authorization: Bearer $SYMS" -H 'X-ZT-Symbol-Quality: full' \
	-H 'X-ZT-Symbol-Load: 1000:1000:2000' -H 'X-ZT-Description: built%20by%20CI' -H 'X-ZT-Symbol-File: prog')" = 201 ]

# ---- refused uploads store nothing ------------------------------------------------
echo 'not an ELF file' > junk
head -c 200 "gsym/$BID.gsym" > trunc.gsym
before=$(stored)
check "not ELF as debuginfo: 400" [ "$(put /debuginfo junk -H "Authorization: Bearer $SYMS")" = 400 ]
check "... saying why" grep -q 'not an ELF file' body
check "another program as debuginfo: 400" [ "$(put /debuginfo other -H "Authorization: Bearer $SYMS")" = 400 ]
check "... its build id named" grep -q "build id is $OBID" body
check "another program as executable: 400" [ "$(put /executable other -H "Authorization: Bearer $SYMS")" = 400 ]
check "no DWARF as debuginfo: 400" [ "$(put /debuginfo prog.nodbg -H "Authorization: Bearer $SYMS")" = 400 ]
check "... saying so" grep -q 'no DWARF' body
check "a truncated GSYM: 400" [ "$(put '' trunc.gsym -H "Authorization: Bearer $SYMS")" = 400 ]
check "a GSYM under another id: 400" \
	[ "$(curl -s -X PUT -o body -w '%{http_code}' -H "Authorization: Bearer $SYMS" --data-binary "@gsym/$BID.gsym" "$SERVE_URL/api/v1/symbols/$OBID")" = 400 ]
check "a source path with ..: 400" \
	[ "$(curl -s --path-as-is -X PUT -o body -w '%{http_code}' -H "Authorization: Bearer $SYMS" --data-binary @"$SRC" "$U/source/tmp/../etc/passwd")" = 400 ]
check "a source path with %2e%2e: 400" [ "$(put /source/tmp/%2e%2e/x "$SRC" -H "Authorization: Bearer $SYMS")" = 400 ]
check "an uppercase id: 400" \
	[ "$(curl -s -X PUT -o body -w '%{http_code}' -H "Authorization: Bearer $SYMS" --data-binary @prog.debug "$SERVE_URL/api/v1/symbols/${BID^^}/debuginfo")" = 400 ]
check "nothing stored by the refused uploads" [ "$(stored)" = "$before" ]
check "... nothing left in tmp/" [ -z "$(ls -A "$D/tmp")" ]

# ---- scopes -------------------------------------------------------------------------
check "no token: 401" [ "$(put /debuginfo prog.debug)" = 401 ]
check "an unknown token: 401" [ "$(put /debuginfo prog.debug -H 'Authorization: Bearer nope')" = 401 ]
check "a read token: 403" [ "$(put /debuginfo prog.debug -H "Authorization: Bearer $READ")" = 403 ]
check "a push token without If-None-Match: *: 403" [ "$(put /debuginfo prog.debug -H "Authorization: Bearer $PUSH")" = 403 ]
check "nothing stored by the refused tokens" [ "$(stored)" = "$before" ]

# ---- uploads --------------------------------------------------------------------------
check "debuginfo (push token, If-None-Match: *): 201" \
	[ "$(put /debuginfo prog.debug -H "Authorization: Bearer $PUSH" -H 'If-None-Match: *')" = 201 ]
check "... {created:true}" grep -q '"created":true' body
check "executable: 201" [ "$(put /executable prog -H "Authorization: Bearer $SYMS")" = 201 ]
check "source: 201" [ "$(put "/source${SRC}" "$SRC" -H "Authorization: Bearer $SYMS")" = 201 ]
check "re-upload with If-None-Match: *: 412" \
	[ "$(put /debuginfo prog.debug -H "Authorization: Bearer $SYMS" -H 'If-None-Match: *')" = 412 ]
check "GSYM re-upload with If-None-Match: *: 412" \
	[ "$(put '' "gsym/$BID.gsym" -H "Authorization: Bearer $PUSH" -H 'If-None-Match: *')" = 412 ]
check "overwrite without it: 200" [ "$(put /debuginfo prog.debug -H "Authorization: Bearer $SYMS")" = 200 ]
check "... {created:false}" grep -q '"created":false' body
check "zstd-encoded upload: 200" [ "$(zstd -q -c prog > prog.zst && put /executable prog.zst -H "Authorization: Bearer $SYMS" -H 'Content-Encoding: zstd')" = 200 ]
check "the store's layout: debuginfo" cmp -s prog.debug "$D/symbols/debuginfo/$BID.debug"
check "... executable" cmp -s prog "$D/symbols/executable/$BID"
check "... source and its path" bash -c "cmp -s '$SRC' '$D'/symbols/source/$BID/\$(printf %s '${SRC#/}' | sha256sum | cut -c1-64) &&
	grep -qx '${SRC#/}' '$D'/symbols/source/$BID/*.path"
check "... the meta keeps description and file" bash -c "grep -qx 'description built%20by%20CI' '$D/symbols/gsym/$BID.meta' &&
	grep -qx 'file prog' '$D/symbols/gsym/$BID.meta'"

# ---- HEAD/GET of the GSYM ---------------------------------------------------------------
curl -s -I "$U" | tr -d '\r' > head.txt
check "HEAD: 200" grep -q '^HTTP/1.1 200' head.txt
check "... ETag the GSYM's sha256" grep -qx "ETag: \"$(sha256sum < "gsym/$BID.gsym" | cut -c1-64)\"" head.txt
check "... X-ZT-Symbol-Quality: full" grep -qx 'X-ZT-Symbol-Quality: full' head.txt
check "... X-ZT-Symbol-Load" grep -qx 'X-ZT-Symbol-Load: 1000:1000:2000' head.txt
check "... X-ZT-Description" grep -qx 'X-ZT-Description: built%20by%20CI' head.txt
check "... X-ZT-Has: gsym,debuginfo,executable" grep -qx 'X-ZT-Has: gsym,debuginfo,executable' head.txt
check "... Content-Length the GSYM's size" grep -qx "Content-Length: $(stat -c %s "gsym/$BID.gsym")" head.txt
etag=$(sed -n 's/^ETag: //p' head.txt)
curl -s -o got.gsym "$U"
check "GET: the GSYM as uploaded" cmp -s got.gsym "gsym/$BID.gsym"
check "GET with If-None-Match: the ETag: 304" [ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$U")" = 304 ]
check "GET with another ETag: 200" [ "$(curl -s -o /dev/null -w '%{http_code}' -H 'If-None-Match: "00"' "$U")" = 200 ]
check "GET debuginfo: the debug file" bash -c "curl -s '$U/debuginfo' | cmp -s - prog.debug"
check "HEAD of a missing id: 404" [ "$(curl -s -I -o /dev/null -w '%{http_code}' "$SERVE_URL/api/v1/symbols/$OBID")" = 404 ]

# ---- debuginfod clients -------------------------------------------------------------------
dfind() { DEBUGINFOD_URLS=$1 debuginfod-find "${@:2}" 2>> dfind.err; }
p=$(dfind "$SERVE_URL" debuginfo "$BID")
check "debuginfod-find debuginfo: the debug file, byte for byte" cmp -s "$p" prog.debug
p=$(dfind "$SERVE_URL" executable "$BID")
check "debuginfod-find executable: the executable" cmp -s "$p" prog
p=$(dfind "$SERVE_URL" source "$BID" "$SRC")
check "debuginfod-find source: the source file" cmp -s "$p" "$SRC"
check "debuginfod-find of an unknown id fails" bash -c "! DEBUGINFOD_URLS='$SERVE_URL' debuginfod-find executable $OBID > /dev/null 2>&1"
h=$(curl -s -I "$SERVE_URL/buildid/$BID/executable" | tr -d '\r')
check "HEAD /buildid/ID/executable: X-DEBUGINFOD-SIZE and Content-Length" \
	bash -c "grep -qx 'X-DEBUGINFOD-SIZE: $(stat -c %s prog)' <<< '$h' && grep -qx 'Content-Length: $(stat -c %s prog)' <<< '$h'"
check "GET /buildid/ID/source with .. (as is): 400" \
	[ "$(curl -s --path-as-is -o /dev/null -w '%{http_code}' "$SERVE_URL/buildid/$BID/source/tmp/../etc/passwd")" = 400 ]
serve_stop

# ---- reads that need a token ----------------------------------------------------------------
rm -rf "$DEBUGINFOD_CACHE_PATH"
serve_start "$D" || { fail "zt serve (no --public-read) starts"; finish; }
check "no token: 401 on /buildid/" [ "$(curl -s -o /dev/null -w '%{http_code}' "$SERVE_URL/buildid/$BID/debuginfo")" = 401 ]
check "a push token: 403 on /buildid/" \
	[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $PUSH" "$SERVE_URL/buildid/$BID/debuginfo")" = 403 ]
check "a read token (Bearer): the debug file" \
	bash -c "curl -s -H 'Authorization: Bearer $READ' '$SERVE_URL/buildid/$BID/debuginfo' | cmp -s - prog.debug"
check "debuginfod-find without the token fails" bash -c "! DEBUGINFOD_URLS='$SERVE_URL' debuginfod-find debuginfo $BID > /dev/null 2>&1"
rm -rf "$DEBUGINFOD_CACHE_PATH" # the failure above is remembered there for 10 minutes
p=$(dfind "http://zt:$READ@${SERVE_URL#http://}" debuginfo "$BID")
check "debuginfod-find with the token in DEBUGINFOD_URLS: the debug file" cmp -s "$p" prog.debug
serve_stop
check "the server stopped cleanly" [ $? -eq 0 ]
finish
