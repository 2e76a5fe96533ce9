#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt push and zt symbols upload to a zt serve over https whose certificate a
# private CA signed (made here with openssl, for 127.0.0.1 as an IP SAN):
# - no CA given: exit 4, saying the certificate could not be verified and
#   how to give the CA; nothing stored;
# - the CA from --cacert, SSL_CERT_FILE, CURL_CA_BUNDLE, SSL_CERT_DIR (a
#   hashed directory) and server.cacert of zt config: stored (exit 0);
# - which wins: --cacert > server.cacert > CURL_CA_BUNDLE > SSL_CERT_FILE;
# - another CA, or the right one for a host name the certificate is not
#   for: exit 4, naming the CA file used; a CA file missing or not PEM:
#   exit 1, named; the server down: exit 4; https to a plain HTTP server:
#   exit 4 (TLS failed);
# - zt symbols upload: the same, with --cacert and SSL_CERT_FILE.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
SERVE_LIFETIME=240
cd "$T"
D=$T/data
# none of the machine's: each case sets its own
unset CURL_CA_BUNDLE SSL_CERT_FILE SSL_CERT_DIR ZT_SERVER ZT_TOKEN
export XDG_CONFIG_HOME="$T/xdg"
command -v openssl > /dev/null ||
	{ fail "openssl is missing: install the Debian package 'openssl' (scripts/setup.sh --test)"; finish; }

# ---- a private CA, a server certificate it signed, and another CA ----------------
ossl() { openssl "$@" > /dev/null 2>> openssl.err; }
ossl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=zt test CA" \
	-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
ossl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj /CN=127.0.0.1
printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
	> srv.ext
ossl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem -days 2 \
	-extfile srv.ext
ossl req -x509 -newkey rsa:2048 -nodes -keyout other.key -out other.pem -days 2 \
	-subj "/CN=zt other CA" -addext basicConstraints=critical,CA:TRUE
mkdir -p cadir && cp ca.pem cadir/ && ossl rehash cadir
echo "not a certificate" > garbage.pem
check "a CA, a server certificate it signed, another CA" \
	all "[ -s ca.pem ] && [ -s srv.pem ] && [ -s other.pem ]" "ls cadir | grep -q '\.0$'"
[ -s srv.pem ] || { cat openssl.err; finish; }

