/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: net/s3's parsers of outside input. The whole input as an S3
 * error answer (its <Code>), as a credentials file (access_key, secret_key,
 * session_token), and its first three lines as a bucket URL, an endpoint
 * and a region; with invariants on what each accepts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/s3.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_value(const char *s)
{
	if (!s || !*s)
		abort();
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
			abort();
}

static void check_loc(const struct zt_s3_loc *l)
{
	size_t n = strlen(l->bucket), p = strlen(l->prefix), i;
	char pre[sizeof(l->prefix)];

	if (n < 3 || n > 63 || strncmp(l->base, "http", 4) || strncmp(l->endpoint, "http", 4))
		abort();
	for (i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789.-", l->bucket[i]))
			abort();
	if (p) {
		if (l->prefix[p - 1] != '/')
			abort();
		memcpy(pre, l->prefix, p - 1);
		pre[p - 1] = 0;
		if (!zt_s3_key_ok(pre))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char code[64], msg[512], *text, *line[3] = {NULL, NULL, NULL}, *p;
	struct zt_s3_keys k;
	struct zt_s3_loc l;
	int i;

	if (!zt_s3_error_code(data, size, code, sizeof(code))) {
		if (!*code || strlen(code) > 63)
			abort();
		for (p = code; *p; p++)
			if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz012345678"
				    "9",
				    *p))
				abort();
	} else if (*code) {
		abort();
	}

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (!zt_s3_keys_parse(text, "fuzz", &k, msg, sizeof(msg))) {
		check_value(k.id);
		check_value(k.secret);
		if (k.token)
			check_value(k.token);
		zt_s3_keys_release(&k);
	}

	memcpy(text, data, size);
	text[size] = 0;
	for (i = 0, p = text; i < 3 && p; i++) {
		line[i] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = 0;
	}
	for (i = 0; i < 3; i++)
		if (!zt_s3_loc_parse(line[0] ? line[0] : "", line[1], line[2], (enum zt_s3_style)i,
				     &l, msg, sizeof(msg)))
			check_loc(&l);
	free(text);
	return 0;
}
