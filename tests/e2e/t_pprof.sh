#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt convert --to pprof: a live recording exported as gzip'ed profile.proto, read back by an
# independent decoder (pprof-format under node: tests/e2e/pprof-decode).
decode=$(cd "$(dirname "$0")/pprof-decode" && pwd)/decode.sh
. "$(dirname "$0")/lib.sh"
cd "$T"
"$ZT" record -g -o w.data -- "$WL/hot" hot 2 2> rec.err
check "record exits 0" [ $? -eq 0 ]
"$ZT" convert --to pprof -i w.data -o out.pb.gz 2> pp.err
check "zt convert --to pprof exits 0" [ $? -eq 0 ]
check "gzip-compressed" [ "$(head -c 2 out.pb.gz | od -An -tx1 | tr -d ' ')" = 1f8b ]
"$decode" out.pb.gz > sum.txt 2> dec.err
rc=$?
[ $rc -eq 2 ] && cat dec.err
check "independent decoder reads it" [ $rc -eq 0 ]
check "sample types" contains sum.txt '^sample_type samples/count cpu/nanoseconds$'
check "functions named" contains sum.txt '^function zt_hot_a .*hot\.c$'
check "main binary mapping with full symbols" contains sum.txt '^mapping .*/hot [0-9a-f]{40} Ffli$'
check "the main binary is mapping[0]" bash -c "grep -m1 '^mapping ' sum.txt | grep -q '/hot '"
check "thread labels" contains sum.txt '^stack pid=[0-9]+ tid=[0-9]+ thread=hot '
# the same sample count as the recording's summary
n=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' rec.err)
check "all samples exported ($n)" contains sum.txt "^value\[0\] $n$"
# zt_hot_a's share of the total as leaf, as zt report has it (~75%)
share=$(awk '$1 == "stack" { n = split($NF, f, ";"); if (f[n] == "zt_hot_a") a += $6; t += $6 }
	END { if (t) print int(100 * a / t) }' sum.txt)
echo "  zt_hot_a self ${share:-?}% (expected 75)"
check "zt_hot_a near 75%" between "${share:-}" 65 85
check "stacks reach main" contains sum.txt '^stack .*[ ;]main;.*zt_hot_a$'
# errors say what went wrong
"$ZT" convert --to pprof -i missing.data -o x.pb.gz 2> miss.err
check "missing input: exit 1" [ $? -eq 1 ]
check "missing input: message names the file" contains miss.err "missing\.data"
finish
