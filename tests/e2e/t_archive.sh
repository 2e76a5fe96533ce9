#!/usr/bin/env bash
# zt archive: the binaries and symbols of a recording (zt's and perf's), packed
# so that zt report, script, annotate and flame on a machine without the
# binary (nor any cache) name its functions and source lines as before; and
# the reader refuses hostile archives (links, paths out, oversized entries).
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir bin src
cat > src/prog.c << 'EOF'
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void arch_leaf(unsigned long n)
{
	unsigned long i, x = 0;
	for (i = 0; i < n; i++)
		x = x * 6364136223846793005ul + i;
	sink = x;
}
int main(int argc, char **argv)
{
	int i, rounds = argc > 1 ? atoi(argv[1]) : 200;
	for (i = 0; i < rounds; i++)
		arch_leaf(1000000);
	return 0;
}
EOF
cc -g -O1 -fno-omit-frame-pointer -o bin/prog src/prog.c || { fail "cc"; finish; }
BID=$("$ZT" buildid bin/prog | awk '{ print $1 }')
# the report's arch_leaf line: "PCT [.] arch_leaf prog.c:7"
leafline() { grep -v '^#' "$1" | grep -m1 -E '\[\.\] +(arch_leaf|\[prog\+)' | awk '{ print $3, $4 }'; }
rep() { # rep OUT ARGS...: zt report --stdio, sym and srcline, with an empty cache and home
	local o=$1
	shift
	rm -rf "$T/empty" && mkdir -p "$T/empty/home" "$T/empty/tmp"
	HOME="$T/empty/home" ZT_CACHE_DIR="$T/empty/cache" TMPDIR="$T/empty/tmp" \
		"$ZT" report --stdio --no-children -g none -F overhead,sym,srcline "$@" > "$o" 2> "$o.err"
}

# ---- zt's recording ------------------------------------------------------
HOME="$T" "$ZT" record -g -o z.data -- ./bin/prog 200 2> rec.err
check "record exits 0" [ $? -eq 0 ]
rep before.txt -i z.data
check "before: arch_leaf at prog.c:7 with the binary here" [ "$(leafline before.txt)" = "arch_leaf prog.c:7" ]
HOME="$T" "$ZT" archive -i z.data > arch.out 2> arch.err
check "zt archive exits 0" [ $? -eq 0 ]
check "it wrote z.data.archive, mode 0600" [ "$(stat -c %a z.data.archive 2> /dev/null)" = 600 ]
check "it says what to do on the other machine" contains arch.out 'zt report -i z.data --archive z.data.archive'
if command -v zstd > /dev/null; then
	tar --zstd -tf z.data.archive > list.txt
	check "a zstd tar with the binary by build id" grep -qx "buildid/${BID:0:2}/${BID:2}/elf" list.txt
	check "... and its GSYM table" grep -qx "gsym/$BID.gsym" list.txt
	check "... and a MANIFEST naming it" \
		bash -c "tar --zstd -xOf z.data.archive MANIFEST | grep -q '^$BID elf full .*/bin/prog$'"
else
	skip "no zstd tool: the archive's listing is not checked"
fi

mv bin/prog bin/prog.gone # the other machine: no binary, no cache, no ~/.debug
rep auto.txt -i z.data
check "without the binary, z.data.archive next to it is used" [ "$(leafline auto.txt)" = "$(leafline before.txt)" ]
check "... and said so" contains auto.txt.err "binaries and symbols from the zt archive 'z.data.archive'"
check "... and its unpacked files are gone after" [ -z "$(ls -A "$T/empty/tmp")" ]
rep none.txt -i z.data --no-archive
check "--no-archive: arch_leaf is not named" [ "$(leafline none.txt | cut -d' ' -f1 | grep -c arch_leaf)" = 0 ]
check "--no-archive: module+offset shown" contains none.txt '\[prog\+0x[0-9a-f]+\]'
mkdir other && mv z.data.archive other/packed.zt
rep none2.txt -i z.data
check "archive moved away: not named" [ "$(leafline none2.txt | cut -d' ' -f1 | grep -c arch_leaf)" = 0 ]
rep named.txt -i z.data --archive other/packed.zt
check "--archive FILE: named as before" [ "$(leafline named.txt)" = "$(leafline before.txt)" ]
if command -v zstd > /dev/null; then
	mkdir unpacked && tar --zstd -xf other/packed.zt -C unpacked
	rep dir.txt -i z.data --archive unpacked
	check "--archive DIR (unpacked with tar): named as before" [ "$(leafline dir.txt)" = "$(leafline before.txt)" ]
