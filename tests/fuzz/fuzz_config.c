/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: arbitrary text as a config file (~/.ztconfig), then lookups and edits. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(why)                                                                                 \
	do {                                                                                      \
		fprintf(stderr, "fuzz_config: %s: '%.*s'\n", why, (int)size, (const char *)data); \
		abort();                                                                          \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = {"report.sort", "report.children", "colors.top", "a.b"};
	struct zt_config c, c2;
	char msg[256], *out = NULL;
	size_t i, n;
	int changed;

	zt_config_init(&c);
	zt_config_parse(&c, (const char *)data, size, "fuzz", -1, msg, sizeof(msg));
	for (i = 0; i < c.nr; i++) {
		if (!zt_config_key_ok(c.items[i].key) || c.items[i].start >= c.items[i].end ||
		    c.items[i].end > size || strlen(c.items[i].value) > ZT_CONFIG_MAX_VALUE)
			FAIL("a bad item");
		if (zt_config_find(&c, c.items[i].key) == NULL)
			FAIL("an item not found");
	}
	zt_config_release(&c);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		/* an edit of text that parses gives text that parses, with the value set */
		if (zt_config_edit((const char *)data, size, keys[i], i & 1 ? NULL : "v #1", &out,
				   &n, &changed, msg, sizeof(msg)))
			continue;
		zt_config_init(&c2);
		if (zt_config_parse(&c2, out, n, "edited", -1, msg, sizeof(msg)) &&
		    n <= ZT_CONFIG_MAX_FILE)
			FAIL(msg);
		if (n <= ZT_CONFIG_MAX_FILE) {
			const char *v = zt_config_get(&c2, keys[i]);

			if (i & 1 ? v != NULL : !v || strcmp(v, "v #1"))
				FAIL("the edit is not there");
		}
		zt_config_release(&c2);
		free(out);
		out = NULL;
	}
	return 0;
}
