#!/usr/bin/env bash
# System-wide recording: kernel frames resolve through the kallsyms snapshot.
. "$(dirname "$0")/lib.sh"
cd "$T"
"$ZT" record -a -g -o k.data -- dd if=/dev/zero of=/dev/null bs=4k count=600000 2> rec.err
check "record -a exits 0" [ $? -eq 0 ]
"$ZT" report -i k.data --stdio --no-children --sort comm,dso,sym > r.txt
check "dd's kernel work is named" awk '!/^#/ && $2=="dd" && $4=="[k]" && $NF !~ /^\[/ {f=1} END {exit !f}' r.txt
check "kernel module named" awk '!/^#/ && $2=="dd" && $3=="[kernel.kallsyms]" {f=1} END {exit !f}' r.txt
check "no bare hex frames" bash -c "! grep -E '\] 0x[0-9a-f]+$' r.txt"
# the second recording takes kernel symbols from the per-boot cache
"$ZT" record -v -a -g -o k2.data -- dd if=/dev/zero of=/dev/null bs=4k count=600000 2> rec2.err
check "kallsyms cached per boot" contains rec2.err 'kernel symbols from the cache'
check "cached copy private" [ "$(stat -c %a "$ZT_CACHE_DIR"/kallsyms/* | sort -u)" = 600 ]
"$ZT" report -i k2.data --stdio --no-children --sort comm,dso,sym > r2.txt
check "dd's kernel work named with cached symbols" awk '!/^#/ && $2=="dd" && $4=="[k]" && $NF !~ /^\[/ {f=1} END {exit !f}' r2.txt
finish
