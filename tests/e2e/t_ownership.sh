#!/usr/bin/env bash
# Started through sudo, the output file belongs to the invoking user.
. "$(dirname "$0")/lib.sh"
cd "$T"
chmod 777 "$T"
# sudo sets SUDO_UID/SUDO_GID; zt gives the file to that user
env SUDO_UID=65534 SUDO_GID=65534 SUDO_USER=nobody "$ZT" record -q -o s.data -- "$WL/hot" hot 0.3
check "record exits 0" [ $? -eq 0 ]
check "file owned by the sudo user" [ "$(stat -c %u:%g s.data)" = 65534:65534 ]
"$ZT" record -q -o r.data -- "$WL/hot" hot 0.3
check "without sudo: owned by root" [ "$(stat -c %u r.data)" = 0 ]
finish
