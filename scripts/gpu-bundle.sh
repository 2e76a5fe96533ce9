#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The folder `make gpu-bundle` makes (see mk/gpubundle.mk), for
# scripts/gpu-check.sh on a GPU machine that has no Debian packages:
#   bin/zt                  zt (its libraries are static but glibc's)
#   lib/zt/libztcupti.so    the injection library (DT_RPATH $ORIGIN), where zt looks
#   lib/zt/lib*.so.*        what it and the programs load that a CUDA machine may lack
#   tests/                  gpucheck_app + gpucheck.cubin (sm_90), noperf.so, the sources
#   MANIFEST                what is in, from which build, and ldd's view here
# Usage: scripts/gpu-bundle.sh BUILD_DIR OUT_DIR (from any folder); fails when
# the bundle is 40 MiB or more (what a GPU check may carry, issue 33)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$1
out=$2
case "$out" in "" | / | .) echo "gpu-bundle.sh: bad output folder '$out'" >&2; exit 1 ;; esac
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib/zt" "$out/tests"
# zt without its DWARF (its symbol table stays)
strip --strip-debug -o "$out/bin/zt" "$build/zt"
cp "$build/bundle/libztcupti.so" "$out/lib/zt/libztcupti.so"
g=$build/tests/gpu
cp "$g/gpucheck_app" "$g/gpucheck.cubin" "$g/noperf.so" "$out/tests/"
for f in gpucheck.cu gpucheck_app.c vecadd.cu torch_loop.py torch_prof.py; do cp "$root/tests/gpu/$f" "$out/tests/"; done
# the libraries: glibc's own, CUDA's and the compiler runtime's are the
# target's (a CUDA machine has them, and a newer glibc than ours)
skip='^(linux-vdso|ld-linux|libc|libm|libpthread|libdl|librt|libutil|libresolv|libanl|libcupti|libcuda|libnvidia-[a-z-]*|libgcc_s|libstdc\+\+)\.so'
for f in "$out/bin/zt" "$out/lib/zt/libztcupti.so" "$out/tests/gpucheck_app" "$out/tests/noperf.so"; do
	ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }'
done | sort -u | while read -r soname path; do
	if printf '%s\n' "$soname" | grep -Eq "$skip"; then continue; fi
	cp -L "$path" "$out/lib/zt/$soname"
done
{
	echo "zt gpu-bundle from $(git -C "$root" describe --always --dirty 2>/dev/null || echo '?') built $(date -u +%FT%TZ) on $(uname -nr)"
	echo "glibc here: $(ldd --version | head -1)"
	echo "max GLIBC symbol version needed:"
	for f in "$out"/bin/zt "$out"/lib/zt/*.so* "$out"/tests/gpucheck_app "$out"/tests/noperf.so; do
		v=$(objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
		echo "  ${f#"$out"/}: ${v:-none}"
	done
	echo "files:"
	(cd "$out" && find . -type f -printf '  %p %s\n' | sort)
	echo "ldd here:"
	for f in "$out"/bin/zt "$out"/lib/zt/libztcupti.so "$out"/tests/gpucheck_app; do
		echo "  $f:"
		ldd "$f" | sed 's/^/    /'
	done
	echo "libztcupti.so's dynamic section:"
	readelf -d "$out/lib/zt/libztcupti.so" | grep -E 'NEEDED|RPATH|RUNPATH' | sed 's/^/  /'
} > "$out/MANIFEST"
bytes=$(find "$out" -type f -printf '%s\n' | awk '{ t += $1 } END { print t + 0 }')
echo "  BUNDLE  $out: $(du -sh "$out" | cut -f1) ($(find "$out" -type f | wc -l) files, $bytes bytes)"
if [ "$bytes" -ge $((40 << 20)) ]; then
	echo "gpu-bundle.sh: $out has $bytes bytes: a bundle must stay under 40 MiB" >&2
	exit 1
fi
