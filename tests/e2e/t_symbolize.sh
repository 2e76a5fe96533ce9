#!/usr/bin/env bash
# zt symbolize against addr2line and llvm-symbolizer; debug files; the GSYM cache; zt buildid, zt symbols.
src=$(cd "$(dirname "$0")/../data/symbolize" && pwd)/inl.c
. "$(dirname "$0")/lib.sh"
cd "$T"
gcc -O2 -g -o inl "$src" || fail "compile fixture"
# every 2nd byte of every function of the fixture
addrs() { nm -S --defined-only "$1" | awk '$3 ~ /^[tT]$/ && NF == 4 { print $1, $2, $4 }' |
	while read -r a s n; do
		for ((o = 0; o < 16#$s; o += 2)); do printf '0x%x\n' $((16#$a + o)); done
	done; }
addrs inl > addrs
n=$(wc -l < addrs); echo "  $n addresses"
addr2line -f -i -e inl < addrs > a2l.out
check "reference answers" [ -s a2l.out -a "$n" -gt 100 ]
"$ZT" symbolize -f -i -e inl < addrs > zt.out 2> zt.err
check "zt symbolize exits 0" [ $? -eq 0 ]
check "same answers as addr2line -f -i" cmp -s zt.out a2l.out
grep -q 'leaf_mix' zt.out; check "inlined frames are named" [ $? -eq 0 ]
# start-up, most of a warm run: the dynamic loader writes few of zt's pages
# (Capstone linked in, its relocated tables made 'zt --version' 558 page
# faults; dlopen'ed, ~190)
if [ "$(readelf -d "$ZT" | grep -c NEEDED)" -le 3 ] && [ -x /usr/bin/time ]; then
	/usr/bin/time -f %R -o flt "$ZT" --version > /dev/null
	check "start-up: under 350 page faults ($(cat flt))" [ "$(cat flt)" -lt 350 ]
else
	skip "start-up page faults: zt is linked dynamically (STATIC_LIBS=0, a sanitizer build) or no /usr/bin/time"
fi
# address spellings: the usual ones (read without strtoull) and near misses
a=$(sed -n 7p addrs); A=$(printf '%s' "${a#0x}" | tr a-f A-F)
printf '%s\n' "$a" "${a#0x}" "0X$A" "0x0000000${a#0x}" 0x 0xg 00x5 "$a junk" 0x0000000000000000 \
	0xffffffffffffffff x1 g > spell
addr2line -a -f -i -e inl < spell > spell.a2l
"$ZT" symbolize -a -f -i -e inl < spell > spell.zt
check "address spellings answered as addr2line -a" cmp -s spell.zt spell.a2l
# llvm-symbolizer's style, the column aside
norm() { awk 'BEGIN { RS = ""; FS = "\n" } { s = ""; for (i = 1; i <= NF; i += 2) { f = $(i + 1); sub(/:[0-9]+$/, "", f); s = s $i "@" f ";" } print s }'; }
llvm-symbolizer --inlining -e inl < addrs | norm > llvm.norm
"$ZT" symbolize --output-style=LLVM -e inl < addrs | norm > ztl.norm
check "same answers as llvm-symbolizer --inlining" cmp -s llvm.norm ztl.norm
# the second run reads the GSYM cache
check "GSYM cached by build id" [ -n "$(ls "$ZT_CACHE_DIR"/gsym/*.gsym 2>/dev/null)" ]
"$ZT" symbolize -f -i -e inl < addrs > zt2.out
check "cached answers identical" cmp -s zt2.out a2l.out
# a stripped binary with its debug file next to it (.gnu_debuglink), no cache
objcopy --only-keep-debug inl inl.debug && objcopy --strip-all --add-gnu-debuglink=inl.debug inl inl.stripped
"$ZT" symbolize --no-symbol-cache -f -i -e inl.stripped < addrs > s.out
check "stripped binary + .gnu_debuglink: same answers" cmp -s s.out a2l.out
mv inl.debug inl.debug.away
"$ZT" symbolize --no-symbol-cache --no-debuginfod -f -e inl.stripped 0x$(nm inl | awk '$3 == "outer" { print $1 }') > s2.out
check "debug file gone: unknown" grep -q '^??' s2.out
mv inl.debug.away inl.debug
# --debug-dir with a .build-id tree
bid=$("$ZT" buildid inl | awk '{ print $1 }')
check "zt buildid prints the GNU build id" [ "$bid" = "$(readelf -n inl | awk '/Build ID/ { print $3 }')" ]
mkdir -p dbg/.build-id/${bid:0:2} && cp inl.debug dbg/.build-id/${bid:0:2}/${bid:2}.debug
mkdir other && objcopy --strip-all inl other/inl
"$ZT" symbolize --no-symbol-cache --debug-dir "$T/dbg" -f -i -e other/inl < addrs > d.out
check "--debug-dir .build-id lookup: same answers" cmp -s d.out a2l.out
# a binary without a build id: keyed by its file id
gcc -O2 -g -Wl,--build-id=none -o nobid "$src"
line=$("$ZT" buildid nobid)
check "no build id: '-' and a 32-digit file id" bash -c "[[ '$line' =~ ^-\ [0-9a-f]{32}\ nobid$ ]]"
want=$(python3 -c "import hashlib,os;d=open('nobid','rb').read();print(hashlib.sha256(d[:4096]+d[-4096:]+len(d).to_bytes(8,'big')).hexdigest()[:32])" 2>/dev/null)
[ -n "$want" ] && check "file id as OpenTelemetry computes it" [ "$(echo "$line" | awk '{ print $2 }')" = "$want" ]
addrs nobid > addrs.nobid
addr2line -f -i -e nobid < addrs.nobid > a2l.nobid
"$ZT" symbolize -f -i -e nobid < addrs.nobid > zt.nobid
check "no build id: same answers as addr2line" cmp -s zt.nobid a2l.nobid
fid=$(echo "$line" | awk '{ print $2 }')
check "no build id: cached under its file id" [ -s "$ZT_CACHE_DIR/gsym/$fid.gsym" ]
# MiniDebugInfo (Fedora's .gnu_debugdata): local function names of a stripped binary
if command -v xz >/dev/null; then
	gcc -O2 -g -o mdi "$src"
	nm -D mdi --format=posix --defined-only | awk '{ print $1 }' | sort > dynsyms
	nm mdi --format=posix --defined-only | awk '$2 ~ /^[Tt]$/ { print $1 }' | sort > funcsyms
	comm -13 dynsyms funcsyms > keep
	objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep mdi mini
	xz -f mini
	a=0x$(nm mdi | awk '$3 == "outer" { print $1 }')
	strip --strip-all mdi && objcopy --add-section .gnu_debugdata=mini.xz mdi
	"$ZT" symbolize --no-symbol-cache --no-debuginfod -f -e mdi "$a" > mdi.out
	check "MiniDebugInfo names a stripped binary's function" grep -q '^outer$' mdi.out
fi
# zt symbols extract: GSYM files llvm-gsymutil reads
"$ZT" symbols extract inl nobid -o gs > ex.out
check "symbols extract writes <build id>.gsym" [ -s "gs/$bid.gsym" ]
check "symbols extract reports full quality" grep -q "gs/$bid.gsym full" ex.out
gsu=$(command -v llvm-gsymutil || command -v llvm-gsymutil-14)
if [ -n "$gsu" ]; then
	a=0x$(nm inl | awk '$3 == "outer" { print $1 }')
	"$gsu" "gs/$bid.gsym" --address=$a > g.out 2>&1
	check "llvm-gsymutil reads our GSYM file" grep -q 'outer' g.out
fi
# libc through libc6-dbg's /usr/lib/debug/.build-id files
libc=/lib/x86_64-linux-gnu/libc.so.6
if [ -d /usr/lib/debug/.build-id ]; then
	m=0x$(nm -D "$libc" | awk '$3 ~ /^malloc@/ { print $1 }' | head -1)
	"$ZT" symbolize -f -e "$libc" "$m" > libc.out
	check "libc's malloc with a file:line from libc6-dbg" grep -qE '^[A-Za-z_]*malloc$' libc.out
	check "libc file:line" grep -qE 'malloc\.c:[0-9]+' libc.out
fi
# files it cannot read: a message and exit 1, as addr2line; an ELF without symbols: ?? and 0
badsym() { # badsym DESC FILE PATTERN
	timeout 20 "$ZT" symbolize -f -e "$2" 0x1000 > bad.out 2> bad.err
	local rc=$?
	check "$1: exit 1" [ "$rc" -eq 1 ]
	check "$1: says what is wrong" contains bad.err "^zt symbolize: .*$3"
	check "$1: no answers printed" [ ! -s bad.out ]
}
head -c 3000 inl > trunc
badsym "truncated ELF" trunc "'trunc': section headers past the end of the file"
cp inl badshoff
# e_shoff (offset 0x28 of an ELF64 header) pointed far past the end
printf '\xff\xff\xff\x7f' | dd of=badshoff bs=1 seek=$((0x28)) conv=notrunc status=none
badsym "damaged section header offset" badshoff "section headers past the end of the file"
cp inl badsec
# the first section's offset past the end, its header left in place
shoff=$(od -An -t u8 -j $((0x28)) -N 8 inl | tr -d ' ')
printf '\xff\xff\xff\x7f' | dd of=badsec bs=1 seek=$((shoff + 64 + 24)) conv=notrunc status=none
badsym "a section past the end" badsec "section '.*' past the end of the file"
echo 'not an ELF file' > text.txt
badsym "a text file" text.txt "'text.txt': file format not recognized"
badsym "/dev/zero" /dev/zero "'/dev/zero': not a regular file"
mkdir adir
badsym "a directory" adir "'adir': is a directory"
badsym "a missing file" missing.elf "cannot open 'missing.elf': No such file"
# (a program of its own: a stripped copy of inl has inl's build id, and its
# symbols in the GSYM cache)
echo 'int main(void) { return 0; }' | gcc -x c -s -o nosyms -
"$ZT" symbolize -e nosyms 0x1000 > nosyms.out 2> nosyms.err
check "an ELF without symbols: exit 0" [ $? -eq 0 ]
check "an ELF without symbols: ??" grep -q '^??:0$' nosyms.out
# stdin without newlines: bounded lines, no growth
timeout 20 bash -c "head -c 50000000 /dev/zero | '$ZT' symbolize -e inl > zero.out 2> zero.err"
check "stdin of zeros ends" [ $? -eq 0 ]
# a live process, through its maps
"$WL/hot" wait & hp=$!; bgpids+=($hp)
sleep 0.3
base=$(awk '$6 ~ /\/hot$/ && $2 ~ /x/ { split($1, r, "-"); print r[1], $3; exit }' /proc/$hp/maps)
read -r start off <<< "$base"
sym=$(nm "$WL/hot" | awk '$3 == "zt_hot_a" { print $1 }')
# runtime address = map start + (vaddr - (offset-to-vaddr of the segment)); PIE text: vaddr == file offset
addr=$(printf '0x%x' $((16#$start + 16#$sym - 16#$off)))
"$ZT" symbolize --pid "$hp" -f "$addr" > pid.out
check "--pid resolves a live process's address" grep -q '^zt_hot_a$' pid.out
kill "$hp"
finish
