#!/usr/bin/env bash
# zt symbolize -e FILE.cubin KERNEL+0xOFFSET: GPU PCs answered as addr2line answers
# addresses (names, -C, -i, ??); lines against CUPTI's own answers
# (cuptiGetSassToSourceCorrelation, through tests/gpu/cupti_line) at every PC;
# the cubin symbol cache.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gpulib.sh"
gpu_setup
src=$(cd "$(dirname "$0")/../gpu" && pwd)/kernels.cu
C=$G/kernels.cubin
cd "$T"
# the kernels' and the device function's symbols, from readelf
sym() { readelf -sW "$C" 2> /dev/null | awk -v n="$1" '$NF == n && $4 == "FUNC" { print $2, $3; exit }'; }
read -r shade_at shade_size <<< "$(sym '$hot_loop$_Z5shadefi')"
read -r _ hot_size <<< "$(sym hot_loop)"
read -r _ saxpy_size <<< "$(sym saxpy)"
read -r _ scale_size <<< "$(sym _Z5scalePfif)"
check "readelf finds the kernels and shade" [ -n "$shade_at" -a -n "$hot_size" -a -n "$saxpy_size" ]
shade_pc=$(printf '0x%x' $((16#$shade_at + 0x10)))
hot_pc=$(printf '0x%x' $((16#$shade_at - 0x10)))
# line N of kernels.cu holding text (grep -F): the independent reference for spot checks
line_of() { grep -nF -- "$1" "$src" | head -1 | cut -d: -f1; }

# ---- names ---------------------------------------------------------------------
"$ZT" symbolize -e "$C" -f saxpy+0x10 hot_loop+$hot_pc hot_loop+$shade_pc _Z5scalePfif+0x20 \
	> names.out 2> names.err
check "exit 0" [ $? -eq 0 ]
check "two lines per PC" [ "$(wc -l < names.out)" -eq 8 ]
check "saxpy+0x10 is saxpy" [ "$(sed -n 1p names.out)" = saxpy ]
check "hot_loop before shade is hot_loop" [ "$(sed -n 3p names.out)" = hot_loop ]
# (its symbol is $hot_loop$_Z5shadefi: named without the kernel's prefix)
check "hot_loop+$shade_pc is in shade" [ "$(sed -n 5p names.out)" = _Z5shadefi ]
check "a C++ kernel keeps its mangled name" [ "$(sed -n 7p names.out)" = _Z5scalePfif ]
"$ZT" symbolize -e "$C" -f -C _Z5scalePfif+0x20 hot_loop+$shade_pc > dem.out
check "-C demangles the kernel" [ "$(sed -n 1p dem.out)" = "scale(float*, int, float)" ]
check "-C demangles the __noinline__ callee" [ "$(sed -n 3p dem.out)" = "shade(float, int)" ]
# a PC inside the callee is answered as in a real function: -i adds no caller
"$ZT" symbolize -e "$C" -f -i hot_loop+$shade_pc > inl.out
check "-i: the callee is a function of its own, not inlined into hot_loop" \
	[ "$(wc -l < inl.out)" -eq 2 ]

# ---- no answer: ?? as addr2line -----------------------------------------------
"$ZT" symbolize -e "$C" -f no_such_kernel+0x10 saxpy+0x$(printf '%x' $((saxpy_size + 0x100))) \
	garbage saxpy+zz > unk.out 2> unk.err
check "unknowns exit 0" [ $? -eq 0 ]
printf '??\n??:0\n??\n??:0\n??\n??:0\n??\n??:0\n' > unk.want
check "unknown kernel, offset past it, bad arguments: ?? and ??:0" cmp -s unk.out unk.want
check "no messages for unknowns" [ ! -s unk.err ]
"$ZT" symbolize -e "$C" no_such_kernel+0x10 > unk2.out
check "without -f: ??:0 only" [ "$(cat unk2.out)" = "??:0" ]

# ---- stdin, --function, -a -p ----------------------------------------------------
printf 'saxpy+0x10\nhot_loop+%s\n_Z5scalePfif+0x20\n' "$hot_pc" > pcs
"$ZT" symbolize -e "$C" -f < pcs > stdin.out
"$ZT" symbolize -e "$C" -f saxpy+0x10 hot_loop+$hot_pc _Z5scalePfif+0x20 > args.out
check "stdin answers as arguments" cmp -s stdin.out args.out
"$ZT" symbolize -e "$C" -f --function saxpy 0x10 > fn.out
check "--function: bare offsets in that kernel" [ "$(sed -n 1p fn.out)" = saxpy ]
"$ZT" symbolize -e "$C" -f -a -p saxpy+0x10 > p.out
check "-a -p: one line" bash -c "grep -qE '^0x0000000000000010: saxpy at ' p.out"

# ---- a damaged cubin -------------------------------------------------------------
head -c 2000 "$C" > cut.cubin
"$ZT" symbolize -e cut.cubin -f saxpy+0x10 > cut.out 2> cut.err
check "a truncated cubin: exit 1" [ $? -eq 1 ]
check "... with a message naming it" grep -q "^zt symbolize: .*cut.cubin" cut.err

# ---- lines: every PC of every kernel, against CUPTI ------------------------------
: > all.pcs
for k in saxpy:$saxpy_size hot_loop:$hot_size _Z5scalePfif:$scale_size; do
	for ((o = 0; o < ${k#*:}; o += 16)); do printf '%s+0x%x\n' "${k%%:*}" $o >> all.pcs; done
done
"$G/cupti_line" "$C" < all.pcs > cupti.lines
"$ZT" symbolize -e "$C" < all.pcs > zt.lines
n=$(wc -l < all.pcs)
agree=$(paste -d' ' cupti.lines zt.lines | awk '$1 == $2' | wc -l)
echo "  lines: zt agrees with CUPTI at $agree of $n PCs"
check "CUPTI answers with kernels.cu lines" grep -q "kernels.cu:[1-9]" cupti.lines
check "zt's file:line equals CUPTI's at every PC ($agree/$n)" [ "$agree" -eq "$n" ]
# spot checks against the source itself
grep_line() { # KERNEL+OFF... expected line
	local want=$1 got
	shift
	got=$("$ZT" symbolize -e "$C" "$@" | sed 's/.*://' | sort -u | tr '\n' ' ')
	[[ " $got" == *" $want "* ]]
}
l_saxpy=$(line_of 'y[i] = a * x[i] + y[i];')
l_shade=$(line_of 'x = x * 1.0001f + 0.5f;')
l_scale=$(line_of 'y[i] *= f;')
check "saxpy's code has its store line ($l_saxpy)" \
	grep_line "$l_saxpy" $(grep '^saxpy+' all.pcs)
check "shade's code has its loop body line ($l_shade)" \
	grep_line "$l_shade" $(for ((o = 16#$shade_at; o < 16#$shade_at + shade_size; o += 16)); do
		printf 'hot_loop+0x%x\n' $o; done)
check "scale's code has its line ($l_scale)" grep_line "$l_scale" $(grep '^_Z5scalePfif+' all.pcs)
"$ZT" symbolize -e "$C" saxpy+0x10 > path.out
check "the path is the source's" grep -qF "$src:" path.out

# ---- inline frames (-i), on a cubin built here ----------------------------------
NVCC=${NVCC:-$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")}
if [ -x "$NVCC" ]; then
	cat > inl.cuh << 'EOF'
static __device__ __forceinline__ float twice(float v)
{
	return v * 2.0f + 1.0f;
}
EOF
	cat > inl.cu << 'EOF'
#include "inl.cuh"
extern "C" __global__ void k(float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = twice(y[i]);
}
EOF
	"$NVCC" -cubin -lineinfo -arch=sm_90 -o inl.cubin inl.cu
	check "nvcc builds the inline fixture" [ -s inl.cubin ]
	ksize=$(readelf -sW inl.cubin 2> /dev/null | awk '$NF == "k" && $4 == "FUNC" { print $3 }')
	for ((o = 0; o < ksize; o += 16)); do printf 'k+0x%x\n' $o; done > inl.pcs
	"$G/cupti_line" inl.cubin < inl.pcs > inl.cupti
	# a PC CUPTI places in the header: zt -f -i must say twice, then k at the call
	pc=$(paste -d' ' inl.pcs inl.cupti | awk '$2 ~ /inl.cuh:/ { print $1; exit }')
	check "CUPTI places some PC in the inlined function" [ -n "$pc" ]
	"$ZT" symbolize -e inl.cubin -f -i -C "$pc" > inl.zt
	call=$(grep -n 'twice(y\[i\])' inl.cu | cut -d: -f1)
	# the call site's path as CUPTI spells inl.cu's
	callpath=$(grep -m1 '/inl\.cu:' inl.cupti | sed 's/:[0-9]*$//')
	printf 'twice(float)\n%s\nk\n%s\n' "$(grep "^$pc " <(paste -d' ' inl.pcs inl.cupti) | cut -d' ' -f2)" \
		"$callpath:$call" > inl.want
	# nvcc names the static function in a namespace of its own: _INTERNAL_<hash>_<file>_k::twice
	sed -i '1s/^[_A-Za-z0-9]*::twice(float)$/twice(float)/' inl.zt
	check "-i: the inlined function at CUPTI's line, then the kernel at the call (line $call)" \
		cmp -s inl.zt inl.want
	"$ZT" symbolize -e inl.cubin -f -C "$pc" | sed '1s/^[_A-Za-z0-9]*::twice(float)$/twice(float)/' > inl1.zt
	check "without -i: the innermost frame only" cmp -s inl1.zt <(head -2 inl.want)
else
	echo "  (no nvcc: the inline fixture is not built)"
fi

# ---- the symbol cache --------------------------------------------------------------
"$ZT" symbolize -e "$C" -f saxpy+0x10 > /dev/null
key=$(sha256sum "$C" | cut -d' ' -f1)
f=$ZT_CACHE_DIR/cubin/$key.zcubin
check "the decoded cubin is cached by its SHA-256" [ -f "$f" ]
if [ -f "$f" ]; then
	check "... mode 0600" [ "$(stat -c %a "$f")" = 600 ]
	"$ZT" symbolize -v -e "$C" -f < all.pcs > cached.out 2> cached.err
	"$ZT" symbolize --no-symbol-cache -e "$C" -f < all.pcs > fresh.out
	check "cached answers are the decoder's" cmp -s cached.out fresh.out
	check "-v says it came from the cache" grep -q "from the symbol cache" cached.err
fi
rm -rf "$ZT_CACHE_DIR"
"$ZT" symbolize --no-symbol-cache -e "$C" -f saxpy+0x10 > /dev/null
check "--no-symbol-cache writes nothing" [ ! -e "$ZT_CACHE_DIR/cubin" ]
finish
