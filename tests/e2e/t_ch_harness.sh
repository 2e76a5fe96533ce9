#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The ClickHouse test harness itself (tests/e2e/chlib.sh), on Debian's
# clickhouse-server 18.16: two private servers on loopback in cluster `zt`,
# a MergeTree table on each shard and a Distributed table over them on
# each server. Rows inserted through one server (RowBinary, synchronously)
# are read back through the other; with a shard stopped a distributed read
# fails with ClickHouse's error, and after a restart on the same ports and
# data directory the rows are all there again. Only 127.0.0.1 listens.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/chlib.sh"
if ! why=$(ch_available); then
	skip "$why: ClickHouse harness not tested"
	finish
fi

s=$(date +%s%N)
if ! ch_cluster_start 2; then
	fail "two ClickHouse servers come up"
	finish
fi
ok "two ClickHouse servers come up"
echo "  (cluster up in $(( ($(date +%s%N) - s) / 1000000 )) ms: $CH_URLS)"
check "version 18.16 or later answers" eval 'ch_query 1 "SELECT version()" | grep -qE "^[0-9]+\.[0-9]+"'
check "cluster zt: 2 shards, as seen by server 2" \
	eval '[ "$(ch_query 2 "SELECT count() FROM system.clusters WHERE cluster = '\''zt'\''")" = 2 ]'

# ss: every listening socket of the servers is on 127.0.0.1, three each
listeners() {
	local p
	for p in $CH_PIDS; do
		ss -Htlnp | grep "pid=$p,"
	done | awk '{ print $4 }'
}
listeners > "$T/listen"
sed 's/^/    /' "$T/listen"
check "6 listening sockets, all on 127.0.0.1" \
	eval '[ "$(wc -l < "$T/listen")" -eq 6 ] && ! grep -qv "^127\.0\.0\.1:" "$T/listen"'

# the schema: local tables on each shard, a Distributed table on each server
for i in 1 2; do
	ch_query "$i" "CREATE DATABASE IF NOT EXISTS zt" &&
	ch_query "$i" "CREATE TABLE IF NOT EXISTS zt.samples_local (day Date, profile String,
		ingest UInt64, stack UInt64, count UInt64, weight UInt64) ENGINE = MergeTree()
		PARTITION BY toYYYYMMDD(day) ORDER BY (profile, stack)" &&
	ch_query "$i" "CREATE TABLE IF NOT EXISTS zt.samples AS zt.samples_local
		ENGINE = Distributed(zt, zt, samples_local, sipHash64(profile))"
	check "server $i: database, local and Distributed tables created" [ $? -eq 0 ]
done

