// SPDX-License-Identifier: GPL-2.0-or-later
// A device function inlined from a header, for zt's cubin symbolizer tests.
#ifndef ZT_SYMTEST_CUH
#define ZT_SYMTEST_CUH

__device__ __forceinline__ float st_mix(float a, float b)
{
	float t = a * b + 0.5f; // L:mix
	return t * t - a;
}

#endif
