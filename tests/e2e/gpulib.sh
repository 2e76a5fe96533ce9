# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the GPU end-to-end tests, sourced after lib.sh: a recording
# of the stand-in capture (tests/e2e/t_gpu.sh tells how it works), a real
# nvcc cubin loaded by a real driver-API program on a stand-in libcuda and
# libcupti, without a GPU.
#   gpu_setup              B, G (test programs), SD (stand-ins), ZT_STANDIN_CUBIN_CRC;
#                          finishes with SKIP when zt was built without CUDA
#   gpu_record OUT N ARGS  zt record --gpu ARGS -o OUT of cuda_app running N frames
gpu_setup() {
	B=$(dirname "$ZT")
	G=$B/tests/gpu
	SD=$G/standin
	if [ ! -f "$B/libztcupti.so" ] || [ ! -f "$G/kernels.cubin" ]; then
		skip "zt was built without CUDA (no $B/libztcupti.so or no nvcc cubin): GPU tests not run"
		finish
	fi
	# an ASan build's library cannot be injected into a CUDA program: the plain one is
	case "$B" in
	*build-asan*)
		if [ -f "$B/../build/libztcupti.so" ]; then
			export ZT_CUPTI_LIB=$(cd "$B/../build" && pwd)/libztcupti.so
		else
			skip "no plain build/libztcupti.so to inject under the sanitizers"
			finish
		fi ;;
	esac
	ZT_STANDIN_CUBIN_CRC=$("$G/cubin_crc" "$G/kernels.cubin")
	export ZT_STANDIN_CUBIN_CRC
}

gpu_record() {
	local out=$1 n=$2
	shift 2
	LD_LIBRARY_PATH=$SD "$ZT" record --gpu "$@" -o "$out" -- "$G/cuda_app" "$G/kernels.cubin" "$n" \
		> "$out.out" 2> "$out.err"
}
