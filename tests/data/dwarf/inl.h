/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwarfsyms fixture: an always-inlined function in a header (call_file != the CU's file). */
extern volatile int g_sink;

static inline __attribute__((always_inline)) int hdr_twice(int x)
{
	int r = x * 2;

	g_sink += r;
	return r + g_sink;
}
