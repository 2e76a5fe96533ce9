# SPDX-License-Identifier: GPL-2.0-or-later
# zt serve for end-to-end tests: sourced after lib.sh. The server listens on
# a free port of 127.0.0.1 only, is stopped by PID (serve_stop, or lib.sh's
# cleanup), and stops by itself after SERVE_LIFETIME seconds (a watchdog).

: "${SERVE_LIFETIME:=900}"

# serve_start DATADIR [zt serve options...]: sets SERVE_PID and SERVE_URL;
# the server's stderr goes to $T/serve.err. 1 when it does not come up.
# With SERVE_CACERT set (a PEM file), the server is reached over https and
# its certificate checked against that file (pass --tls-cert/--tls-key).
serve_start() {
	local dir=$1 try port i scheme=http
	local -a tls=()
	shift
	if [ -n "${SERVE_CACERT:-}" ]; then
		scheme=https
		tls=(--cacert "$SERVE_CACERT")
	fi
	for try in 1 2 3 4 5 6 7 8; do
		port=$((20000 + (RANDOM * 7 + $$) % 30000))
		"$ZT" serve --listen "127.0.0.1:$port" --data-dir "$dir" "$@" 2>> "$T/serve.err" &
		SERVE_PID=$!
		bgpids+=("$SERVE_PID")
		# the watchdog goes when the server does (tail --pid), and holds
		# no descriptor of the test's (a pipe left open hangs a reader)
		(timeout "$SERVE_LIFETIME" tail --pid="$SERVE_PID" -f /dev/null
		 kill -9 "$SERVE_PID") > /dev/null 2>&1 < /dev/null &
		SERVE_URL="$scheme://127.0.0.1:$port"
		for i in $(seq 100); do
			kill -0 "$SERVE_PID" 2> /dev/null || break
			curl -sf "${tls[@]}" -o /dev/null "$SERVE_URL/healthz" && return 0
			sleep 0.1
		done
		kill -9 "$SERVE_PID" 2> /dev/null
		wait "$SERVE_PID" 2> /dev/null
	done
	echo "  serve_start: zt serve did not come up; its stderr:" >&2
	tail -5 "$T/serve.err" >&2
	return 1
}

# serve_stop: SIGTERM, then wait for the PID to exit; its exit status.
serve_stop() {
	kill -TERM "$SERVE_PID" 2> /dev/null
	wait "$SERVE_PID"
}

# api METHOD PATH [curl args...]: the response body on stdout, the status
# code in $T/code; with the token in $TOKEN when set.
api() {
	local m=$1 p=$2
	shift 2
	local auth=()
	[ -n "${TOKEN:-}" ] && auth=(-H "Authorization: Bearer $TOKEN")
	curl -s -X "$m" "${auth[@]}" -o "$T/body" -w '%{http_code}' "$@" "$SERVE_URL$p" > "$T/code"
	cat "$T/body"
}
code() { cat "$T/code"; }
