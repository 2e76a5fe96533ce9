#!/usr/bin/env bash
# A binary deleted or replaced after it ran still symbolizes (build-id cache).
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir bin && cp "$WL/hot" bin/hot
"$ZT" record -g -o d.data -- ./bin/hot hot 1 2> rec.err
check "record exits 0" [ $? -eq 0 ]
check "binary copied into the build-id cache" [ -n "$(find "$ZT_CACHE_DIR" -name elf -type f)" ]
rm -f bin/hot
"$ZT" report -i d.data --stdio --no-children > r.txt 2> r.err
check "deleted binary still symbolized" [ "$(top_symbol r.txt)" = zt_hot_a ]
# replaced by another build: must not be used for symbols
printf 'int main(void){return 0;}\n' > other.c && cc -o bin/hot other.c
rm -rf "$ZT_CACHE_DIR"
"$ZT" report -i d.data --stdio --no-children > r2.txt 2> r2.err
check "replaced binary not used: module+offset shown" contains r2.txt '\[hot\+0x[0-9a-f]+\]'
check "replaced binary warned about" contains r2.err 'build id'
finish
