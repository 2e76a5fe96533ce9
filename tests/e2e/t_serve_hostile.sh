#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt serve against a hostile client or local user (issue 31):
# - symbol sources and debug files only for build ids the store has an
#   executable or symbols for (409 otherwise, a 100 MB zstd bomb refused
#   before it is read), within --max-source-size, --max-sources,
#   --max-symbols-per-id and --max-symbol-store (413 naming the option),
#   nothing left behind in tmp/;
# - token names: printable, at most 64 bytes, unique; a name cannot forge
#   a row of 'token list'; 'token revoke' refuses a name several tokens
#   have (old catalogues may hold such) and takes an id prefix;
# - the catalogue and everything else under --data-dir is 0600 (0700
#   folders), in a data directory made 0755, and an old 0644 catalogue is
#   made 0600 at start;
# - a refused pprof names the field and the value.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
SERVE_LIFETIME=240
cd "$T"

# mkpprof OUT VALUES...: a pprof (2 sample types, samples/count cpu/nanoseconds)
# with one sample per VALUES ("4,4000"; any count of values, negative ones too)
mkpprof() {
	python3 - "$@" << 'EOF'
import sys
def uv(n):
    n &= (1 << 64) - 1
    out = b''
    while True:
        b = n & 0x7f
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])
def fld(num, payload): # length-delimited
    return uv(num << 3 | 2) + uv(len(payload)) + payload
def vint(num, v):
    return uv(num << 3) + uv(v)
strs = [b'', b'samples', b'count', b'cpu', b'nanoseconds', b'main', b'work']
p = fld(1, vint(1, 1) + vint(2, 2)) + fld(1, vint(1, 3) + vint(2, 4))
for vals in sys.argv[2:]:
    vs = [int(x) for x in vals.split(',')]
    p += fld(2, fld(1, uv(1) + uv(2)) + fld(2, b''.join(uv(v) for v in vs)))
p += fld(4, vint(1, 1) + fld(4, vint(1, 2))) + fld(4, vint(1, 2) + fld(4, vint(1, 1)))
p += fld(5, vint(1, 1) + vint(2, 5)) + fld(5, vint(1, 2) + vint(2, 6))
for s in strs:
    p += fld(6, s)
open(sys.argv[1], 'wb').write(p)
EOF
}

