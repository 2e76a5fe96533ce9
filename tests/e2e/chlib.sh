# SPDX-License-Identifier: GPL-2.0-or-later
# A ClickHouse cluster for end-to-end tests: sourced after lib.sh.
# ch_cluster_start N runs N clickhouse-server processes (Debian's 18.16) as
# plain children of the test, each with a private config, data directory and
# free ports under $T/ch<i>/, listening on 127.0.0.1 only. Every config has
# a cluster `zt` with one shard per server (one replica each: 127.0.0.1 and
# that server's TCP port), so Distributed tables span the N servers; no
# ZooKeeper. A server is stopped by PID (ch_stop, or lib.sh's cleanup), and
# stops by itself after CH_LIFETIME seconds (a watchdog, as in servelib.sh).
# Users: `default` (no password) and `zt` (password `zt-secret`), both
# admitted from 127.0.0.1 only.
#
# After ch_cluster_start: CH_URLS (http://127.0.0.1:PORT/ of each server,
# space-separated), CH_PIDS (their PIDs, space-separated), and per server i
# (1...N) CH_PID[i], CH_HTTP[i], CH_TCP[i], CH_INTER[i], CH_DIR[i]. Logs:
# $T/ch<i>/log/server.log, server.err.log, and the process's own
# stdout/stderr in $T/ch<i>/log/stdout.log.

: "${CH_LIFETIME:=${SERVE_LIFETIME:-900}}"
CH_SERVER=${CH_SERVER:-clickhouse-server}
CH_N=0
CH_URLS='' CH_PIDS=''
CH_PID=() CH_HTTP=() CH_TCP=() CH_INTER=() CH_DIR=()

# ch_available: 0 when clickhouse-server (and curl) can be run; else says
# why on stdout and returns 2. A test then skips:
#   ch_available || { skip "..."; finish; }
ch_available() {
	if ! command -v "$CH_SERVER" > /dev/null; then
		echo "no $CH_SERVER (install it with scripts/setup.sh --test)"
		return 2
	fi
	if ! command -v curl > /dev/null; then
		echo "no curl (install it with scripts/setup.sh --test)"
		return 2
	fi
	return 0
}

