// SPDX-License-Identifier: GPL-2.0-or-later
/* Python frames named from the recording's code objects (see pyframes.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/strtab.h"
#include "symbolizer/pyframes.h"
#include "symbolizer/pyline.h"

struct pyframes {
	const struct profile *p;
	struct zt_strtab dirs; /* the files' directory parts, each once */
};

int pyframes_new(const struct profile *p, struct pyframes **out)
{
	struct pyframes *pf = calloc(1, sizeof(*pf));

	*out = pf;
	if (!pf)
		return -ENOMEM;
	pf->p = p;
	zt_strtab_init(&pf->dirs);
	return 0;
}

void pyframes_free(struct pyframes *pf)
{
	if (!pf)
		return;
	zt_strtab_release(&pf->dirs);
	free(pf);
}

/* The line of instruction lasti of c, 0 when unknown (no instruction, a
 * line table of a format before 3.11's, no line there). */
static uint32_t line_of(const struct prof_pycode *c, uint32_t lasti)
{
	int line;

	if (lasti == PROF_PY_NO_LASTI || c->minor < 11 || !c->linetable_len)
		return 0;
	line = pyline_of(c->linetable, c->linetable_len, c->firstlineno, (int32_t)lasti);
	return line > 0 ? (uint32_t)line : 0;
}

int pyframes_lookup(struct pyframes *pf, uint64_t ip, struct pyframe *out)
{
	uint32_t code = prof_py_code(ip), lasti = prof_py_lasti(ip), id;
	const struct prof_pycode *c;
	const char *path, *slash;
	size_t dlen;

	memset(out, 0, sizeof(*out));
	c = pf->p && code < pf->p->nr_pycodes ? &pf->p->pycodes[code] : NULL;
	if (!c || (c->flags & PROF_PYCODE_UNREAD) || !c->qualname || !c->qualname[0]) {
		out->module = PYFRAMES_MODULE;
		out->offset = code;
		return 0;
	}
	path = c->filename ? c->filename : "";
	out->sym = c->qualname;
	out->offset = lasti == PROF_PY_NO_LASTI ? 0 : lasti;
	/* as DWARF's files are split (dwarfsyms.c): "/x.py" is in "/" */
	slash = strrchr(path, '/');
	dlen = slash ? (size_t)(slash - path) : 0;
	if (slash && !dlen)
		dlen = 1;
	if (zt_strtab_intern(&pf->dirs, path, dlen, &id))
		return -ENOMEM;
	out->loc.name = c->qualname;
	out->loc.dir = zt_strtab_str(&pf->dirs, id);
	out->loc.file = slash ? slash + 1 : path;
	out->loc.line = line_of(c, lasti);
	out->module = out->loc.file[0] ? out->loc.file : PYFRAMES_MODULE;
	return 0;
}
