// SPDX-License-Identifier: GPL-2.0-or-later
/* zt serve's token scopes and names (see token.h). */
#include "server/token.h"

#include <string.h>

unsigned zs_scope_parse(const char *str)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = { { "push", ZS_SCOPE_PUSH }, { "symbols", ZS_SCOPE_SYMBOLS },
		      { "read", ZS_SCOPE_READ }, { "admin", ZS_SCOPE_ADMIN } };
	unsigned mask = 0;
	const char *p = str;

	if (!str || !*str)
		return 0;
	for (;;) {
		size_t n = strcspn(p, ","), i;
		unsigned bit = 0;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == n && !strncmp(p, names[i].name, n))
				bit = names[i].bit;
		if (!bit)
			return 0;
		mask |= bit;
		if (!p[n])
			return mask;
		p += n + 1;
	}
}

int zs_token_name_ok(const char *name)
{
	size_t i;

	for (i = 0; name[i]; i++) {
		char c = name[i];

		if (i >= ZS_TOKEN_NAME_MAX || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
						(c >= '0' && c <= '9') || strchr("._-@:+", c)))
			return 0;
	}
	return i > 0;
}

int zs_project_name_ok(const char *name)
{
	size_t i;

	if (!name || !name[0] || strlen(name) > ZS_PROJECT_MAX || name[0] == '-' || name[0] == '_')
		return 0;
	for (i = 0; name[i]; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '-' || name[i] == '_'))
			return 0;
	return 1;
}