# ch_free_ports N: N distinct TCP ports of 20000-49999 with no listener now
ch_free_ports() {
	local n=$1 used p out=()
	used=" $(ss -Htln 2> /dev/null | awk '{ n = split($4, a, ":"); printf "%s ", a[n] }') "
	while [ ${#out[@]} -lt "$n" ]; do
		p=$((20000 + (RANDOM * 32768 + RANDOM + $$) % 30000))
		[[ $used == *" $p "* ]] && continue
		used+="$p "
		out+=("$p")
	done
	echo "${out[@]}"
}

# ch_write_config i N: $T/ch<i>/config.xml and users.xml for server i of N
# (the ports of all N servers are chosen already)
ch_write_config() {
	local i=$1 n=$2 d=${CH_DIR[$1]} j
	mkdir -p "$d/data" "$d/tmp" "$d/user_files" "$d/format_schemas" "$d/log"
	{
		cat <<- EOF
		<?xml version="1.0"?>
		<!-- zt e2e: ClickHouse server $i of $n (tests/e2e/chlib.sh) -->
		<yandex>
		    <logger>
		        <level>information</level>
		        <log>$d/log/server.log</log>
		        <errorlog>$d/log/server.err.log</errorlog>
		        <size>100M</size>
		        <count>1</count>
		    </logger>
		    <listen_host>127.0.0.1</listen_host>
		    <http_port>${CH_HTTP[$i]}</http_port>
		    <tcp_port>${CH_TCP[$i]}</tcp_port>
		    <interserver_http_host>127.0.0.1</interserver_http_host>
		    <interserver_http_port>${CH_INTER[$i]}</interserver_http_port>
		    <path>$d/data/</path>
		    <tmp_path>$d/tmp/</tmp_path>
		    <user_files_path>$d/user_files/</user_files_path>
		    <format_schema_path>$d/format_schemas/</format_schema_path>
		    <users_config>users.xml</users_config>
		    <default_profile>default</default_profile>
		    <default_database>default</default_database>
		    <timezone>UTC</timezone>
		    <max_connections>256</max_connections>
		    <keep_alive_timeout>3</keep_alive_timeout>
		    <max_concurrent_queries>16</max_concurrent_queries>
		    <uncompressed_cache_size>67108864</uncompressed_cache_size>
		    <mark_cache_size>67108864</mark_cache_size>
		    <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
		    <max_session_timeout>3600</max_session_timeout>
		    <default_session_timeout>60</default_session_timeout>
		    <remote_servers>
		        <zt>
		EOF
		for ((j = 1; j <= n; j++)); do
			cat <<- EOF
			            <shard>
			                <replica>
			                    <host>127.0.0.1</host>
			                    <port>${CH_TCP[$j]}</port>
			                </replica>
			            </shard>
			EOF
		done
		cat <<- EOF
		        </zt>
		    </remote_servers>
		</yandex>
		EOF
	} > "$d/config.xml"
	cat > "$d/users.xml" <<- EOF
	<?xml version="1.0"?>
	<yandex>
	    <profiles>
	        <default>
	            <max_memory_usage>2000000000</max_memory_usage>
	            <use_uncompressed_cache>0</use_uncompressed_cache>
	            <load_balancing>random</load_balancing>
	            <!-- a server's TCP handler checks for shutdown once per
	                 poll_interval: with the default 10 s, SIGTERM takes up
	                 to 10 s while a peer holds a pooled connection -->
	            <poll_interval>1</poll_interval>
	        </default>
	    </profiles>
	    <users>
	        <default>
	            <password></password>
	            <networks><ip>127.0.0.1</ip></networks>
	            <profile>default</profile>
	            <quota>default</quota>
	        </default>
	        <zt>
	            <password>zt-secret</password>
	            <networks><ip>127.0.0.1</ip></networks>
	            <profile>default</profile>
	            <quota>default</quota>
	        </zt>
	    </users>
	    <quotas>
	        <default>
	            <interval>
	                <duration>3600</duration>
	                <queries>0</queries>
	                <errors>0</errors>
	                <result_rows>0</result_rows>
	                <read_rows>0</read_rows>
	                <execution_time>0</execution_time>
	            </interval>
	        </default>
	    </quotas>
	</yandex>
	EOF
}

# ch_start i: starts server i (again: on the same ports and data directory)
# and waits until /ping answers "Ok."; 1, with the tail of its logs, when
# it does not come up within 30 s
ch_start() {
	local i=$1 d=${CH_DIR[$1]} pid
	"$CH_SERVER" --config-file="$d/config.xml" >> "$d/log/stdout.log" 2>&1 < /dev/null &
	pid=$!
	CH_PID[i]=$pid
	bgpids+=("$pid")
	# the watchdog goes when the server does (tail --pid), and holds no
	# descriptor of the test's (a pipe left open hangs a reader)
	(timeout "$CH_LIFETIME" tail --pid="$pid" -f /dev/null
	 kill -9 "$pid") > /dev/null 2>&1 < /dev/null &
	ch_pids
	for _ in $(seq 300); do
		kill -0 "$pid" 2> /dev/null || break
		[ "$(curl -s --max-time 2 "http://127.0.0.1:${CH_HTTP[$i]}/ping")" = "Ok." ] && return 0
		sleep 0.1
	done
	echo "  ch_start $i: clickhouse-server did not come up (pid $pid); its logs:" >&2
	tail -n 8 "$d/log/stdout.log" "$d/log/server.err.log" >&2 2> /dev/null
	kill -9 "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	return 1
}

ch_pids() {
	local j
	CH_PIDS=
	for ((j = 1; j <= CH_N; j++)); do CH_PIDS+="${CH_PIDS:+ }${CH_PID[$j]:-}"; done
}

# ch_stop i: SIGTERM to server i, then waits for its PID to exit (SIGKILL
# after 60 s); its exit status
ch_stop() {
	local i=$1 pid=${CH_PID[$1]}
	kill -TERM "$pid" 2> /dev/null
	for _ in $(seq 600); do
		kill -0 "$pid" 2> /dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2> /dev/null; then
		echo "  ch_stop $i: pid $pid still runs 60 s after SIGTERM: SIGKILL" >&2
		kill -9 "$pid"
	fi
	wait "$pid"
}

# ch_wait_gone i [SECONDS]: waits (10 s by default) for server i's PID to
# exit by itself (the watchdog, a crash), and reaps it quietly; 1 when it
# still runs
ch_wait_gone() {
	local pid=${CH_PID[$1]}
	# (stderr off: bash reports a background job's SIGKILL there)
	{
		for _ in $(seq $((${2:-10} * 10))); do
			kill -0 "$pid" || break
			sleep 0.1
		done
		kill -0 "$pid" && return 1
		wait "$pid"
	} 2> /dev/null
	return 0
}

# ch_cluster_start N: N servers (1 or 2; more work too) in cluster `zt`;
# 1, with the tail of the failing server's logs, when one does not come
# up. New ports are tried (3 times) when one was taken meanwhile.
ch_cluster_start() {
	local n=$1 i try ports
	CH_N=$n
	for try in 1 2 3; do
		CH_URLS=
		for ((i = 1; i <= n; i++)); do
			read -r "CH_HTTP[i]" "CH_TCP[i]" "CH_INTER[i]" <<< "$(ch_free_ports 3)"
			CH_DIR[i]=$T/ch$i
			CH_URLS+="${CH_URLS:+ }http://127.0.0.1:${CH_HTTP[i]}/"
		done
		# ports distinct across servers too
		ports=$(for ((i = 1; i <= n; i++)); do echo "${CH_HTTP[i]} ${CH_TCP[i]} ${CH_INTER[i]}"; done | tr ' ' '\n' | sort | uniq -d)
		[ -n "$ports" ] && continue
		for ((i = 1; i <= n; i++)); do
			rm -rf "${CH_DIR[i]}"
			ch_write_config "$i" "$n"
		done
		for ((i = 1; i <= n; i++)); do
			ch_start "$i" && continue
			# a port taken by someone else meanwhile: again, on other ports
			if grep -qs 'Address already in use' "${CH_DIR[i]}/log/server.err.log" \
				"${CH_DIR[i]}/log/stdout.log" && [ "$try" -lt 3 ]; then
				echo "  ch_cluster_start: a port was taken meanwhile: again, on other ports" >&2
				for ((i--; i >= 1; i--)); do ch_stop "$i" 2> /dev/null; done
				continue 2
			fi
			return 1
		done
		return 0
	done
	echo "  ch_cluster_start: no free ports after 3 tries" >&2
	return 1
}

# ch_url i: server i's base URL
ch_url() { echo "http://127.0.0.1:${CH_HTTP[$1]}/"; }

# ch_query i SQL [NAME=VALUE...]: runs SQL on server i through its HTTP
# interface (SQL as the POST body, each NAME=VALUE a setting in the URL);
# the response body on stdout. Nonzero on an HTTP error, with ClickHouse's
# error text (its first line) on stderr. The status code is left in
# $T/ch.code. With CH_AUTH=user:password, HTTP basic auth.
ch_query() {
	local i=$1 sql=$2
	shift 2
	ch_curl "$i" "$sql" --data-binary @- "$@" <<< "$sql"
}

# ch_insert i SQL FILE [NAME=VALUE...]: SQL (INSERT ... FORMAT F) in the
# URL, FILE's bytes as the POST body; otherwise as ch_query.
ch_insert() {
	local i=$1 sql=$2 f=$3
	shift 3
	ch_curl "$i" "$sql" --url-query "query=$sql" --data-binary "@$f" "$@"
}

# (ch_curl i SQL CURL-ARGS... NAME=VALUE...: the common part)
ch_curl() {
	local i=$1 sql=$2 args=() auth=() code rc b=$T/ch.body.$BASHPID
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		--url-query | --data-binary) args+=("$1" "$2"); shift 2 ;;
		*=*) args+=(--url-query "$1"); shift ;;
		*) echo "ch_query: not NAME=VALUE: $1" >&2; return 2 ;;
		esac
	done
	[ -n "${CH_AUTH:-}" ] && auth=(-u "$CH_AUTH")
	code=$(curl -sS -o "$b" -w '%{http_code}' "${auth[@]}" "${args[@]}" \
		"http://127.0.0.1:${CH_HTTP[$i]}/" 2> "$b.curl")
	rc=$?
	echo "$code" > "$T/ch.code"
	if [ "$rc" -ne 0 ]; then
		echo "ch_query $i: curl: $(head -c 300 "$b.curl") (${sql:0:80})" >&2
		rm -f "$b" "$b.curl"
		return 1
	fi
	if [ "$code" != 200 ]; then
		# the message, without its blank lines (a failed distributed
		# query's spans several: one per connection try)
		echo "ch_query $i: HTTP $code: $(grep -v '^[[:space:]]*$' "$b" | head -c 1000)" >&2
		rm -f "$b" "$b.curl"
		return 1
	fi
	cat "$b"
	rm -f "$b" "$b.curl"
}

# ch_stop_all: every server that runs, by PID (SIGTERM, wait)
ch_stop_all() {
	local i
	for ((i = 1; i <= CH_N; i++)); do
		kill -0 "${CH_PID[i]:-0}" 2> /dev/null && ch_stop "$i"
	done
	return 0
}
