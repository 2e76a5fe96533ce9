#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt serve's projects: zt serve project create/list, tokens of one project
# (zt serve token create --project), every read and write of such a token
# kept in its project (lists, merges, discovery, profiles by id, deletes,
# pushes with zt push), tokens of every project choosing one with
# project=, and the store's project label never shown.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
SERVE_LIFETIME=120
cd "$T"

D=$T/store
ADMIN=$("$ZT" serve token create --scope admin --data-dir "$D" 2> tok.err)
"$ZT" serve project create team-a --data-dir "$D" 2> pa.err
check "zt serve project create team-a" [ $? -eq 0 ]
"$ZT" serve project create team-b --data-dir "$D" 2> pb.err
"$ZT" serve project create team-a --data-dir "$D" 2> again.err
check "a project made twice: refused" [ $? -ne 0 ]
check "... saying it exists" grep -q "exists" again.err
"$ZT" serve project create 'Team A' --data-dir "$D" 2> bad.err
check "a bad name: a usage error" [ $? -eq 129 ]
"$ZT" serve token create --scope push,read --project team-c --data-dir "$D" > /dev/null 2> nc.err
check "a token of a project that does not exist: refused" [ $? -ne 0 ]
check "... saying how to make it" grep -q "zt serve project create team-c" nc.err
A=$("$ZT" serve token create --scope push,read --name a --project team-a --data-dir "$D" 2> ta.err)
B=$("$ZT" serve token create --scope push,read --name b --project team-b --data-dir "$D" 2> tb.err)
AADM=$("$ZT" serve token create --scope admin --name a-admin --project team-a --data-dir "$D" 2>> ta.err)
check "tokens of team-a and team-b" [ -n "$A" -a -n "$B" -a -n "$AADM" ]
"$ZT" serve token list --data-dir "$D" > tokens.txt
check "token list shows each token's project" \
	all 'grep -q "^[0-9a-f]\{8\}  a .* team-a " tokens.txt' 'grep -q "admin  *\* " tokens.txt'

"$ZT" record -q -g -o a.data -- "$WL/tree" 1 > /dev/null 2> rec.err
"$ZT" record -q -g -o b.data -- "$WL/hot" > /dev/null 2>> rec.err
serve_start "$D" || { fail "zt serve starts"; finish; }
ZT_TOKEN=$A "$ZT" push -i a.data --server "$SERVE_URL" --label env=prod > pusha.out 2>&1
check "zt push with team-a's token" [ $? -eq 0 ]
ZT_TOKEN=$B "$ZT" push -i b.data --server "$SERVE_URL" --label env=dev > pushb.out 2>&1
check "zt push with team-b's token" [ $? -eq 0 ]
ida=$(sed -n 's/.*stored \([0-9a-f]\{64\}\).*/\1/p' pusha.out)
idb=$(sed -n 's/.*stored \([0-9a-f]\{64\}\).*/\1/p' pushb.out)
check "both ids" [ ${#ida} = 64 -a ${#idb} = 64 ]

TOKEN=$A api GET /api/v1/profiles > la.json
check "team-a lists its profile only" all 'grep -q "$ida" la.json' '! grep -q "$idb" la.json'
check "... and never the store's project label" all '! grep -q "__project__" la.json'
TOKEN=$B api GET /api/v1/profiles > lb.json
check "team-b lists its profile only" all 'grep -q "$idb" lb.json' '! grep -q "$ida" lb.json'
TOKEN=$A api GET "/api/v1/profiles/$idb" > /dev/null
check "team-b's profile by id, with team-a's token: 404" [ "$(code)" = 404 ]
TOKEN=$A api GET "/api/v1/profiles/$ida" > /dev/null
check "its own: 200" [ "$(code)" = 200 ]
TOKEN=$A api GET /api/v1/folded -G --data-urlencode 'query=cpu' > fa.txt
check "team-a's merge has tree, not hot" \
	all '[ -s fa.txt ]' '! grep -q "^hot;" fa.txt'
TOKEN=$A api GET /api/v1/folded -G --data-urlencode project=team-b > /dev/null
check "project=team-b with team-a's token: 403" [ "$(code)" = 403 ]
TOKEN=$A api GET /api/v1/label/env/values > va.json
check "discovery in team-a: env=prod only" grep -q '"data":\["prod"\]' va.json
TOKEN=$A api GET /api/v1/labels > names.json
check "... no project label among the names" all '! grep -q "__project__" names.json'
TOKEN=$ADMIN api GET /api/v1/projects > pl.json
check "/api/v1/projects: every project with its profiles" \
	grep -q '^{"projects":\[{"name":"default","profiles":0},{"name":"team-a","profiles":1},{"name":"team-b","profiles":1}\]}$' pl.json
TOKEN=$A api GET /api/v1/projects > pla.json
check "... a project's token sees its own only" grep -q '^{"projects":\[{"name":"team-a","profiles":1}\]}$' pla.json
TOKEN=$A api GET /metrics > /dev/null
check "the server's metrics with a project's token: 403" [ "$(code)" = 403 ]
TOKEN=$ADMIN api GET /api/v1/profiles > all.json
check "a token of every project lists both" all 'grep -q "$ida" all.json' 'grep -q "$idb" all.json'
TOKEN=$ADMIN api GET /api/v1/profiles -G --data-urlencode project=team-b > onlyb.json
check "... and one with project=" all 'grep -q "$idb" onlyb.json' '! grep -q "$ida" onlyb.json'
TOKEN=$ADMIN api POST '/api/v1/profiles?project=team-z' --data-binary @a.data > /dev/null
check "a push into a project that does not exist: 404" [ "$(code)" = 404 ]
# the same body pushed into team-a and the default project: in both,
# deletable only by a token of every project
"$ZT" record -q -g -o c.data -- "$WL/tree" 1 > /dev/null 2>> rec.err
TOKEN=$A api POST '/api/v1/profiles' --data-binary @c.data > c.json
check "a body pushed by team-a: 201" [ "$(code)" = 201 ]
idc=$(sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p' c.json)
TOKEN=$ADMIN api POST '/api/v1/profiles' --data-binary @c.data > /dev/null
check "the same body into the default project: 200" [ "$(code)" = 200 ]
TOKEN=$ADMIN api GET /api/v1/profiles -G --data-urlencode project=default > def.json
check "... listed in the default project" grep -q "$idc" def.json
TOKEN=$A api GET /api/v1/profiles > la2.json
check "... and in team-a's" grep -q "$idc" la2.json
"$ZT" serve project list --data-dir "$D" > projects.txt
check "project list: default, team-a, team-b with their profiles and tokens" all \
	'grep -q "^default  *1 profiles  *0 tokens" projects.txt' \
	'grep -q "^team-a  *2 profiles  *2 tokens" projects.txt' \
	'grep -q "^team-b  *1 profiles  *1 tokens" projects.txt'
TOKEN=$AADM api DELETE "/api/v1/profiles/$idc" > /dev/null
check "team-a's admin cannot delete a profile also in another project: 409" [ "$(code)" = 409 ]
TOKEN=$AADM api DELETE "/api/v1/profiles/$idb" > /dev/null
check "... nor team-b's: 404" [ "$(code)" = 404 ]
TOKEN=$AADM api DELETE "/api/v1/profiles/$ida" > /dev/null
check "... but its own: 204" [ "$(code)" = 204 ]
TOKEN=$ADMIN api DELETE "/api/v1/profiles/$idc" > /dev/null
check "a token of every project deletes the shared one: 204" [ "$(code)" = 204 ]
serve_stop
finish
