#!/usr/bin/env bash
# zt push against a real zt serve on loopback:
# - a -g recording and a --call-graph dwarf one are stored and symbolized on
#   the server, including a program built here whose symbols only the pusher
#   had (the binary is gone before the server is asked);
# - the same push again: "already stored", the same id; with other labels:
#   they are added (a key pushed with another value keeps both);
# - a wrong token: exit 3 with the server's reason; the server down: exit 4
#   after the retries; the token never shows in ps;
# - the configuration file: used at mode 0600, refused at 0644.
src=$(cd "$(dirname "$0")/../data/serve" && pwd)/hot.c
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
cd "$T"
D=$T/data

# a program only this side has, with a hot function of a unique name
mkdir -p bin
cc -O1 -g -fno-omit-frame-pointer -DHOT=zt_only_the_pusher_knows -Wl,--build-id=sha1 -o bin/only \
	"$src" || fail "build hot.c"
only_id=$("$ZT" buildid bin/only 2> /dev/null | awk '{print $1; exit}')

"$ZT" record -q -g -o fp.data -- bin/only 2> rec-fp.err
check "zt record -g" [ $? -eq 0 ]
"$ZT" record -q -F 499 --call-graph dwarf -o dw.data -- "$WL/nofp" chain 1 2> rec-dw.err
check "zt record --call-graph dwarf" [ $? -eq 0 ]

