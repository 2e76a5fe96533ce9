// SPDX-License-Identifier: GPL-2.0-or-later
// Device functions inlined from a header, for zt's cubin symbolizer tests.
#ifndef ZT_SYMTEST_CUH
#define ZT_SYMTEST_CUH

__device__ __forceinline__ float st_sq(float v)
{
	return v * v + 0.125f; // L:sq
}

// inlined, and st_sq inlined into it: two inline frames
__device__ __forceinline__ float st_mix(float a, float b)
{
	float t = st_sq(a * b) + 0.5f; // L:mix
	return t * t - a;
}

#endif
