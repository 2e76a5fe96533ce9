#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt record --push (agent mode) against a real zt serve on loopback, with
# real BPF recordings:
# - pieces every 2 s for ~9 s: the server has them all, each labelled; the
#   agent's own count of samples pushed is the sum of the server's, every
#   recorded sample is pushed, the pieces' times join without gaps and the
#   BPF program's runs are the samples recorded (nothing lost at a seam);
# - the server down at first, then started: the pieces wait and go in order;
# - a tiny queue while the server is down: the oldest dropped, said, and
#   pushed + dropped = recorded;
# - SIGTERM: the last (only) piece is pushed before the exit;
# - a bad token, a read-only token: said, exit 3, nothing recorded; with
#   the server away at the start, at its first answer;
# - the spool: refused as a symlink or another user's; its files 0600; its
#   pieces outlive the agent and go first at the next start;
# - dist/zt-agent.service: systemd-analyze verify, and its command line with
#   dist/zt-agent.default's settings runs and pushes;
# - https with a private CA: refused without --cacert (exit 4), pushed with.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
unit=$(cd "$(dirname "$0")/../../dist" && pwd)
cd "$T"
D=$T/data
host=$(uname -n)

PUSH=$("$ZT" serve token create --scope push --data-dir "$D" 2> tok.err)
READ=$("$ZT" serve token create --scope read --data-dir "$D" 2>> tok.err)
SYMTOK=$("$ZT" serve token create --scope symbols --data-dir "$D" 2>> tok.err)
check "tokens are created" [ ${#PUSH} -ge 32 -a ${#READ} -ge 32 ]
serve_start "$D" || { fail "zt serve starts"; finish; }
URL1=$SERVE_URL

# something to sample on both CPUs
"$WL/hot" 250 > /dev/null 2>&1 &
busy=$!
bgpids+=("$busy")

# agent_bg NAME [zt record args...]: an agent in the background (its PID in
# APID), its stderr in NAME.err; agent_end NAME SIGNAL: signal it, wait for
# it, its exit status in NAME.rc
agent_bg() {
	local name=$1
	shift
	ZT_TOKEN=${TOK-$PUSH} "$ZT" record -a -F 49 -g "$@" 2> "$name.err" &
	APID=$!
	bgpids+=("$APID")
}
agent_end() {
	kill -"$2" "$APID" 2> /dev/null
	wait "$APID"
	echo $? > "$1.rc"
}
# agent NAME SECS SIGNAL [zt record args...]: an agent for SECS seconds, then SIGNAL
agent() {
	local name=$1 secs=$2 sig=$3
	shift 3
	agent_bg "$name" "$@"
	sleep "$secs"
	agent_end "$name" "$sig"
}
# field NAME WHICH: from the agent's last line "[ zt record: pushed P of R
# pieces (S of N samples) ...; dropped D (X samples) ... ]": P R S N D X
field() {
	local l
	l=$(grep '^\[ zt record: pushed ' "$1.err" | tail -n 1)
	case $2 in
	P) sed -E 's/.*pushed ([0-9]+) of .*/\1/' <<< "$l" ;;
	R) sed -E 's/.*pushed [0-9]+ of ([0-9]+) pieces.*/\1/' <<< "$l" ;;
	S) sed -E 's/.*pieces \(([0-9]+) of .*/\1/' <<< "$l" ;;
	N) sed -E 's/.*pieces \([0-9]+ of ([0-9]+) samples.*/\1/' <<< "$l" ;;
	D) if grep -q 'dropped' <<< "$l"; then sed -E 's/.*dropped ([0-9]+) .*/\1/' <<< "$l"; else echo 0; fi ;;
	X) if grep -q 'dropped' <<< "$l"; then sed -E 's/.*dropped [0-9]+ \(([0-9]+) samples.*/\1/' <<< "$l"; else echo 0; fi ;;
	esac
}
# listed LABEL: the server's profiles with that label, one a line:
# "samples time_start time_end labels-json"
listed() {
	TOKEN=$READ api GET "/api/v1/profiles?label=$1&limit=1000" |
		grep -oE '"labels":\{[^}]*\},"time_start":[0-9]+,"time_end":[0-9]+,"samples":[0-9]+' |
		sed -E 's/"labels":(\{[^}]*\}),"time_start":([0-9]+),"time_end":([0-9]+),"samples":([0-9]+)/\4 \2 \3 \1/'
}
sum() { awk '{ s += $1 } END { print s + 0 }'; }
# pushed NAME: the -v lines "pushed piece N: S samples from A to B ns" as "N S A B"
pushed() { sed -nE 's/^zt record: pushed piece ([0-9]+): ([0-9]+) samples from ([0-9]+) to ([0-9]+) ns.*/\1 \2 \3 \4/p' "$1.err"; }
# a port nothing listens on (yet)
free_port() {
	local p
	while :; do
		p=$((20000 + (RANDOM * 7 + $$) % 30000))
		curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$p/" || { echo "$p"; return; }
	done
}
# serve_on PORT DATADIR: zt serve on that port (as serve_start, its PID in SERVE_PID)
serve_on() {
	local i
	"$ZT" serve --listen "127.0.0.1:$1" --data-dir "$2" 2>> "$T/serve.err" &
	SERVE_PID=$!
	bgpids+=("$SERVE_PID")
	SERVE_URL=http://127.0.0.1:$1
	for i in $(seq 100); do
		curl -sf -o /dev/null "$SERVE_URL/healthz" && return 0
		sleep 0.1
	done
	return 1
}

