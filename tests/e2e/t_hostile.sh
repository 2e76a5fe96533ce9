#!/usr/bin/env bash
# zt as root against a hostile local user (nobody): planted links at the
# perf-map, jitdump, output and cache paths, a SUDO_UID hand-over, root's
# recordings read as nobody. Nothing of root's reaches nobody, nothing of
# root's is created or chowned, and each refusal says what it skipped.
. "$(dirname "$0")/lib.sh"
cd "$T"
NB=(setpriv --reuid=65534 --regid=65534 --clear-groups)
nb() { "${NB[@]}" "$@"; }
# a directory of nobody's, and root-only places nobody must never get at
mkdir nbdir pub rootdir && chown 65534:65534 nbdir && chmod 1777 pub && chmod 700 rootdir
echo "root secret" > rootdir/secret && chmod 600 rootdir/secret

# ---- 1. a perf map swapped for a link to a root-only file ----
"${NB[@]}" "$WL/jit" 4 & jp=$!; bgpids+=($jp)
for _ in $(seq 50); do [ -s /tmp/perf-$jp.map ] && break; sleep 0.05; done
read -r addr size _ < /tmp/perf-$jp.map || fail "no perf map from the jit workload"
# the same code named otherwise, in a file only root may read
echo "$addr $size ROOT_SECRET_NAME" > rootdir/secret.map
nb ln -s "$T/rootdir/secret.map" /tmp/perf-$jp.map.new && nb mv -f /tmp/perf-$jp.map.new /tmp/perf-$jp.map
check "the perf map is now a link" [ -L /tmp/perf-$jp.map ]
"$ZT" record -v -g -p "$jp" --duration 1.5 -o pm.data 2> pm.err
check "record -p exits 0" [ $? -eq 0 ]
"$ZT" report -i pm.data --stdio --no-children > pm.txt 2> pm-rep.err
check "the root-only map was not read" bash -c "! grep -q ROOT_SECRET_NAME pm.txt"
check "-v says the linked perf map was skipped" contains pm.err "perf map of pid $jp not read: .* a symbolic link"
check "the report says so in its symbol summary" contains pm.txt "^# Not read when recording: perf map of pid $jp"
kill "$jp" 2>/dev/null; wait "$jp" 2>/dev/null; rm -f /tmp/perf-$jp.map
# the control: nobody's own map, for nobody's process, is used
"${NB[@]}" "$WL/jit" 2 & jp=$!; bgpids+=($jp)
sleep 0.3
"$ZT" record -g -p "$jp" --duration 1 -o pm2.data 2> pm2.err
"$ZT" report -i pm2.data --stdio --no-children > pm2.txt 2>&1
check "the process's own perf map is used" [ "$(top_symbol pm2.txt)" = zt_jit_spin ]
wait "$jp" 2>/dev/null

# ---- 2. a jitdump swapped for a link after it was mapped ----
(cd nbdir && exec setpriv --reuid=65534 --regid=65534 --clear-groups "$WL/jit" 3 dump) & jp=$!; bgpids+=($jp)
for _ in $(seq 50); do [ -s nbdir/jit-$jp.dump ] && break; sleep 0.05; done
"$ZT" record -v -g -p "$jp" --duration 2.8 -o jd.data 2> jd.err & zp=$!
sleep 1.8 # the second version of the code is in the dump now
# a copy with the names changed, only root may read it, swapped in by nobody
perl -pe 's/zt_jit_v/RootSecr/g' < "nbdir/jit-$jp.dump" > rootdir/secret.dump
nb mv "nbdir/jit-$jp.dump" "nbdir/jit-$jp.dump.orig" && nb ln -s "$T/rootdir/secret.dump" "nbdir/jit-$jp.dump"
wait "$zp"
check "record of the jitdump process exits 0" [ $? -eq 0 ]
wait "$jp" 2>/dev/null
"$ZT" report -i jd.data --stdio --no-children > jd.txt 2>&1
check "the swapped-in root-only file was not read" bash -c "! grep -q RootSecr jd.txt"
check "the mapped jitdump itself was read" contains jd.txt 'zt_jit_v[12]'

# ---- 3. recordings are root's alone: 0600, not readable by nobody ----
"$ZT" record -q --call-graph dwarf -o dw.data -- "$WL/hot" hot 0.3
check "a recording is created 0600" [ "$(stat -c %a dw.data)" = 600 ]
chmod 755 "$T"
nb "$ZT" report -i "$T/dw.data" --stdio > nbr.txt 2> nbr.err
check "nobody cannot read root's recording" [ $? -ne 0 ]
check "and is told why" contains nbr.err "cannot open '.*dw.data': Permission denied"
"$ZT" record -q -a -g -o k.data -- sleep 0.5
nb "$ZT" script -i "$T/k.data" > nbs.txt 2>&1
check "nobody gets no kernel symbols from root's recording" bash -c "! grep -q '\[kernel.kallsyms\]' nbs.txt"