PUSH=$("$ZT" serve token create --scope push --data-dir "$D" 2> tok.err)
SYM=$("$ZT" serve token create --scope symbols --data-dir "$D" 2>> tok.err)
check "tokens are created" [ ${#PUSH} -ge 32 -a ${#SYM} -ge 32 ]
SERVE_CACERT=ca.pem serve_start "$D" --tls-cert srv.pem --tls-key srv.key ||
	{ fail "zt serve --tls-cert starts"; finish; }
URL=$SERVE_URL
check "the server answers https with the private CA's certificate ($URL)" \
	bash -c "curl -sf --cacert ca.pem '$URL/healthz' | grep -qx ok"

"$ZT" record -q -g -o fp.data -- "$WL/hot" hot 0.3 2> rec.err
check "zt record -g" [ -s fp.data ]

# push [ENV=VALUE...] -- [zt push options...]: into push.out, push.err; $rc
n=0
push() {
	local -a envs=()
	n=$((n + 1))
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" ZT_TOKEN="$PUSH" "$ZT" push -i fp.data --server "$URL" --no-symbols \
		--retries 0 --timeout 5 "$@" > "push$n.out" 2> "push$n.err"
	rc=$?
	cp "push$n.out" push.out
	cp "push$n.err" push.err
}
stored() { grep -qE "^zt push: (stored [0-9a-f]{64} \([0-9]+ samples\) on|already stored: [0-9a-f]{64})" push.out; }

# ---- no CA: the certificate is not verified --------------------------------------
push --
check "no CA given: exit 4 ($rc)" [ $rc -eq 4 ]
check "... saying the certificate of the server could not be verified" \
	grep -qF "zt push: cannot verify $URL's certificate: " push.err
check "... with libcurl's reason" grep -q "certificate problem" push.err
check "... and what to do" grep -qF "give the CA with --cacert FILE (or SSL_CERT_FILE)" push.err
check "... tried once (no retry of a certificate)" bash -c "! grep -q 'trying again' push.err"
check "... nothing stored" bash -c "[ ! -s push.out ] && ! ls '$D'/profiles/*/*.zt > /dev/null 2>&1"
push -- --retries 3
check "... not retried with --retries 3 either" \
	all "[ $rc -eq 4 ]" "! grep -q 'trying again' push.err"

# ---- each way of giving the CA ----------------------------------------------------
push -- --cacert ca.pem
check "--cacert: exit 0 ($rc)" [ $rc -eq 0 ]
check "... stored" grep -qE "^zt push: stored [0-9a-f]{64} \([0-9]+ samples\) on $URL\$" push.out
push -- --cacert="$T/ca.pem"
check "--cacert=FILE: exit 0, already stored" all "[ $rc -eq 0 ]" stored
push SSL_CERT_FILE=ca.pem --
check "SSL_CERT_FILE: exit 0 ($rc)" all "[ $rc -eq 0 ]" stored
push CURL_CA_BUNDLE=ca.pem --
check "CURL_CA_BUNDLE: exit 0 ($rc)" all "[ $rc -eq 0 ]" stored
push SSL_CERT_DIR="$T/cadir" --
check "SSL_CERT_DIR (a hashed directory): exit 0 ($rc)" all "[ $rc -eq 0 ]" stored
export ZT_CONFIG=$T/ztconfig
"$ZT" config server.cacert="$T/ca.pem" 2> config.err
check "zt config server.cacert=FILE" grep -q "cacert" "$ZT_CONFIG"
push --
check "server.cacert of zt config: exit 0 ($rc)" all "[ $rc -eq 0 ]" stored

# ---- which wins ------------------------------------------------------------------------
push CURL_CA_BUNDLE="$T/other.pem" SSL_CERT_FILE="$T/other.pem" --
check "server.cacert wins over CURL_CA_BUNDLE and SSL_CERT_FILE" all "[ $rc -eq 0 ]" stored
"$ZT" config server.cacert="$T/other.pem" 2>> config.err
push CURL_CA_BUNDLE="$T/ca.pem" --
check "... a wrong server.cacert is used though CURL_CA_BUNDLE is right: exit 4" [ $rc -eq 4 ]
check "... naming it and where it came from" \
	grep -qF "with the CA certificates '$T/other.pem' (server.cacert)" push.err
push -- --cacert ca.pem
check "--cacert wins over server.cacert" all "[ $rc -eq 0 ]" stored
export ZT_CONFIG=/dev/null
push CURL_CA_BUNDLE=ca.pem SSL_CERT_FILE=other.pem --
check "CURL_CA_BUNDLE wins over SSL_CERT_FILE" all "[ $rc -eq 0 ]" stored
push CURL_CA_BUNDLE=other.pem -- --cacert ca.pem
check "--cacert wins over CURL_CA_BUNDLE" all "[ $rc -eq 0 ]" stored

# ---- a CA that did not sign it, a host name it is not for ------------------------------
push -- --cacert other.pem
check "another CA: exit 4 ($rc)" [ $rc -eq 4 ]
check "... saying it could not verify with that CA file" \
	grep -qF "zt push: cannot verify $URL's certificate with the CA certificates 'other.pem' (--cacert): " push.err
push SSL_CERT_FILE=other.pem --
check "another CA in SSL_CERT_FILE: exit 4, named with the variable" \
	all "[ $rc -eq 4 ]" "grep -qF \"'other.pem' (SSL_CERT_FILE)\" push.err"
port=${URL##*:}
env ZT_TOKEN="$PUSH" "$ZT" push -i fp.data --server "https://localhost:$port" --no-symbols \
	--retries 0 --timeout 5 --cacert ca.pem > host.out 2> host.err
rc=$?
check "the right CA, a host name the certificate is not for: exit 4 ($rc)" [ $rc -eq 4 ]
check "... saying why" bash -c "grep -F \"cannot verify https://localhost:$port's certificate\" host.err | grep -q 'it is not for this host'"

# ---- CA files that cannot be used: exit 1, named ---------------------------------------
push -- --cacert missing.pem
check "--cacert of a file that is not there: exit 1 ($rc)" [ $rc -eq 1 ]
check "... named" grep -qF "zt push: cannot read the CA certificates 'missing.pem' (--cacert): No such file or directory" push.err
push -- --cacert garbage.pem
check "--cacert of a file with no certificate: exit 1 ($rc)" [ $rc -eq 1 ]
check "... named" grep -qF "zt push: cannot use the CA certificates 'garbage.pem' (--cacert): " push.err
push -- --cacert "$T"
check "--cacert of a directory: exit 1, said ($rc)" \
	all "[ $rc -eq 1 ]" "grep -q \"'$T' (--cacert) is a directory\" push.err"
push SSL_CERT_FILE=garbage.pem --
check "SSL_CERT_FILE with no certificate: exit 1, named with the variable ($rc)" \
	all "[ $rc -eq 1 ]" "grep -qF \"'garbage.pem' (SSL_CERT_FILE)\" push.err"
env ZT_TOKEN="$PUSH" "$ZT" push -i fp.data --server "${URL/https:/http:}" --no-symbols \
	--retries 0 --timeout 5 --cacert missing.pem > plainca.out 2> plainca.err
check "a missing --cacert does not matter to an http:// URL (no such check)" \
	bash -c "! grep -q 'CA certificates' plainca.err"

# ---- zt symbols upload ------------------------------------------------------------------
mkdir -p bin
cc -O1 -g -o bin/app -x c - <<< 'int main(void) { return 0; }' || fail "cc"
# up [ENV=VALUE...] -- [options...]: into up.out, up.err; $rc
up() {
	local -a envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" ZT_TOKEN="$SYM" "$ZT" symbols upload --server "$URL" -j 1 --retries 0 \
		--timeout 5 "$@" bin/app > up.out 2> up.err
	rc=$?
}
up --
check "symbols upload, no CA: exit 4 ($rc)" [ $rc -eq 4 ]
check "... saying the certificate could not be verified, and what to do" \
	grep -qF "zt symbols: cannot verify $URL's certificate: " up.err
check "... with --cacert FILE" grep -qF "give the CA with --cacert FILE (or SSL_CERT_FILE)" up.err
up -- --cacert ca.pem
check "symbols upload --cacert: exit 0 ($rc)" [ $rc -eq 0 ]
check "... uploaded" grep -q "1 uploaded" up.err
up SSL_CERT_FILE=ca.pem -- --force
check "symbols upload with SSL_CERT_FILE: exit 0 ($rc)" all "[ $rc -eq 0 ]" "grep -q '1 uploaded' up.err"
up -- --cacert other.pem
check "symbols upload with another CA: exit 4, naming it ($rc)" \
	all "[ $rc -eq 4 ]" "grep -qF \"'other.pem' (--cacert)\" up.err"
up -- --cacert garbage.pem
check "symbols upload --cacert of a file with no certificate: exit 1, named ($rc)" \
	all "[ $rc -eq 1 ]" "grep -qF \"cannot use the CA certificates 'garbage.pem' (--cacert)\" up.err"
up -- --cacert missing.pem
check "symbols upload --cacert of a file that is not there: exit 1, named ($rc)" \
	all "[ $rc -eq 1 ]" "grep -qF \"'missing.pem' (--cacert)\" up.err"
"$ZT" symbols upload -h > uph.txt 2>&1
check "zt symbols upload -h lists --cacert" grep -q -- "--cacert" uph.txt
"$ZT" push -h > pushh.txt 2>&1
check "zt push -h lists --cacert" grep -q -- "--cacert" pushh.txt

# ---- the server down, and a server that does not speak TLS -----------------------------
serve_stop
push -- --cacert ca.pem
check "the server down: exit 4 ($rc)" [ $rc -eq 4 ]
up -- --cacert ca.pem
check "symbols upload, the server down: exit 4 ($rc)" [ $rc -eq 4 ]
: > "$T/serve.err"
serve_start "$D" || { fail "zt serve (plain http) starts"; finish; }
URL=${SERVE_URL/http:/https:}
push -- --cacert ca.pem
check "https to a plain HTTP server: exit 4 ($rc)" [ $rc -eq 4 ]
check "... saying TLS failed" grep -qF "zt push: cannot set up TLS with $URL: " push.err
serve_stop
finish