# ---- (1) pieces every 2 s: all there, labelled, no sample lost at a seam ----
agent seams 9 INT --push "$URL1" --push-interval 2 --label test=seams -v
check "agent: exit 0 after SIGINT" [ "$(cat seams.rc)" = 0 ]
check "agent: one line at the start" grep -q "^\[ zt record: pushing to $URL1 every 2 s \]" seams.err
P=$(field seams P) R=$(field seams R) S=$(field seams S) N=$(field seams N)
check "agent: at least 4 pieces pushed, all that were recorded ($P of $R)" \
	all "[ '$P' -ge 4 ]" "[ '$P' = '$R' ]"
check "agent: every recorded sample pushed ($S of $N)" all "[ '$S' -gt 0 ]" "[ '$S' = '$N' ]"
listed test=seams > seams.list
check "server: the agent's pieces ($(wc -l < seams.list) of $P)" [ "$(wc -l < seams.list)" = "$P" ]
check "server: each labelled test=seams and agent=$host" \
	bash -c "[ \$(grep -c '\"test\":\"seams\"' seams.list) = $P ] && [ \$(grep -c '\"agent\":\"$host\"' seams.list) = $P ]"
check "server: its samples are the agent's count ($(sum < seams.list) = $S)" [ "$(sum < seams.list)" = "$S" ]
pushed seams | sort -n > seams.pieces
check "agent -v: a line for each piece, numbered 1..$P" \
	[ "$(cut -d' ' -f1 seams.pieces | tr '\n' ' ')" = "$(seq -s ' ' 1 "$P") " ]
check "agent -v: their samples add up to the count ($(cut -d' ' -f2 seams.pieces | sum))" \
	[ "$(cut -d' ' -f2 seams.pieces | sum)" = "$S" ]
check "the pieces' times join: each ends where the next starts" \
	awk 'NR > 1 && $3 != end { bad = 1 } { end = $4 } END { exit bad }' seams.pieces
check "... each about 2 s long (the last shorter)" \
	awk '{ d = ($4 - $3) / 1e9 } NR < '"$P"' && (d < 1.9 || d > 3.5) { bad = 1 } END { exit bad }' seams.pieces
check "server: the pieces' wall-clock times follow each other" \
	bash -c "sort -k2n seams.list | awk 'NR > 1 && (\$2 < s || \$2 > e + 1) { bad = 1 } { s = \$2; e = \$3 } END { exit bad }'"
