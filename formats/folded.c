/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Folded stacks: stackcollapse-perf.pl's rules applied to perf script's
 * frame text (formats/perfscript.h), and the set of distinct stacks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/folded.h"
#include "formats/perfscript.h"
#include "libprof/array.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "libprof/profile.h"

void folded_comm(const char *comm, char *out, size_t n)
{
	size_t l = strlen(comm), i, j;

	for (i = 2; i < l; i++) {
		j = i;
		if (comm[j] != ' ' && comm[j] != '\t')
			continue;
		while (comm[j] == ' ' || comm[j] == '\t' || comm[j] == '\n' || comm[j] == '\r' ||
		       comm[j] == '\f' || comm[j] == '\v')
			j++;
		if (comm[j] < '0' || comm[j] > '9')
			continue;
		while (comm[j] >= '0' && comm[j] <= '9')
			j++;
		while (comm[j] == '/')
			j++;
		while (comm[j] >= '0' && comm[j] <= '9')
			j++;
		if (comm[j] == ' ' || comm[j] == '\t')
			break;
	}
	if (i < l)
		l = i;
	if (l >= n)
		l = n - 1;
	for (i = 0; i < l; i++)
		out[i] = comm[i] == ' ' ? '_' : comm[i];
	out[l] = 0;
}

/* One function name tidied as stackcollapse-perf.pl does by default,
 * appended to b as ";name". inl: not the first of a "a->b" split. */
static int fold_func(struct zbuf *b, const char *func, size_t fl, const char *mod, int java,
		     int inl)
{
	char *f = malloc(fl + strlen(mod) + 8), *p, *d;

	if (!f)
		return -ENOMEM;
	if (fl == 9 && !memcmp(func, "[unknown]", 9)) {
		/* the module's base name in brackets, when known */
		const char *base = strrchr(mod, '/');

		if (strcmp(mod, "[unknown]"))
			sprintf(f, "[%s]", base ? base + 1 : mod);
		else
			strcpy(f, "[unknown]");
	} else {
		memcpy(f, func, fl);
		f[fl] = 0;
	}
	for (p = f; *p; p++)
		if (*p == ';')
			*p = ':';
	/* from the first '(' on is noise, unless the name looks like a Go
	 * method (m/\.\(.*\)\./) or the '(' opens "(anonymous namespace)" */
	p = strstr(f, ".(");
	if (!(p && strstr(p + 2, ")."))) {
		for (p = f; (p = strchr(p, '(')); p++)
			if (strncmp(p + 1, "anonymous namespace)", 20)) {
				*p = 0;
				break;
			}
	}
	for (d = p = f; *p; p++)
		if (*p != '"' && *p != '\'')
			*d++ = *p;
	*d = 0;
	p = java && f[0] == 'L' && strchr(f, '/') ? f + 1 : f;
	zbuf_put(b, ";", 1);
	zbuf_put(b, p, strlen(p));
	if (inl && !strstr(p, "_[i]"))
		zbuf_put(b, "_[i]", 4);
	free(f);
	return b->err;
}

/* Split at the last " (" (the script's greedy regex), offset stripped,
 * "a->b" split, each piece appended. */
int folded_frame(struct zbuf *b, char *text, int java)
{
	char *close = strrchr(text, ')'), *sp = NULL, *q, *mod, *pieces[64];
	size_t fl, np = 0, k;
	int ret = 0;

	for (q = close ? close - 1 : NULL; q && q > text; q--)
		if (q[0] == ' ' && q[1] == '(') {
			sp = q;
			break;
		}
	if (!sp)
		return 0; /* "Unrecognized line": the script skips it */
	*sp = 0;
	*close = 0;
	mod = sp + 2;
	/* s/\+0x[\da-f]+$// */
	fl = strlen(text);
	q = text + fl;
	while (q > text && ((q[-1] >= '0' && q[-1] <= '9') || (q[-1] >= 'a' && q[-1] <= 'f')))
		q--;
	if (q < text + fl && q - text >= 3 && !memcmp(q - 3, "+0x", 3))
		q[-3] = 0;
	if (text[0] == '(')
		return 0; /* "skip process names" */
	/* split /\->/: empty trailing pieces dropped */
	for (q = text; np < sizeof(pieces) / sizeof(pieces[0]);) {
		pieces[np++] = q;
		q = strstr(q, "->");
		if (!q)
			break;
		*q = 0;
		q += 2;
	}
	while (np && !*pieces[np - 1])
		np--;
	for (k = 0; k < np && !ret; k++)
		ret = fold_func(b, pieces[k], strlen(pieces[k]), mod, java, k > 0);
	return ret;
}