# 20 profiles of 3 stacks each (weights 1..60), made RowBinary by
# clickhouse/rowbinary.py
RB=$(dirname "$0")/clickhouse/rowbinary.py
for p in $(seq -w 0 19); do
	for st in 0 1 2; do
		printf '2026-11-01\tprofile-%s\t1\t%d\t1\t%d\n' "$p" "$st" $((10#$p * 3 + st + 1))
	done
done > "$T/rows.tsv"
python3 "$RB" Date,String,UInt64,UInt64,UInt64,UInt64 < "$T/rows.tsv" > "$T/rows.bin"
check "an insert through server 1 (insert_distributed_sync=1)" \
	ch_insert 1 "INSERT INTO zt.samples FORMAT RowBinary" "$T/rows.bin" insert_distributed_sync=1
check "read through server 2: all 60 rows, weights 1..60" \
	eval '[ "$(ch_query 2 "SELECT count(), sum(weight), min(day) FROM zt.samples FORMAT TSV")" = "$(printf "60\t1830\t2026-11-01")" ]'
check "the rows read back as TSV are the rows written" \
	eval 'ch_query 2 "SELECT * FROM zt.samples ORDER BY profile, stack FORMAT TSV" | cmp -s - "$T/rows.tsv"'
# RowBinary of DateTime, arrays and escapes, round trip on one server
printf '%s\t%s\t%s\t%s\n' '2026-11-18 11:06:40' 'a\tb\\c\nd é' "['k','it\\'s']" '[1,18446744073709551615]' \
	'1970-01-01 00:00:01' '' '[]' '[]' > "$T/kinds.tsv"
python3 "$RB" 'DateTime,String,Array(String),Array(UInt64)' < "$T/kinds.tsv" > "$T/kinds.bin"
ch_query 1 "CREATE TABLE zt.kinds (t DateTime, s String, a Array(String), n Array(UInt64))
	ENGINE = MergeTree() ORDER BY t" &&
	ch_insert 1 "INSERT INTO zt.kinds FORMAT RowBinary" "$T/kinds.bin" &&
	ch_query 1 "SELECT * FROM zt.kinds ORDER BY t DESC FORMAT TSV" > "$T/kinds.out"
check "RowBinary of DateTime, String, Arrays: the same rows back in TSV" cmp "$T/kinds.tsv" "$T/kinds.out"
n1=$(ch_query 1 "SELECT count() FROM zt.samples_local")
n2=$(ch_query 2 "SELECT count() FROM zt.samples_local")
echo "  (rows per shard: $n1 + $n2)"
check "both shards hold rows, 60 in all" eval '[ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] && [ $((n1 + n2)) -eq 60 ]'

# credentials: user zt has a password, default has none
check "user zt with its password (basic auth)" \
	eval '[ "$(CH_AUTH=zt:zt-secret ch_query 2 "SELECT count() FROM zt.samples")" = 60 ]'
CH_AUTH=zt:wrong ch_query 1 "SELECT 1" > /dev/null 2> "$T/auth.out"
check "a wrong password: HTTP 401, ClickHouse's message" \
	eval '[ "$(cat "$T/ch.code")" = 401 ] && grep -q "Wrong password for user zt" "$T/auth.out"'
ch_query 1 "SELECT nosuch" > /dev/null 2> "$T/bad.out"
rc=$?
check "a bad query: nonzero, ClickHouse's message on stderr" \
	eval '[ $rc -ne 0 ] && grep -q "^ch_query 1: HTTP 404: Code: 47, .*Unknown identifier: nosuch" "$T/bad.out"'

# a shard down: the distributed read fails, naming the shard
s=$(date +%s%N)
ch_stop 2
check "server 2: SIGTERM, a clean exit ($?)" [ $? -eq 0 ]
echo "  (stopped in $(( ($(date +%s%N) - s) / 1000000 )) ms)"
check "server 2's ports closed" eval '! curl -s "$(ch_url 2)ping" > /dev/null'
ch_query 1 "SELECT count() FROM zt.samples" > "$T/down.out" 2> "$T/down.err"
rc=$?
sed 's/^/    /' "$T/down.err"
check "shard down: the distributed read fails (HTTP $(cat "$T/ch.code"))" \
	eval '[ $rc -ne 0 ] && [ "$(cat "$T/ch.code")" = 500 ] && [ ! -s "$T/down.out" ]'
check "... with Code: 279, All connection tries failed" \
	grep -q "Code: 279, e.displayText() = DB::NetException: All connection tries failed" "$T/down.err"
check "... naming the shard: Connection refused (127.0.0.1:${CH_TCP[2]})" \
	grep -qF "Connection refused (127.0.0.1:${CH_TCP[2]})" "$T/down.err"
check "skip_unavailable_shards=1: server 1's own rows ($n1)" \
	eval '[ "$(ch_query 1 "SELECT count() FROM zt.samples" skip_unavailable_shards=1)" = "$n1" ]'

s=$(date +%s%N)
ch_start 2
check "server 2 restarts on its ports and data directory" [ $? -eq 0 ]
echo "  (restarted in $(( ($(date +%s%N) - s) / 1000000 )) ms)"
check "after the restart: all 60 rows through server 1" \
	eval '[ "$(ch_query 1 "SELECT count(), sum(weight) FROM zt.samples FORMAT TSV")" = "$(printf "60\t1830")" ]'
check "... and through server 2" \
	eval '[ "$(ch_query 2 "SELECT count() FROM zt.samples")" = 60 ]'
listeners > "$T/listen2"
check "after the restart: again 6 listeners, all on 127.0.0.1" \
	eval '[ "$(wc -l < "$T/listen2")" -eq 6 ] && ! grep -qv "^127\.0\.0\.1:" "$T/listen2"'

s=$(date +%s%N)
ch_stop_all
check "both servers stop by PID" eval '! kill -0 ${CH_PID[1]} 2> /dev/null && ! kill -0 ${CH_PID[2]} 2> /dev/null'
echo "  (both stopped in $(( ($(date +%s%N) - s) / 1000000 )) ms)"

# the watchdog: a server stops by itself after CH_LIFETIME seconds
CH_LIFETIME=2 ch_cluster_start 1
check "a 1-server cluster with a 2 s lifetime comes up" [ $? -eq 0 ]
check "... and is gone within 10 s, by itself" ch_wait_gone 1 10
finish