runs=$(sed -nE 's/.*BPF program: ([0-9]+) runs.*/\1/p' seams.err)
if grep -q 'no samples lost' seams.err && [ -n "$runs" ]; then
	check "the BPF program's runs are the samples recorded ($runs = $N)" [ "$runs" = "$N" ]
else
	skip "samples were lost in the rings: the BPF runs are not the recorded count"
fi
check "no warning" bash -c "! grep -q 'warning' seams.err"

# ---- (2) the server away at first: the pieces wait, then go in order -------
port=$(free_port)
D2=$T/data2
PUSH2=$("$ZT" serve token create --scope push --data-dir "$D2" 2>> tok.err)
READ2=$("$ZT" serve token create --scope read --data-dir "$D2" 2>> tok.err)
TOK=$PUSH2 agent_bg away --push "http://127.0.0.1:$port" --push-interval 1 --label test=away \
	--no-push-symbols -v
sleep 6
serve_on "$port" "$D2" || fail "zt serve starts on port $port"
sleep 5
agent_end away INT
check "away: exit 0" [ "$(cat away.rc)" = 0 ]
check "away: said, once, at the start" grep -q "warning: the server at http://127.0.0.1:$port cannot be reached now" away.err
check "away: not said again at the first try" [ "$(grep -c 'is away (' away.err)" = 0 ]
check "away: said that it is back" grep -q "is back after" away.err
P=$(field away P) R=$(field away R) S=$(field away S) N=$(field away N)
check "away: every piece pushed ($P of $R), none dropped" all "[ '$P' -ge 8 ]" "[ '$P' = '$R' ]" \
	"[ '$(field away D)' = 0 ]"
check "away: every sample ($S of $N)" [ "$S" = "$N" ]
pushed away > away.pieces
check "away: pushed in their order" [ "$(cut -d' ' -f1 away.pieces | tr '\n' ' ')" = "$(seq -s ' ' 1 "$P") " ]
check "away: several waited in the queue ($(sed -nE 's/^zt record: pushed piece 1: .* queued ([0-9]+)$/\1/p' away.err) after the first)" \
	grep -qE "^zt record: pushed piece 1: .* queued ([3-9]|[1-9][0-9])$" away.err
READ=$READ2 listed test=away > away.list
check "away: the server has them all ($(wc -l < away.list)), their samples too" \
	all "[ '$(wc -l < away.list)' = '$P' ]" "[ '$(sum < away.list)' = '$S' ]"
serve_stop

# ---- (3) a tiny queue: the oldest dropped, said, the counts add up ----------
port=$(free_port)
D3=$T/data3
PUSH3=$("$ZT" serve token create --scope push --data-dir "$D3" 2>> tok.err)
READ3=$("$ZT" serve token create --scope read --data-dir "$D3" 2>> tok.err)
big=$(sed -nE 's/^zt record: pushed piece [0-9]+: .* ns, ([0-9]+) bytes.*/\1/p' seams.err | sort -n | tail -n 1)
q=$(( big * 5 / 2 )) # a piece of 1 s is about half one of 2 s: some 4 or 5 fit
TOK=$PUSH3 agent_bg tiny --push "http://127.0.0.1:$port" --push-interval 1 \
	--push-queue-size "$q" --label test=tiny --no-push-symbols -v
sleep 10
serve_on "$port" "$D3" || fail "zt serve starts on port $port"
sleep 4
agent_end tiny INT
check "tiny queue: exit 0" [ "$(cat tiny.rc)" = 0 ]
P=$(field tiny P) R=$(field tiny R) S=$(field tiny S) N=$(field tiny N) Dp=$(field tiny D) Ds=$(field tiny X)
check "tiny queue: some dropped ($Dp pieces, $Ds samples), some pushed ($P)" \
	all "[ '$Dp' -gt 0 ]" "[ '$P' -gt 0 ]"