/* The frame lines of a stack, leaf first, each a string in lines. */
struct frame_lines {
	struct zbuf lines;
	size_t *offs, nr, cap;
};

/* What stackcollapse reads of a frame line: the text after the address */
static const struct perfscript_fmt line_fmt = {
	PERFSCRIPT_F_SYM | PERFSCRIPT_F_SYMOFF | PERFSCRIPT_F_DSO, 0, 0, 0, NULL};

static int add_line(void *ctx, const struct perfscript_frame *fr)
{
	struct frame_lines *fl = ctx;

	if (ZT_GROW(fl->offs, fl->cap, fl->nr + 1))
		return -ENOMEM;
	/* " SYM[+0xOFF] (DSO)": the text from its second byte on */
	fl->offs[fl->nr++] = fl->lines.len + 1;
	perfscript_frame_text(&fl->lines, &line_fmt, fr);
	zbuf_put(&fl->lines, "", 1);
	return fl->lines.err;
}

/* b's bytes as a string (a NUL after them, not counted). */
static int terminate(struct zbuf *b)
{
	if (zbuf_reserve(b, 1))
		return b->err;
	b->data[b->len] = 0;
	return 0;
}

int folded_stack(struct zbuf *b, const char *comm, const struct rstacks *rs, uint32_t pid,
		 const uint64_t *ips, const struct zt_frange *r, unsigned n, int inline_frames)
{
	struct frame_lines fl = {0};
	char pname[64];
	size_t k;
	int ret, java;

	folded_comm(comm, pname, sizeof(pname));
	java = !strncmp(pname, "java", 4);
	zbuf_reset(b);
	zbuf_put(b, pname, strlen(pname));
	zbuf_init(&fl.lines);
	ret = perfscript_walk(rs->ft, pid, ips, r, n, inline_frames, add_line, &fl);
	/* printed leaf first; the script prepends each line: root first */
	for (k = fl.nr; k-- > 0 && !ret;)
		ret = folded_frame(b, (char *)fl.lines.data + fl.offs[k], java);
	if (!ret)
		ret = b->err ? b->err : terminate(b);
	free(fl.offs);
	zbuf_release(&fl.lines);
	return ret;
}

struct folded_entry {
	char *key;
	uint64_t count;
};

void folded_set_init(struct folded_set *fs)
{
	memset(fs, 0, sizeof(*fs));
}

void folded_set_release(struct folded_set *fs)
{
	size_t i;

	for (i = 0; i < fs->nr; i++)
		free(fs->ents[i].key);
	free(fs->ents);
	zt_htab_release(&fs->hash);
	folded_set_init(fs);
}

static inline uint64_t ent_hash_at(const void *fs, uint32_t i)
{
	return zt_hash_str(((const struct folded_set *)fs)->ents[i].key);
}

int folded_set_add(struct folded_set *fs, const char *stack, uint64_t count)
{
	size_t j;
	uint32_t i;

	if (fs->nr >= UINT32_MAX - 1 || zt_htab_reserve(&fs->hash, 1, ent_hash_at, fs))
		return -ENOMEM;
	for (j = zt_htab_first(&fs->hash, zt_hash_str(stack)); zt_htab_get(&fs->hash, j, &i);
	     j = zt_htab_next(&fs->hash, j))
		if (!strcmp(fs->ents[i].key, stack)) {
			fs->ents[i].count += count;
			return 0;
		}
	if (ZT_GROW(fs->ents, fs->cap, fs->nr + 1) || !(fs->ents[fs->nr].key = strdup(stack)))
		return -ENOMEM;
	fs->ents[fs->nr].count = count;
	zt_htab_set(&fs->hash, j, (uint32_t)fs->nr++);
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct folded_entry *)a)->key, ((const struct folded_entry *)b)->key);
}

int folded_set_write(struct folded_set *fs, folded_write_fn write, void *ctx)
{
	char line[32];
	size_t i;
	int n, ret = 0;

	if (fs->nr)
		qsort(fs->ents, fs->nr, sizeof(*fs->ents), cmp_entry);
	for (i = 0; i < fs->nr && !ret; i++) {
		n = snprintf(line, sizeof(line), " %" PRIu64 "\n", fs->ents[i].count);
		ret = write(ctx, fs->ents[i].key, strlen(fs->ents[i].key));
		if (!ret)
			ret = write(ctx, line, (size_t)n);
	}
	return ret;
}
