#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt symbols upload of Debian debug packages (issue 37): a -dbgsym package
# made here with dpkg-deb, as dh_strip makes them (the debug files of a
# program and of the shared library it links, by build id, nowhere on this
# machine otherwise), and Debian's own libc6-dbg when apt can download it,
# go to a local zt serve from a folder of packages in one command; the
# stripped program's recording is then named with file:line through
# --symdb; a second run skips what the server has; a damaged package is
# named and the others still go.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
SERVE_LIFETIME=240
cd "$T"
export XDG_CONFIG_HOME="$T/config"
command -v dpkg-deb > /dev/null || { skip "no dpkg-deb"; finish; }

# ---- a program and its library, their debug files in a package only --------
mkdir -p src bin
cat > src/lib.c << 'EOF'
__attribute__((noinline)) unsigned long zt_deb_lib_work(unsigned long x)
{
	for (int i = 0; i < 5000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}
EOF
cat > src/main.c << 'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
unsigned long zt_deb_lib_work(unsigned long x);
__attribute__((noinline)) unsigned long zt_deb_main_loop(double secs)
{
	struct timespec a, b;
	unsigned long x = 1;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		x = zt_deb_lib_work(x);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return x;
}
int main(int argc, char **argv)
{
	printf("%lu\n", zt_deb_main_loop(argc > 1 ? atof(argv[1]) : 1) & 1);
	return 0;
}
EOF
(cd src && gcc -O2 -g -fPIC -shared -Wl,--build-id=sha1 -o ../bin/libztdeb.so lib.c &&
	gcc -O2 -g -Wl,--build-id=sha1 -o ../bin/ztdeb main.c -L../bin -lztdeb -Wl,-rpath,"$T/bin") ||
	{ fail "build the program"; finish; }
mkdir -p pkg/DEBIAN
for f in bin/ztdeb bin/libztdeb.so; do
	id=$("$ZT" buildid "$f" | awk '{ print $1 }')
	mkdir -p "pkg/usr/lib/debug/.build-id/${id:0:2}"
	objcopy --only-keep-debug "$f" "pkg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
	strip --strip-debug --strip-unneeded "$f" # what the machine runs: no symbols, no lines
done
printf 'Package: ztdeb-dbgsym\nVersion: 1\nArchitecture: amd64\nMaintainer: zt <zt@example.org>\nDescription: debug symbols\n' \
	> pkg/DEBIAN/control
mkdir -p debs
dpkg-deb -Zxz --root-owner-group -b pkg debs/ztdeb-dbgsym_1_amd64.ddeb > /dev/null ||
	{ fail "dpkg-deb"; finish; }
head -c 3000 debs/ztdeb-dbgsym_1_amd64.ddeb > debs/broken_1_amd64.deb
echo "not a package" > debs/README
libc=
if (cd debs && timeout 60 apt-get download libc6-dbg > ../apt.out 2>&1); then
	libc=$(ls debs/libc6-dbg_*.deb 2> /dev/null | head -n 1)
fi

# ---- the recording, on a machine without those debug files -----------------
"$ZT" record -q -g -o deb.data -- bin/ztdeb 1 > rec.out 2> rec.err
"$ZT" report -i deb.data --stdio --no-children --sort sym,srcline -g none > nosym.rep 2> nosym.err
check "without the packages: no file:line for zt_deb_lib_work" \
	bash -c '! grep -qE "zt_deb_lib_work +lib.c:[0-9]+" nosym.rep'

# ---- one command fills the server from the folder -------------------------
D=$T/data
SYM=$("$ZT" serve token create --scope symbols --data-dir "$D" 2> tok.err)
READ=$("$ZT" serve token create --scope read --data-dir "$D" 2>> tok.err)
serve_start "$D" || { fail "zt serve starts"; finish; }
"$ZT" symbols upload --server "$SERVE_URL" --token "$SYM" debs > up1.out 2> up1.err
rc=$?
check "upload of the folder: exit 1 (the broken package failed), the others went" [ "$rc" -eq 1 ]
check "the broken package is named with why" grep -q 'broken_1_amd64.deb: .*not a Debian package\|broken_1_amd64.deb: .*damaged' up1.err
check "the summary counts the program's and the library's debug files as uploaded" \
	grep -qE '^zt symbols: ([2-9]|[1-9][0-9]+) uploaded' up1.err
for f in bin/ztdeb bin/libztdeb.so; do
	id=$("$ZT" buildid "$f" | awk '{ print $1 }')
	TOKEN=$READ api HEAD "/api/v1/symbols/$id" -I > head.txt
	check "the server has $(basename "$f")'s symbols, full" \
		all '[ "$(code)" = 200 ]' 'grep -qi "^x-zt-symbol-quality: full" head.txt'
done
if [ -n "$libc" ]; then
	lid=$("$ZT" buildid /lib/x86_64-linux-gnu/libc.so.6 | awk '{ print $1 }')
	TOKEN=$READ api HEAD "/api/v1/symbols/$lid" -I > headc.txt
	check "libc6-dbg ($(basename "$libc")): the server has this machine's libc.so.6's symbols, full" \
		all '[ "$(code)" = 200 ]' 'grep -qi "^x-zt-symbol-quality: full" headc.txt'
else
	skip "apt-get download libc6-dbg failed here ($(tail -n 1 apt.out)): Debian's own package not tried"
fi
ZT_TOKEN=$READ ZT_CACHE_DIR=$T/c1 "$ZT" report -i deb.data --stdio --no-children --sort sym,srcline \
	-g none --symdb "$SERVE_URL" > db.rep 2> db.err
check "report --symdb: zt_deb_lib_work with lib.c:line, zt_deb_main_loop with main.c:line" \
	all 'grep -qE "zt_deb_lib_work +lib.c:[0-9]+" db.rep' 'grep -qE "zt_deb_main_loop +main.c:[0-9]+" db.rep'

# ---- again: what the server has is skipped ----------------------------------
"$ZT" symbols upload --server "$SERVE_URL" --token "$SYM" debs/ztdeb-dbgsym_1_amd64.ddeb \
	> up2.out 2> up2.err
rc=$?
check "a second upload of the package skips both files (exit 0)" \
	all '[ "$rc" -eq 0 ]' 'grep -qE "^zt symbols: 0 uploaded .*, 2 skipped, 0 failed" up2.err'
serve_stop
finish
