// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: zt serve's selection parameters. The input is lines
 * "key=value" (split at the first '='), parsed without a prefix and with
 * "a."; also the symbol store's X-ZT-Symbol-Load parser on the whole. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct zs_selection sel;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zs_param p[64];
	struct zs_symbol_meta m;
	char *text = malloc(size + 1), *line, *save = NULL, msg[256];
	size_t n = 0, i;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	zs_symbol_meta_parse_load(text, &m);
	for (line = strtok_r(text, "\n", &save); line && n < 64; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (eq)
			*eq = 0;
		p[n].key = line;
		p[n++].value = eq ? eq + 1 : NULL;
	}
	if (!zs_selection_parse(&sel, NULL, p, n, msg, sizeof(msg)))
		for (i = 0; i < sel.nr_labels; i++)
			if (!sel.labels[i].key[0])
				__builtin_trap();
	zs_selection_parse(&sel, "a.", p, n, msg, sizeof(msg));
	free(text);
	return 0;
}