fi
HOME="$T/empty/home" ZT_CACHE_DIR="$T/empty/c2" "$ZT" script -i z.data --archive other/packed.zt \
	-F ip,sym,srcline > script.txt 2> script.err
check "zt script --archive: arch_leaf and prog.c:7" bash -c "grep -A1 -m1 'arch_leaf\$' script.txt | grep -q 'prog.c:7'"
HOME="$T/empty/home" ZT_CACHE_DIR="$T/empty/c3" "$ZT" annotate -i z.data --archive other/packed.zt \
	--stdio arch_leaf > ann.txt 2> ann.err
check "zt annotate --archive: the binary's instructions from the archive" \
	bash -c "grep -qE '^ +[0-9.]+ : +[0-9a-f]+: +(imul|add) ' ann.txt"
HOME="$T/empty/home" ZT_CACHE_DIR="$T/empty/c4" "$ZT" flame -i z.data --archive other/packed.zt \
	-o f.svg 2> flame.err
check "zt flame --archive: arch_leaf in the graph" grep -q arch_leaf f.svg
mv bin/prog.gone bin/prog

# ---- perf's recording ----------------------------------------------------
mkdir -p phome
for i in 1 2 3 4 5; do
	HOME="$T/phome" perf record -B --buildid-mmap -e cpu-clock -F 1999 -g -o p.data -- ./bin/prog 200 \
		> /dev/null 2>&1 && break
	rm -f p.data
done
if [ ! -s p.data ]; then
	skip "perf record failed 5 times: reference unavailable"
else
	rep pbefore.txt -i p.data
	pref=$(HOME="$T/phome" perf_retry report -i p.data --stdio --no-children -g none \
		-F overhead,sym,srcline | grep -v '^#' | grep -m1 '\[\.\]' | awk '{ print $3, $4 }')
	if [ -n "$pref" ]; then
		check "perf.data before: zt names the top function as perf does" \
			[ "$(leafline pbefore.txt)" = "$pref" ]
	else
		skip "perf report failed: reference unavailable"
	fi
	check "perf.data before: arch_leaf at prog.c:7" [ "$(leafline pbefore.txt)" = "arch_leaf prog.c:7" ]
	"$ZT" archive -i p.data -o p.zta > parch.out 2> parch.err
	rc=$?
	check "zt archive -i perf.data -o FILE exits 0" [ "$rc" = 0 ]
	check "... and wrote FILE" [ -s p.zta ]
	mv bin/prog bin/prog.gone
	rep pnone.txt -i p.data
	check "perf.data without binary or archive: not named" \
		[ "$(leafline pnone.txt | cut -d' ' -f1 | grep -c arch_leaf)" = 0 ]
	rep pafter.txt -i p.data --archive p.zta
	check "perf.data with the archive: named as before" [ "$(leafline pafter.txt)" = "$(leafline pbefore.txt)" ]
	mv bin/prog.gone bin/prog
fi

# ---- the output file ------------------------------------------------------
ln -s /etc/passwd-zt-nonexistent link.archive
"$ZT" archive -i z.data -o link.archive > /dev/null 2> link.err
rc=$?
check "output through a symlink refused" [ "$rc" != 0 ]
check "... the link left as it was" [ -L link.archive ]
check "... nothing made where it points" [ ! -e /etc/passwd-zt-nonexistent ]
"$ZT" archive -i z.data -o again.zta > /dev/null 2> again.err && "$ZT" archive -i z.data -o again.zta > /dev/null 2>> again.err
check "an existing archive becomes FILE.old" [ -s again.zta.old ]
check "... and FILE the new one" [ -s again.zta ]
"$ZT" archive z.data -o positional.zta > /dev/null 2> positional.err
check "the recording named without -i, as perf archive takes it" [ -s positional.zta ]