check "tiny queue: said which, the oldest, with counts" \
	grep -qE "warning: the server at http://127.0.0.1:$port is away: dropped [0-9]+ oldest pieces? \([0-9]+ samples\), the queue holds" tiny.err
check "tiny queue: pushed + dropped = recorded ($P + $Dp = $R pieces, $S + $Ds = $N samples)" \
	all "[ $((P + Dp)) = '$R' ]" "[ $((S + Ds)) = '$N' ]"
pushed tiny > tiny.pieces
check "tiny queue: the oldest went, the rest in order" \
	bash -c "[ \$(head -n 1 tiny.pieces | cut -d' ' -f1) -gt 1 ] && cut -d' ' -f1 tiny.pieces | sort -nc"
READ=$READ3 listed test=tiny > tiny.list
check "tiny queue: the server has the pushed ones ($(wc -l < tiny.list) of $P, $(sum < tiny.list) of $S samples)" \
	all "[ '$(wc -l < tiny.list)' = '$P' ]" "[ '$(sum < tiny.list)' = '$S' ]"
serve_stop

# ---- (4) SIGTERM: the last piece pushed -----------------------------------
SERVE_URL=$URL1
agent term 3 TERM --push "$URL1" --push-interval 60 --label test=term --no-push-symbols
check "SIGTERM: exit 0" [ "$(cat term.rc)" = 0 ]
check "SIGTERM: the one piece pushed" all "[ '$(field term P)' = 1 ]" "[ '$(field term R)' = 1 ]" \
	"[ '$(field term S)' -gt 0 ]"
listed test=term > term.list
check "SIGTERM: the server has it, with its samples" \
	all "[ '$(wc -l < term.list)' = 1 ]" "[ '$(sum < term.list)' = '$(field term S)' ]"
check "SIGTERM: quiet without -v (the start, the counts)" \
	bash -c "! grep -v '^\[ zt record' term.err | grep -v \"'cycles' is not available\" | grep -q ."

# ---- (5) a bad token: said, exit 3, nothing recorded ----------------------
s=$(date +%s)
ZT_TOKEN=not-a-token "$ZT" record -a -F 49 -g --push "$URL1" > bad.out 2> bad.err
rc=$?
check "bad token: exit 3" [ "$rc" = 3 ]
check "bad token: said, with what to do" \
	grep -qE "^zt record: the server at $URL1 refused the agent's token \(401\): unknown token: check it, or create one" bad.err
check "bad token: at once, nothing recorded" \
	all "[ $(( $(date +%s) - s )) -lt 10 ]" "! grep -q 'pushing to' bad.err"
ZT_TOKEN=$READ "$ZT" record -a -F 49 -g --push "$URL1" > ro.out 2> ro.err
check "a read-only token: exit 3, refused (403)" \
	all "[ $? = 3 ]" "grep -q \"refused the agent's token (403): this token may not do this: it needs the push scope\" ro.err"
# a symbols-only token passes the start (symbols/missing takes it), not the first piece
s=$(date +%s)
ZT_TOKEN=$SYMTOK timeout 30 "$ZT" record -a -F 49 -g --push "$URL1" --push-interval 1 > sym.out 2> sym.err
rc=$?
check "a symbols-only token: the first piece refused, exit 3 ($rc) at once" \
	all "[ $rc = 3 ]" "[ $(( $(date +%s) - s )) -lt 15 ]" \
	"grep -q \"refused the agent's token (403): .*; stopping\" sym.err"
# the server away at the start: the refusal comes with the first push, and stops the agent
port=$(free_port)
TOK=not-a-token agent_bg late --push "http://127.0.0.1:$port" --push-interval 1 --no-push-symbols
sleep 2
serve_on "$port" "$D2" || fail "zt serve starts on port $port"
for i in $(seq 100); do kill -0 "$APID" 2> /dev/null || break; sleep 0.1; done
agent_end late INT
check "bad token, the server away at first: the agent stops by itself, exit 3" [ "$(cat late.rc)" = 3 ]
check "... said, with the server's reason" \
	grep -q "refused the agent's token (401): unknown token: .*; stopping" late.err
