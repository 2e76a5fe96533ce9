/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: zt serve's Prometheus selectors (server/selector.h). The
 * input is a selector; what parses must hold its invariants (names valid,
 * at most ZS_MAX_MATCHERS, regular expressions compiled and usable), and
 * every message is printable.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/selector.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zs_selector *s = malloc(sizeof(*s));
	char msg[256];
	size_t i;
	int rc;

	if (!s)
		return 0;
	msg[0] = 0;
	rc = zs_selector_parse((const char *)data, size, s, msg, sizeof(msg));
	if (rc) {
		if (rc != -EINVAL && rc != -ENOMEM)
			abort();
		for (i = 0; msg[i]; i++)
			if ((unsigned char)msg[i] < 0x20 || msg[i] >= 0x7f)
				abort();
	} else {
		if (s->n > ZS_MAX_MATCHERS)
			abort();
		for (i = 0; i < s->n; i++) {
			const char *v[2] = { "prod", "" };

			if (!zs_label_name_ok(s->m[i].name, strlen(s->m[i].name)))
				abort();
			if (strlen(s->m[i].value) > ZS_MAX_MATCH_VALUE)
				abort();
			zs_matcher_holds(&s->m[i], v, 2);
			if (zs_matcher_holds(&s->m[i], v, 0) !=
			    zs_matcher_holds(&s->m[i], v + 1, 1))
				abort(); /* an absent label is "" */
		}
		zs_selector_release(s);
	}
	free(s);
	return 0;
}