# ---- 4. a sudo hand-over gives nobody nothing they could not have ----
stext=$(awk '$3 == "_stext" { print $1; exit }' /proc/kallsyms)
etext=$(awk '$3 == "_etext" { print $1; exit }' /proc/kallsyms)
# a recording handed to nobody has no kernel address, only names
(cd pub && env SUDO_UID=65534 SUDO_GID=65534 "$ZT" record -v -a -g -o h.data -- \
	dd if=/dev/zero of=/dev/null bs=4k count=300000 2> ../h.err)
check "the handed-over recording is nobody's" [ "$(stat -c %u:%a pub/h.data)" = 65534:600 ]
check "record says kernel addresses are not stored" contains h.err "kernel frames are stored as symbol slots"
nb "$ZT" script -i "$T/pub/h.data" -F ip,sym > h.txt 2> h-script.err
check "nobody's script of it names kernel frames" contains h.txt 'read_zero|do_syscall_64|vfs_read|pv_native_safe_halt'
# 16 hex digits compare as strings in the order of their values
leaks=$(awk -v lo="$stext" -v hi="$etext" '$1 ~ /^[0-9a-f]+$/ && length($1) == 16 {
	a = $1 ""; n++; if (a >= lo "" && a < hi "") bad++ } END { print bad + 0, n + 0 }' h.txt)
echo "  real kernel addresses, addresses in nobody's script: $leaks"
check "addresses were printed at all" [ "${leaks#* }" -gt 0 ]
check "no real kernel address in it (in [$stext, $etext))" [ "${leaks% *}" -eq 0 ]
nb "$ZT" report -i "$T/pub/h.data" --stdio --no-children --sort sym > hr.txt 2>&1
check "nobody's report names the kernel rows" bash -c "! grep -q 'kernel.kallsyms+0x' hr.txt && grep -q '\[k\]' hr.txt"
# -o into a directory nobody cannot write: the file stays root's
echo "root config" > rootdir/some.conf
env SUDO_UID=65534 SUDO_GID=65534 "$ZT" record -o rootdir/some.conf -- "$WL/hot" hot 0.2 2> so.err
check "-o in root's directory: the new file stays root's" [ "$(stat -c %u rootdir/some.conf)" = 0 ]
check "and the old one too, as .old" [ "$(stat -c %u rootdir/some.conf.old):$(cat rootdir/some.conf.old)" = "0:root config" ]
check "record says why it kept the file" contains so.err "stays root's: the sudo user"
# a planted cache link to a root directory, and a home that does not exist
mkdir nbdir/home && chown 65534:65534 nbdir/home && mkdir rootdir/cachedir
nb ln -s "$T/rootdir/cachedir" nbdir/home/cache
env SUDO_UID=65534 SUDO_GID=65534 ZT_CACHE_DIR="$T/nbdir/home/cache/zt" "$ZT" record -q -o pub/c.data -- "$WL/hot" hot 0.2
check "a planted cache link: root's directory stays root's" [ "$(stat -c %u rootdir/cachedir)" = 0 ]
check "and empty" [ -z "$(ls -A rootdir/cachedir)" ]
env -u ZT_CACHE_DIR SUDO_UID=65534 SUDO_GID=65534 HOME=/nonexistent "$ZT" record -q -o pub/d.data -- "$WL/hot" hot 0.2
check "SUDO_UID=65534 does not create its home /nonexistent" [ ! -e /nonexistent ]
# a binary only root may read is not copied into nobody's cache; a readable one is
mkdir rootdir/bin && cp "$WL/hot" rootdir/bin/hot && chmod 700 rootdir/bin/hot
echo 'int main(void) { for (volatile long i = 0; i < 400000000; i++); return 0; }' > spin.c
cc -O1 -Wl,--build-id=0x5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7 -o rootdir/bin/spin spin.c
chmod 700 rootdir/bin/spin
cc -O1 -Wl,--build-id=0x0b5e7ab1e0b5e7ab1e0b5e7ab1e0b5e7ab1e0b5e -o pub/spin-open spin.c
env SUDO_UID=65534 SUDO_GID=65534 ZT_CACHE_DIR="$T/nbdir/home/zt" "$ZT" record -q -o pub/e.data -- \
	sh -c "'$T/rootdir/bin/spin'; '$T/pub/spin-open'"
check "the root-only binary is not in nobody's cache" [ ! -e nbdir/home/zt/buildid/5e/c7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7/elf ]
check "a binary nobody can read is, and nobody's" [ "$(stat -c %u nbdir/home/zt/buildid/0b/5e7ab1e0b5e7ab1e0b5e7ab1e0b5e7ab1e0b5e/elf 2>&1)" = 65534 ]
check "nothing in nobody's cache is root's" [ -z "$(find nbdir/home/zt -uid 0)" ]

# ---- 5. a dangling link planted at the output path ----
nb ln -s "$T/rootdir/pwned" pub/zt.data
(cd pub && "$ZT" record -- "$WL/hot" hot 0.2 2> ../dl.err)
check "record refuses to write through the link" [ $? -ne 0 ]
check "and says so" contains dl.err "'zt.data' is a symbolic link"
check "the link's target was not created" [ ! -e rootdir/pwned ]
finish