serve_stop
SERVE_URL=$URL1
check "the token is never shown" bash -c "! grep -q '$READ' ro.err bad.err seams.err && ! grep -q '$SYMTOK' sym.err"

# ---- (6) the spool ---------------------------------------------------------
mkdir real
ln -s real link
ZT_TOKEN=$PUSH "$ZT" record -a --push "$URL1" --push-spool link > /dev/null 2> spl.err
check "spool: a symbolic link is refused (exit 1)" \
	all "[ $? = 1 ]" "grep -q \"spool directory 'link' is a symbolic link\" spl.err"
mkdir other
chown 65534 other
ZT_TOKEN=$PUSH "$ZT" record -a --push "$URL1" --push-spool other > /dev/null 2> spo.err
check "spool: another user's directory is refused" \
	all "[ $? = 1 ]" "grep -q \"spool directory 'other' belongs to uid 65534\" spo.err"
chmod 777 real
ZT_TOKEN=$PUSH "$ZT" record -a --push "$URL1" --push-spool real > /dev/null 2> spw.err
check "spool: one others may write in is refused" \
	all "[ $? = 1 ]" "grep -q 'chmod 700' spw.err"

# pieces spooled while the server is away stay for the next start
port=$(free_port)
TOK=$PUSH agent spool1 5 INT --push "http://127.0.0.1:$port" --push-interval 1 \
	--push-spool "$T/spool" --label test=spool --no-push-symbols
check "spool: made 0700" [ "$(stat -c %a spool)" = 700 ]
n1=$(ls spool | grep -c '^piece-.*\.zt$')
check "spool: the pieces left in it ($n1), 0600 each" \
	all "[ $n1 -ge 4 ]" "[ -z \"\$(find spool -type f ! -perm 0600)\" ]"
check "spool: said at the exit" grep -qE "; $n1 not pushed \([0-9]+ samples\), kept in the spool" spool1.err
check "spool: a piece is a zt.data zt report reads" \
	bash -c "'$ZT' report --stdio -i 'spool/$(ls spool | head -n 1)' > spool.rep 2>&1"
agent spool2 3 INT --push "$URL1" --push-interval 10 --push-spool "$T/spool" --label test=spool \
	--no-push-symbols
check "spool: the earlier pieces said at the start" \
	grep -q "note: $n1 pieces of an earlier run ([0-9]* samples) in '$T/spool' go first" spool2.err
check "spool: all pushed, the earlier ones too ($(field spool2 P) of $((n1 + 1)))" \
	all "[ '$(field spool2 P)' = $((n1 + 1)) ]" "[ '$(field spool2 R)' = $((n1 + 1)) ]"
check "spool: empty after" [ -z "$(ls spool)" ]
check "spool: the server has them" [ "$(listed test=spool | wc -l)" = $((n1 + 1)) ]

# ---- (7) the shipped systemd unit: its command line, with the example settings ----
if command -v systemd-analyze > /dev/null; then
	systemd-analyze verify "$unit/zt-agent.service" > verify.out 2>&1
	check "dist/zt-agent.service: systemd-analyze verify finds nothing but the binary's absence" \
		bash -c "! grep -v 'is not executable\|man zt-record' verify.out | grep -q ."
