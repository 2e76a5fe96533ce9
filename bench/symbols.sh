#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt symbols upload of every ELF executable and shared library under
# /usr/lib and /usr/bin (BENCH_SYMBOLS_PATHS to change), to a zt serve on
# 127.0.0.1: the first run (everything extracted and sent) and the second
# (everything already there: one HEAD per file), against llvm-gsymutil
# --convert of the same files into GSYM files (no upload at all), both on
# as many files at once as there are CPUs. Prints files/s, MB/s (of the
# ELF files' sizes) and the ratios. zt also reads the separate debug files
# it finds (/usr/lib/debug, .gnu_debuglink); llvm-gsymutil reads the file
# given only: the line says how many files each got full (DWARF) symbols
# for.
set -u
: "${ZT:?}"
PATHS=${BENCH_SYMBOLS_PATHS:-/usr/lib /usr/bin}
J=$(nproc)
T=$(mktemp -d /tmp/zt-symup-bench.XXXXXX)
spid=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2> /dev/null && wait "$spid" 2> /dev/null
	rm -rf "$T"
}
trap cleanup EXIT
gsymutil=$(command -v llvm-gsymutil || ls /usr/bin/llvm-gsymutil-* 2> /dev/null | sort -V | tail -1)
if [ -z "$gsymutil" ]; then
	echo "bench-symbols: llvm-gsymutil not found (Debian: llvm; scripts/setup.sh --test)" >&2
	exit 1
fi

# the ELF executables and shared objects under PATHS, each file once
# shellcheck disable=SC2086
find -L $PATHS -xdev -type f -size +63c 2> /dev/null | perl -ne '
	chomp; open(my $f, "<", $_) or next; binmode $f; read($f, my $h, 18) == 18 or next;
	substr($h, 0, 4) eq "\x7fELF" or next;
	my $t = unpack(ord(substr($h, 5, 1)) == 2 ? "n" : "v", substr($h, 16, 2));
	next unless $t == 2 || $t == 3;
	my @s = stat($f); next if $seen{"$s[0]:$s[1]"}++;
	print "$_\n"; $bytes += $s[7];
	END { open(my $o, ">", "'"$T"'/bytes"); print $o $bytes + 0, "\n" }' > "$T/files"
n=$(wc -l < "$T/files")
mb=$(awk '{ printf "%.1f", $1 / 1e6 }' "$T/bytes")
echo "bench-symbols: $n ELF files, $mb MB, under $PATHS; $J at once"

# the server, and a token with the symbols scope
port=$((20000 + RANDOM % 20000))
TOK=$("$ZT" serve token create --scope symbols --data-dir "$T/srv" 2> /dev/null)
timeout 3600 "$ZT" serve -q --listen "127.0.0.1:$port" --data-dir "$T/srv" --max-body 4G \
	2> "$T/serve.err" &
spid=$!
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done

now() { date +%s.%N; }
up() {
	ZT_TOKEN=$TOK "$ZT" symbols upload -q --json -j "$J" --server "http://127.0.0.1:$port" \
		$PATHS > "$T/$1.json" 2> "$T/$1.err"
}
field() { grep -o "\"$2\":[0-9]*" "$T/$1.json" | head -1 | cut -d: -f2; }
full() { grep -o '"quality":"full"' "$T/$1.json" | wc -l; }

s=$(now); up first; e=$(now); t1=$(awk -v a="$s" -v b="$e" "BEGIN { print b - a }")
s=$(now); up second; e=$(now); t2=$(awk -v a="$s" -v b="$e" "BEGIN { print b - a }")

# llvm-gsymutil --convert of each file, J at once, one thread each
mkdir "$T/g"
s=$(now)
awk '{ print NR "\t" $0 }' "$T/files" | xargs -d '\n' -P "$J" -n 16 sh -c '
	for l; do i=${l%%	*}; f=${l#*	}
		if "$0" --num-threads=1 --convert "$f" -o "'"$T"'/g/$i.gsym" > /dev/null 2>&1
		then echo ok; else echo fail; fi
	done' "$gsymutil" > "$T/llvm.out"
e=$(now); tl=$(awk -v a="$s" -v b="$e" "BEGIN { print b - a }")
lok=$(grep -c '^ok' "$T/llvm.out")
lgs=$(du -sb "$T/g" | cut -f1)

rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.1f", (t > 0 ? n / t : 0) }'; }
echo "zt symbols upload, first run:  $(printf '%6.1f' "$t1") s  $(rate "$n" "$t1") files/s  $(rate "$mb" "$t1") MB/s" \
	" (uploaded $(field first uploaded), skipped $(field first skipped), failed $(field first failed);" \
	"$(full first) with full symbols; $(field first bytes) bytes sent)"
echo "zt symbols upload, second run: $(printf '%6.1f' "$t2") s  $(rate "$n" "$t2") files/s  $(rate "$mb" "$t2") MB/s" \
	" (skipped $(field second skipped), uploaded $(field second uploaded), failed $(field second failed))"
echo "llvm-gsymutil --convert:       $(printf '%6.1f' "$tl") s  $(rate "$n" "$tl") files/s  $(rate "$mb" "$tl") MB/s" \
	" ($lok converted, $((n - lok)) refused; $lgs bytes of GSYM; $(basename "$gsymutil"))"
awk -v a="$t1" -v b="$t2" -v l="$tl" 'BEGIN {
	printf "ratio: llvm-gsymutil / zt first run %.2f (>1: zt faster, upload included); llvm-gsymutil / zt second run %.1f\n",
		l / a, l / b }'
if [ "$(field first failed)" != 0 ]; then
	echo "files that failed in the first run:"
	grep -o '"path":"[^"]*"[^}]*"status":"failed"[^}]*' "$T/first.json" | head -5
fi