PUSH=$("$ZT" serve token create --scope push --data-dir "$D" 2> tok.err)
READ=$("$ZT" serve token create --scope read --data-dir "$D" 2>> tok.err)
check "tokens are created" [ ${#PUSH} -ge 32 -a ${#READ} -ge 32 ]
serve_start "$D" || { fail "zt serve starts"; finish; }

# ---- a -g recording, with symbols only the pusher has ------------------------
# the symbol cache warm with the binary's symbols, then the binary gone:
# whatever the server shows of it came through zt push
"$ZT" report --stdio -i fp.data > fp.rep 2> /dev/null
mv bin/only bin/only.gone
ZT_TOKEN=$PUSH "$ZT" push -i fp.data --server "$SERVE_URL" --label test=fp --label run=1 \
	> push1.out 2> push1.err
check "push: exit 0" [ $? -eq 0 ]
check "push: one line, stored ID (N samples) on URL" \
	grep -qE "^zt push: stored [0-9a-f]{64} \([0-9]+ samples\) on $SERVE_URL\$" push1.out
id1=$(sed -n 's/^zt push: stored \([0-9a-f]*\) .*/\1/p' push1.out)
n1=$(sed -n 's/.* (\([0-9]*\) samples).*/\1/p' push1.out)
TOKEN=$READ api GET "/api/v1/profiles?label=test=fp" > list1.json
check "listed by its label ($(code))" grep -q "\"id\":\"$id1\"" list1.json
TOKEN=$READ api GET "/api/v1/profiles/$id1" > one.json
check "the profile is there ($(code))" [ "$(code)" = 200 ]
check "... with its samples" grep -q "\"samples\":$n1" one.json
check "... and its labels" grep -q '"run":"1"' one.json
if [ -n "$only_id" ]; then
	c=$(curl -s -I -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $PUSH" \
		"$SERVE_URL/api/v1/symbols/$only_id")
	check "the server has the symbols of the pusher's binary ($c)" [ "$c" = 200 ]
fi
TOKEN=$READ api GET "/api/v1/top?id=$id1&limit=20" > top1.json
check "symbolized on the server: the pusher's function" grep -q 'zt_only_the_pusher_knows' top1.json
check "... and libc's or the kernel's frames have names too" \
	grep -qE '"name":"(main|__libc_start_call_main|[a-z_]+)"' top1.json

# ---- the same again ------------------------------------------------------------
ZT_TOKEN=$PUSH "$ZT" push -i fp.data --server "$SERVE_URL" --label test=fp --label run=1 \
	> push2.out 2> push2.err
check "the same push again: exit 0" [ $? -eq 0 ]
check "... already stored, the same id" grep -qx "zt push: already stored: $id1" push2.out

# ---- the same again with other labels: the union kept --------------------------
ZT_TOKEN=$PUSH "$ZT" push -i fp.data --server "$SERVE_URL" --label test=fp --label env=b \
	> push5.out 2> push5.err
check "a re-push with a new label: exit 0" [ $? -eq 0 ]
check "... already stored, the label added" grep -qx "zt push: already stored: $id1 (labels added: 1)" push5.out
TOKEN=$READ api GET "/api/v1/profiles/$id1" > one5.json
check "... the first push's labels kept" bash -c "grep -q '\"run\":\"1\"' one5.json && grep -q '\"test\":\"fp\"' one5.json"
check "... and the new one there" grep -q '"env":"b"' one5.json
TOKEN=$READ api GET "/api/v1/profiles?label=env=b&label=run=1" > list5.json
check "... selected by labels of both pushes" grep -q "\"id\":\"$id1\"" list5.json
ZT_TOKEN=$PUSH "$ZT" push -i fp.data --server "$SERVE_URL" --label env=c > push6.out 2> push6.err
check "a re-push with another value of that key: exit 0, added" \
	grep -qx "zt push: already stored: $id1 (labels added: 1)" push6.out
TOKEN=$READ api GET "/api/v1/profiles/$id1" > one6.json
check "... the key has both values" grep -q '"env":\["b","c"\]' one6.json
TOKEN=$READ api GET "/api/v1/profiles?label=env=c" > list6c.json
TOKEN=$READ api GET "/api/v1/profiles?label=env=b" > list6b.json
check "... each of them selects it" bash -c "grep -q '$id1' list6c.json && grep -q '$id1' list6b.json"
ZT_TOKEN=$PUSH "$ZT" push -i fp.data --server "$SERVE_URL" --label env=b > push7.out 2> push7.err
check "a re-push with labels it has: nothing added" grep -qx "zt push: already stored: $id1" push7.out
mv bin/only.gone bin/only

# ---- two events: one profile each, as the server keeps one event a profile ----
"$ZT" record -q -e cpu-clock -e page-faults -o ev2.data -- "$WL/hot" hot 0.3 2> rec-ev2.err
ZT_TOKEN=$PUSH "$ZT" push -i ev2.data --server "$SERVE_URL" --label test=ev2 > push4.out 2> push4.err
check "two events: exit 0, two profiles stored" \
	bash -c "[ \$(grep -cE '^zt push: stored [0-9a-f]{64} ' push4.out) -eq 2 ]"
check "... and said so" grep -q "has 2 events (cpu-clock, page-faults): each goes as a profile" push4.err
TOKEN=$READ api GET "/api/v1/profiles?label=test=ev2" > ev2.json
check "... listed with their events" \
	bash -c "grep -q '\"event\":\"cpu-clock\"' ev2.json && grep -q '\"event\":\"page-faults\"' ev2.json"
nc=$("$ZT" script -i ev2.data --event cpu-clock 2> /dev/null | grep -c .)
check "... the cpu-clock one with that event's samples alone ($nc)" \
	grep -q "^zt push: stored [0-9a-f]* ($nc samples)" push4.out
TOKEN=$PUSH api POST /api/v1/profiles --data-binary @ev2.data > ev2raw.json
check "the two-event file itself, posted: its first event's samples alone ($(code))" \
	grep -q "\"samples\":$nc[,}]" ev2raw.json

# ---- --call-graph dwarf: unwound here --------------------------------------------
ZT_TOKEN=$PUSH "$ZT" push -v -i dw.data --server "$SERVE_URL" --label test=dwarf > push3.out 2> push3.err
check "dwarf recording pushed: exit 0" [ $? -eq 0 ]
id3=$(sed -n 's/^zt push: stored \([0-9a-f]*\) .*/\1/p' push3.out)
check "... stored" [ -n "$id3" ]
TOKEN=$READ api GET "/api/v1/folded?id=$id3" > dw.folded
check "... and its stacks unwound: nf_outer;nf_middle;nf_inner;nf_leaf" \
	grep -q 'nf_outer;nf_middle;nf_inner;nf_leaf' dw.folded
check "... not a stack copy on the server (no snapshot refused)" [ "$(code)" = 200 ]
cp "$D"/profiles/*/"$id3".zt stored3.zt 2> /dev/null
if [ -s stored3.zt ]; then
	"$ZT" script --folded -i stored3.zt > stored3.folded 2> stored3.err
	check "the stored body reads as a zt.data with whole chains" \
		grep -q 'nf_outer;nf_middle;nf_inner;nf_leaf' stored3.folded
fi

# ---- refusals ------------------------------------------------------------------------
ZT_TOKEN=not-a-token "$ZT" push -i fp.data --server "$SERVE_URL" > bad.out 2> bad.err
check "a wrong token: exit 3" [ $? -eq 3 ]
check "... with the server's reason" grep -q 'zt push: the server refused' bad.err
ZT_TOKEN=$READ "$ZT" push -i fp.data --server "$SERVE_URL" --no-symbols > scope.out 2> scope.err
check "a token without the push scope: exit 3" [ $? -eq 3 ]
env -u ZT_SERVER XDG_CONFIG_HOME=$T/none "$ZT" push -i fp.data > noserver.out 2> noserver.err
check "no server given: a usage error" [ $? -eq 129 ]
"$ZT" push -i missing.data --server "$SERVE_URL" --token x > missing.out 2> missing.err
check "a recording that is not there: exit 1" [ $? -eq 1 ]

# ---- the configuration file ------------------------------------------------------------
mkdir -p xdg/zt
printf 'server = %s\ntoken = %s\n' "$SERVE_URL" "$PUSH" > xdg/zt/config
chmod 644 xdg/zt/config
env -u ZT_TOKEN -u ZT_SERVER XDG_CONFIG_HOME=$T/xdg "$ZT" push -i fp.data > cfg1.out 2> cfg1.err
check "config at mode 0644: refused (exit 1)" [ $? -eq 1 ]
check "... saying chmod 600" grep -q 'chmod 600' cfg1.err
check "... and not showing the token" sh -c "! grep -q '$PUSH' cfg1.err"
chmod 600 xdg/zt/config
env -u ZT_TOKEN -u ZT_SERVER XDG_CONFIG_HOME=$T/xdg "$ZT" push -i fp.data > cfg2.out 2> cfg2.err
check "config at mode 0600: used (exit 0)" [ $? -eq 0 ]
check "... already stored: $id1" grep -qx "zt push: already stored: $id1" cfg2.out

# ---- the server down -----------------------------------------------------------------------
serve_stop
# --token on the command line: never in ps while zt push retries
start=$(date +%s)
"$ZT" push -v -i fp.data --server "$SERVE_URL" --token "$PUSH" --retries 3 > down.out 2> down.err &
pp=$!
bgpids+=("$pp")
seen=0
for i in $(seq 20); do
	sleep 0.1
	kill -0 "$pp" 2> /dev/null || break
	ps -p "$pp" -o args= | grep -q -- "$PUSH" && seen=1
	tr '\0' ' ' < "/proc/$pp/cmdline" 2> /dev/null | grep -q -- "$PUSH" && seen=1
done
wait "$pp"
rc=$?
check "the server down: exit 4" [ $rc -eq 4 ]
check "... after 3 retries" [ "$(grep -c 'trying again' down.err)" -eq 3 ]
check "... which took the backoff's time" [ $(( $(date +%s) - start )) -ge 1 ]
check "the token was never in ps" [ $seen -eq 0 ]
check "... nor in the messages" sh -c "! grep -q '$PUSH' down.err down.out"
finish