fi
# ExecStart as systemd runs it: Environment= defaults, then the settings
# file (a copy of dist/zt-agent.default, filled in); ${V} one word, $V split
declare -A envv=()
for kv in $(sed -n 's/^Environment=ZT_FREQ/ZT_FREQ/p' "$unit/zt-agent.service"); do
	envv[${kv%%=*}]=${kv#*=}
done
sed -e "s|^ZT_SERVER=.*|ZT_SERVER=$URL1|" -e "s|^ZT_TOKEN=.*|ZT_TOKEN=$PUSH|" \
	-e "s|^#ZT_AGENT_OPTS=.*|ZT_AGENT_OPTS=--label test=unit --no-push-symbols|" \
	-e "s|^#ZT_PUSH_INTERVAL=.*|ZT_PUSH_INTERVAL=2|" "$unit/zt-agent.default" > agent.default
while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	envv[${line%%=*}]=${line#*=}
done < agent.default
cmdline=$(sed -n '/^ExecStart=/,/[^\\]$/p' "$unit/zt-agent.service" | sed 's/^ExecStart=//; s/\\$//' | tr '\t\n' '  ')
argv=()
for w in $cmdline; do
	case $w in
	'${'*'}') n=${w:2:-1}; argv+=("${envv[$n]}") ;;
	'$'*) n=${w:1}; read -ra more <<< "${envv[$n]}"; argv+=("${more[@]}") ;;
	/usr/local/bin/zt) argv+=("$ZT") ;;
	/var/lib/zt-agent/*) mkdir -p "$T/state"; argv+=("$T/state/${w#/var/lib/zt-agent/}") ;;
	*) argv+=("$w") ;;
	esac
done
echo "${argv[*]}" > unit.cmdline
ZT_TOKEN=${envv[ZT_TOKEN]} "${argv[@]}" 2> unit.err &
upid=$!
bgpids+=("$upid")
sleep 5
kill -TERM "$upid"
wait "$upid"
check "the unit's command line runs: exit 0 at SIGTERM (KillSignal)" [ $? = 0 ]
check "... -a -F 19 -g, every 2 s, the spool in the state directory" \
	all "grep -q -- '-a -F 19 -g --push $URL1 --push-interval 2 --push-queue-size 64M --push-spool $T/state/spool --label test=unit --no-push-symbols' unit.cmdline" \
	"[ -d '$T/state/spool' ]"
check "... its pieces pushed ($(field unit P) of $(field unit R)), on the server" \
	all "[ '$(field unit P)' -ge 2 ]" "[ '$(field unit P)' = '$(field unit R)' ]" \
	"[ \"\$(listed test=unit | wc -l)\" = '$(field unit P)' ]"

# ---- (8) https with a private CA: --cacert -------------------------------
unset CURL_CA_BUNDLE SSL_CERT_FILE SSL_CERT_DIR
if command -v openssl > /dev/null; then
	ossl() { openssl "$@" > /dev/null 2>> openssl.err; }
	ossl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 \
		-subj "/CN=zt test CA" -addext basicConstraints=critical,CA:TRUE \
		-addext keyUsage=critical,keyCertSign,cRLSign
	ossl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj /CN=127.0.0.1
	printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
		> srv.ext
	ossl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem -days 2 \
		-extfile srv.ext
	D4=$T/data4
	PUSH4=$("$ZT" serve token create --scope push --data-dir "$D4" 2>> tok.err)
	READ4=$("$ZT" serve token create --scope read --data-dir "$D4" 2>> tok.err)
	if SERVE_CACERT=ca.pem serve_start "$D4" --tls-cert srv.pem --tls-key srv.key; then
		ZT_TOKEN=$PUSH4 "$ZT" record -a --push "$SERVE_URL" > tls0.out 2> tls0.err
		check "https, no CA given: exit 4 at once, the certificate not verified" \
			all "[ $? = 4 ]" "grep -q 'cannot verify' tls0.err"
		TOK=$PUSH4 agent tls 3 INT --push "$SERVE_URL" --cacert ca.pem --push-interval 60 \
			--label test=tls --no-push-symbols
		check "https with --cacert: exit 0, the piece pushed" \
			all "[ '$(cat tls.rc)' = 0 ]" "[ '$(field tls P)' = 1 ]"
		TOKEN=$READ4 api GET "/api/v1/profiles?label=test=tls" --cacert ca.pem > tls.json
		check "... and stored" [ "$(grep -o '"samples":' tls.json | wc -l)" = 1 ]
		serve_stop
	else
		fail "zt serve --tls-cert starts"
	fi
else
	skip "no openssl: https with --cacert"
fi

kill "$busy" 2> /dev/null
finish