# ---- token names ------------------------------------------------------------------
D=$T/tok
tok() { "$ZT" serve token "$@" --data-dir "$D"; }
tok create --scope read --name $'evil\nFAKE 12345678 admin' > t1.out 2> t1.err
check "a name with a newline: refused (129)" [ $? -eq 129 ]
check "... saying which characters a name may have" grep -q "letters, digits" t1.err
check "... no token made" [ ! -s t1.out ]
tok create --scope read --name $'esc\e[31mred' > t2.out 2> t2.err
check "a name with ESC: refused (129)" [ $? -eq 129 ]
check "... no ESC echoed" bash -c "! grep -q $'\e' t2.err"
tok create --scope read --name "$(printf 'n%.0s' $(seq 5000))" > t3.out 2> t3.err
check "a 5000-byte name: refused (129)" [ $? -eq 129 ]
check "... saying the bound (64 bytes)" grep -q "64 bytes" t3.err
tok create --scope read --name '' > t4.out 2> t4.err
check "an empty name: refused (129)" [ $? -eq 129 ]
DUP=$(tok create --scope read --name dup 2> t5.err)
check "a name: created" [ ${#DUP} -eq 64 ]
tok create --scope admin --name dup > t6.out 2> t6.err
check "the same name again: refused (1)" [ $? -eq 1 ]
check "... saying a token has that name" grep -q "a token named 'dup' exists" t6.err
check "... no token made" [ ! -s t6.out ]
tok create --scope push --name 'ci-runner_2.x@host:7+1' > /dev/null 2> t7.err
check "a name of letters, digits and . _ - @ : +: created" [ $? -eq 0 ]
# what an older zt let in: a second 'dup' (an admin token) and a name with a
# newline and ESC, written into the catalogue as it would have
python3 - "$D/zt.db" << 'EOF'
import sqlite3, sys, os
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO tokens(hash, name, scopes, created) VALUES(?,?,?,?)",
           (bytes.fromhex('ab' * 32), 'dup', 8, 1700000000))
db.execute("INSERT INTO tokens(hash, name, scopes, created) VALUES(?,?,?,?)",
           (bytes.fromhex('cd' * 32), "old\nFAKE 12345678 admin\x1b[2J", 4, 1700000001))
db.commit()
EOF
tok list > list1.out 2> list1.err
check "token list: one line a token (4)" [ "$(wc -l < list1.out)" -eq 4 ]
check "... a name cannot forge a row" bash -c "! grep -q '^FAKE' list1.out"
check "... control characters and blanks shown escaped" grep -qF 'old\nFAKE\x2012345678\x20admin\x1b[2J' list1.out
check "... both tokens named dup" [ "$(grep -c ' dup ' list1.out)" -eq 2 ]
tok revoke dup > r1.out 2> r1.err
check "revoke a name two tokens have: refused (1)" [ $? -eq 1 ]
h8=$(printf %s "$DUP" | sha256sum | cut -c1-8)
check "... listing both" bash -c "grep -q abababab r1.err && grep -q '$h8' r1.err"
check "... saying to give the id" grep -q "id" r1.err
check "... nothing revoked" [ "$(tok list | grep -c ' dup ')" -eq 2 ]
tok revoke abababab > r2.out 2> r2.err
check "revoke by id prefix: 0" [ $? -eq 0 ]
check "... that one gone, the other dup there" bash -c "[ \$(\"$ZT\" serve token list --data-dir '$D' | grep -c ' dup ') -eq 1 ] &&
	! \"$ZT\" serve token list --data-dir '$D' | grep -q abababab"
tok revoke dup > r3.out 2> r3.err
check "revoke the name one token has now: 0" [ $? -eq 0 ]
tok revoke nosuch > r4.out 2> r4.err
check "revoke an unknown name: 1" [ $? -eq 1 ]

# ---- the data directory's modes -------------------------------------------------------
D=$T/modes
mkdir -m 0755 "$D"
PUSH=$("$ZT" serve token create --scope push --data-dir "$D" 2> m1.err)
check "zt.db made by token create: 0600" [ "$(stat -c %a "$D/zt.db")" = 600 ]
chmod 0644 "$D/zt.db" # as an older zt left them
chmod 0755 "$D/tmp" "$D/symbols" "$D/symbols/gsym" "$D/profiles"
mkpprof ok.pb 4,4000 1,1000
serve_start "$D" || { fail "zt serve starts"; finish; }
TOKEN=$PUSH api POST /api/v1/profiles --data-binary @ok.pb > p1.json
check "a pprof pushed: 201" [ "$(code)" = 201 ]
check "zt.db: 0600" [ "$(stat -c %a "$D/zt.db")" = 600 ]
check "zt.db-wal: 0600" [ "$(stat -c %a "$D/zt.db-wal")" = 600 ]
check "zt.db-shm: 0600" [ "$(stat -c %a "$D/zt.db-shm")" = 600 ]
loose=$(find "$D" -mindepth 1 \( -type f -perm /077 -o -type d -perm /077 \) -printf '%m %P\n')
check "nothing under the data directory that others may read${loose:+: $loose}" [ -z "$loose" ]

# ---- pprof refusals name the field and the value --------------------------------------
refused() { # refused FILE TEXT: 400 and the text in the answer
	TOKEN=$PUSH api POST /api/v1/profiles --data-binary "@$1" > "$1.json"
	[ "$(code)" = 400 ] && grep -qF -- "$2" "$1.json"
}
mkpprof neg.pb 4,-1
check "a negative sample value: 400 naming it" refused neg.pb 'sample[0].value[1] is -1'
mkpprof max.pb 9223372036854775807,1 1,1
check "values adding up past 2^63-1: 400 naming them" refused max.pb \
	"sample[1].value[0] is 1: the samples' value[0] add up past 9223372036854775807"
mkpprof surplus.pb 4,4000,7
check "a surplus sample value: 400 naming it" refused surplus.pb 'sample[0] has 3 values for 2 sample types'
serve_stop

# ---- symbol files: only for a known build id, within limits ----------------------------
D=$T/sym
mkdir -p src
printf 'int zt_hostile_fn(int x) { return x * 7; }\nint main(int c, char **v) { (void)v; return zt_hostile_fn(c) == 7 ? 0 : 1; }\n' > src/prog.c
gcc -g -O1 -o prog src/prog.c || { fail "build prog.c"; finish; }
objcopy --only-keep-debug prog prog.debug
BID=$("$ZT" buildid prog | awk '{ print $1; exit }')
"$ZT" symbols extract prog -o gsym > /dev/null 2>&1
check "the program's GSYM" [ -s "gsym/$BID.gsym" ]
UNKNOWN=0123456789abcdef0123456789abcdef01234567
head -c 600 /dev/urandom | base64 > s600.c
head -c 700 /dev/urandom | base64 > s700.c
head -c 900 /dev/urandom | base64 > s900.c
head -c 3000 /dev/urandom | base64 > s3k.c
head -c 100M /dev/zero | zstd -q -c > bomb.zst
gsz=$(stat -c %s "gsym/$BID.gsym")
PUSH=$("$ZT" serve token create --scope push --data-dir "$D" 2> s1.err)
SYMS=$("$ZT" serve token create --scope symbols --data-dir "$D" 2>> s1.err)
READ=$("$ZT" serve token create --scope read --data-dir "$D" 2>> s1.err)
# room for the GSYM and 3 KB: the sources fit, the debug file does not
serve_start "$D" --max-source-size 2K --max-sources 2 --max-symbols-per-id $((gsz + 3072)) ||
	{ fail "zt serve with symbol limits starts"; finish; }
# sput ID KIND-PATH FILE [curl args]: the code (body in $T/body), with the push token
sput() {
	local id=$1 p=$2 f=$3
	shift 3
	curl -s -X PUT -o "$T/body" -w '%{http_code}' -H "Authorization: Bearer $PUSH" \
		-H 'If-None-Match: *' --data-binary "@$f" "$@" "$SERVE_URL/api/v1/symbols/$id$p"
}
stored() { (cd "$D" && find symbols -type f | sort); }
used() { du -sk "$D" | cut -f1; }
before=$(stored)
check "a source of an unknown build id: 409" [ "$(sput $UNKNOWN /source/x.c s600.c)" = 409 ]
check "... saying to upload its symbols or executable first" grep -q "upload its symbols or executable first" body
check "a 100 MB zstd bomb as a source of an unknown id: 409" \
	[ "$(sput $UNKNOWN /source/bomb.c bomb.zst -H 'Content-Encoding: zstd')" = 409 ]
check "a debug file before the program's symbols: 409" [ "$(sput "$BID" /debuginfo prog.debug)" = 409 ]
check "nothing stored by them" [ "$(stored)" = "$before" ]
check "... nothing left in tmp/" [ -z "$(ls -A "$D/tmp")" ]
check "the GSYM: 201" [ "$(sput "$BID" '' "gsym/$BID.gsym")" = 201 ]
check "a source now: 201" [ "$(sput "$BID" /source/a.c s600.c)" = 201 ]
check "a source over --max-source-size: 413" [ "$(sput "$BID" /source/big.c s3k.c)" = 413 ]
check "... naming --max-source-size" grep -q -- "--max-source-size" body
check "the zstd bomb as a source: 413" [ "$(sput "$BID" /source/bomb.c bomb.zst -H 'Content-Encoding: zstd')" = 413 ]
check "... naming --max-source-size" grep -q -- "--max-source-size" body
check "... the store still small ($(used) KB)" [ "$(used)" -lt 2048 ]
check "a second source: 201" [ "$(sput "$BID" /source/b.c s700.c)" = 201 ]
check "a third one, past --max-sources 2: 413" [ "$(sput "$BID" /source/c.c s600.c)" = 413 ]
check "... naming --max-sources" grep -q -- "--max-sources" body
check "a source replaced (symbols token, no If-None-Match): 200" \
	[ "$(curl -s -X PUT -o body -w '%{http_code}' -H "Authorization: Bearer $SYMS" --data-binary @s900.c "$SERVE_URL/api/v1/symbols/$BID/source/a.c")" = 200 ]
check "the debug file, past --max-symbols-per-id: 413" [ "$(sput "$BID" /debuginfo prog.debug)" = 413 ]
check "... naming --max-symbols-per-id" grep -q -- "--max-symbols-per-id" body
check "nothing left in tmp/" [ -z "$(ls -A "$D/tmp")" ]
check "a refused source is not served" \
	[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $READ" "$SERVE_URL/api/v1/symbols/$BID/source/c.c")" = 404 ]
check "... the ones taken are, the replaced one as replaced" \
	bash -c "curl -s -H 'Authorization: Bearer $READ' '$SERVE_URL/api/v1/symbols/$BID/source/a.c' | cmp -s - s900.c &&
		curl -s -H 'Authorization: Bearer $READ' '$SERVE_URL/api/v1/symbols/$BID/source/b.c' | cmp -s - s700.c"
serve_stop

D=$T/sym2
PUSH=$("$ZT" serve token create --scope push --data-dir "$D" 2> s2.err)
serve_start "$D" --max-symbol-store $((gsz / 2)) || { fail "zt serve --max-symbol-store starts"; finish; }
check "a GSYM past --max-symbol-store: 413" [ "$(sput "$BID" '' "gsym/$BID.gsym")" = 413 ]
check "... naming --max-symbol-store" grep -q -- "--max-symbol-store" body
check "... nothing stored" [ -z "$(cd "$D" && find symbols -type f)" ]
serve_stop
finish
