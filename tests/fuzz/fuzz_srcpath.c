/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the source-path decoder and normalizer of zt serve's symbol
 * routes (zr_srcpath) and the escaped header text (zr_pct_text), with
 * invariants on what they accept: no control bytes, no empty, "." or ".."
 * components, at most ZR_MAX_SRCPATH bytes; escaped text is canonical (its
 * own escaping gives it back) and made of unreserved bytes and %XX only.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/route.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_path(const char *p)
{
	size_t n = strlen(p), i = 0;

	if (!n || n > ZR_MAX_SRCPATH || p[0] == '/' || p[n - 1] == '/')
		abort();
	while (i < n) {
		size_t e = i;

		while (e < n && p[e] != '/') {
			if ((unsigned char)p[e] < 0x20 || p[e] == 0x7f)
				abort();
			e++;
		}
		if (e == i || (e - i == 1 && p[i] == '.') ||
		    (e - i == 2 && p[i] == '.' && p[i + 1] == '.'))
			abort();
		i = e + 1;
	}
}

static void check_text(const char *t, int basename)
{
	for (; *t; t++) {
		unsigned char c = (unsigned char)*t;

		if (c == '%') {
			if (!t[1] || !t[2])
				abort();
			t += 2;
		} else if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			     (c >= '0' && c <= '9') || strchr("._~+-", c) ||
			     (c == '/' && !basename))) {
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char msg[256], *in, *out = NULL, *esc, *again;
	size_t cap = 3 * 1024 + 1;
	int rc, basename;

	if (!size)
		return 0;
	rc = zr_srcpath((const char *)data, size, &out, msg, sizeof(msg));
	if (rc) {
		if ((rc != 400 && rc != 500) || out)
			abort();
	} else {
		check_path(out);
		free(out);
	}
	/* the first byte chooses basename mode; the rest is the header */
	basename = data[0] & 1;
	in = malloc(size);
	esc = malloc(cap);
	again = malloc(cap);
	if (in && esc && again) {
		memcpy(in, data + 1, size - 1);
		in[size - 1] = '\0';
		if (!zr_pct_text(in, 1024, basename, esc, cap)) {
			check_text(esc, basename);
			if (zr_pct_text(esc, 1024, basename, again, cap) || strcmp(esc, again))
				abort();
		}
	}
	free(in);
	free(esc);
	free(again);
	return 0;
}
