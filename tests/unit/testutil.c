// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers the unit tests share. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/unit/testutil.h"

int run(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}