# ---- hostile archives -----------------------------------------------------
mkdir hostile
python3 - "$T/hostile" << 'EOF'
import io, sys, tarfile
d = sys.argv[1]
def mk(name, entries):
    with tarfile.open(f"{d}/{name}", "w", format=tarfile.PAX_FORMAT) as t:
        for e in entries:
            ti = tarfile.TarInfo(e[0])
            kind = e[1]
            if kind == "file":
                data = e[2]
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
            elif kind == "sym":
                ti.type, ti.linkname = tarfile.SYMTYPE, e[2]
                t.addfile(ti)
            elif kind == "hard":
                ti.type, ti.linkname = tarfile.LNKTYPE, e[2]
                t.addfile(ti)
            elif kind == "fifo":
                ti.type = tarfile.FIFOTYPE
                t.addfile(ti)
ok = ("README", "file", b"hello\n")
mk("dotdot.tar", [ok, ("gsym/../../../escaped", "file", b"x")])
mk("abs.tar", [ok, ("/tmp/zt-archive-abs-escape", "file", b"x")])
mk("symlink.tar", [ok, ("gsym", "sym", "/")])
mk("symlink2.tar", [ok, ("gsym/ab.gsym", "sym", "/etc/passwd")])
mk("hardlink.tar", [ok, ("gsym/ab.meta", "hard", "README")])
mk("fifo.tar", [ok, ("gsym/ab.gsym", "fifo")])
mk("twice.tar", [ok, ("gsym/ab.meta", "file", b"a"), ("gsym/ab.meta", "file", b"b")])
mk("big.tar", [("README", "file", b"x" * (2 << 20))])
mk("empty.tar", [("unrelated.txt", "file", b"x")])
EOF
for f in dotdot abs symlink symlink2 hardlink fifo twice big empty; do
	rep "h-$f.txt" -i z.data --archive "hostile/$f.tar"
	rc=$?
	check "hostile $f: refused with exit 1" [ "$rc" = 1 ]
	check "hostile $f: a clear message" contains "h-$f.txt.err" "^zt report: cannot use the zt archive 'hostile/$f.tar': ."
	check "hostile $f: nothing left unpacked" [ -z "$(ls -A "$T/empty/tmp")" ]
done
check "nothing escaped ('..')" [ ! -e "$T/escaped" ]
check "nothing escaped (absolute name)" [ ! -e /tmp/zt-archive-abs-escape ]
check "'..' named as reaching out" contains h-dotdot.txt.err 'reaches outside'
check "a link named as one" contains h-symlink2.txt.err 'link or a special file'
check "the size cap named" contains h-big.txt.err 'larger than zt reads'
head -c 3000 other/packed.zt > hostile/cut.zta
rep h-cut.txt -i z.data --archive hostile/cut.zta
check "truncated archive: exit 1" [ $? = 1 ]
check "truncated archive: a message" contains h-cut.txt.err "cannot use the zt archive"
cp z.data hostile/notar.zta
rep h-notar.txt -i z.data --archive hostile/notar.zta
check "not an archive: exit 1" [ $? = 1 ]
check "not an archive: a message" contains h-notar.txt.err "cannot use the zt archive"
# a GSYM table under another module's build id is not used for it
if command -v zstd > /dev/null; then
	mkdir swap && tar --zstd -xf other/packed.zt -C swap
	other=$(ls swap/gsym/*.gsym | grep -v "$BID" | head -1)
	cp "$other" "swap/gsym/$BID.gsym"
	mv bin/prog bin/prog.gone
	rm -f "swap/buildid/${BID:0:2}/${BID:2}/elf"
	rep swap.txt -i z.data --archive swap
	check "a GSYM table marked with another build id is not used" \
		[ "$(leafline swap.txt | cut -d' ' -f1 | grep -c arch_leaf)" = 0 ]
	mv bin/prog.gone bin/prog
fi
finish
