// SPDX-License-Identifier: GPL-2.0-or-later
/* Tracepoint fields printed by libtraceevent, as perf script 6.1 does. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/tracefmt.h"

#ifdef ZT_HAVE_TRACEEVENT
#include <event-parse.h>
#include <trace-seq.h>

/*
 * A record is copied into a zeroed scratch buffer before libtraceevent
 * reads it: it trusts the format's offsets and a dynamic field's 16-bit
 * offset and length, so with 3 x 64 KiB of zeros after the record (and
 * formats whose fields lie in the first 64 KiB, checked before parsing)
 * what it reads lies inside the buffer, and every string ends. What it
 * does not bound, the length of a __print_hex() or __print_array() (a
 * field's value, or arithmetic on one), is computed here first
 * (print_args_fit): a record asking for more than 64 KiB, or a length this
 * cannot compute, gets its fields printed raw (name=value) instead.
 */
#define SCRATCH (PROF_RAW_MAX + 3 * 65536 + 64) /* __rel_loc: field + offset + length */

struct tracefmt {
	struct tep_handle *tep;
	unsigned bad, good;
	uint8_t *scratch;
	size_t dirty; /* bytes of scratch that may not be zero */
	tracefmt_ksym_fn ksym;
	void *ksym_ctx;
};

int tracefmt_available(void)
{
	return 1;
}

/* A blob's text as a NUL-terminated copy (libtraceevent wants one). */
static char *text_copy(const uint8_t *d, size_t len)
{
	char *s = malloc(len + 1);

	if (s) {
		memcpy(s, d, len);
		s[len] = 0;
	}
	return s;
}

/* Every field of format text (NUL-terminated) within PROF_RAW_MAX bytes. */
static int fields_fit(const char *text)
{
	const char *o = text, *z;

	while ((o = strstr(o, "offset:"))) {
		long off = strtol(o + 7, NULL, 10), size;

		z = strstr(o, "size:");
		if (!z)
			return 0;
		size = strtol(z + 5, NULL, 10);
		if (off < 0 || size < 0 || off > PROF_RAW_MAX || size > PROF_RAW_MAX - off)
			return 0;
		o = z;
	}
	return 1;
}

static int add_blob(struct tracefmt *t, const struct prof_blob *b)
{
	const uint8_t *nul;
	char *text;
	int ret = 0;

	switch (b->kind) {
	case PROF_BLOB_TRACE_HEADER:
		if (!(text = text_copy(b->data, b->len)))
			return -ENOMEM;
		/* only kbuffer's business (ring-buffer pages), not the records' */
		tep_parse_header_page(t->tep, text, b->len, 8);
		free(text);
		return 0;
	case PROF_BLOB_TRACE_PRINTK:
		if (!(text = text_copy(b->data, b->len)))
			return -ENOMEM;
		tep_parse_printk_formats(t->tep, text);
		free(text);
		return 0;
	case PROF_BLOB_TRACE_FORMAT:
		nul = memchr(b->data, 0, b->len);
		if (!nul) {
			t->bad++;
			return 0;
		}
		if (!(text = text_copy(b->data, b->len)))
			return -ENOMEM;
		if (!fields_fit(text + (nul - b->data) + 1) ||
		    tep_parse_event(t->tep, text + (nul - b->data) + 1,
				    b->len - (size_t)(nul - b->data) - 1, text))
			t->bad++;
		else
			t->good++;
		free(text);
		return ret;
	}
	return 0;
}

int tracefmt_new(const struct profile *p, struct tracefmt **out)
{
	struct tracefmt *t;
	size_t i;
	int ret = 0;

	for (i = 0; i < p->nr_blobs; i++)
		if (p->blobs[i].kind == PROF_BLOB_TRACE_FORMAT)
			break;
	if (i == p->nr_blobs)
		return -ENOENT;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	/* the library logs parse errors on stderr: zt's libraries do not print */
	tep_set_loglevel(TEP_LOG_NONE);
	t->tep = tep_alloc();
	t->scratch = calloc(1, SCRATCH);
	if (!t->tep || !t->scratch) {
		ret = -ENOMEM;
		goto out;
	}
	/* zt.data and the perf.data zt reads are this machine's byte order (x86-64) */
	tep_set_file_bigendian(t->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(t->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(t->tep, 8);
	tep_set_page_size(t->tep, 4096);
	for (i = 0; i < p->nr_blobs && !ret; i++)
		ret = add_blob(t, &p->blobs[i]);
out:
	if (ret) {
		tracefmt_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

void tracefmt_free(struct tracefmt *t)
{
	if (!t)
		return;
	if (t->tep)
		tep_free(t->tep);
	free(t->scratch);
	free(t);
}

unsigned tracefmt_nr_bad(const struct tracefmt *t)
{
	return t->bad;
}

/* libtraceevent's function resolver: the name is borrowed (it keeps it) */
static char *resolve(void *priv, unsigned long long *addrp, char **modp)
{
	struct tracefmt *t = priv;
	uint64_t start = 0;
	const char *name = t->ksym(t->ksym_ctx, *addrp, &start);

	if (!name)
		return NULL;
	*addrp = start;
	*modp = NULL;
	return (char *)name;
}

void tracefmt_set_ksym(struct tracefmt *t, tracefmt_ksym_fn fn, void *ctx)
{
	t->ksym = fn;
	t->ksym_ctx = ctx;
	if (fn)
		tep_set_function_resolver(t->tep, resolve, t);
	else
		tep_reset_function_resolver(t->tep);
}

/* The value of a length expression of ev's print fmt over data, as
 * libtraceevent computes it; 0 when this cannot tell (then the caller
 * does not let libtraceevent print). */
static int eval_len(struct tep_event *ev, struct tep_print_arg *a, const void *data,
		    unsigned long long *v, int depth)
{
	unsigned long long l, r;
	struct tep_format_field *f;

	if (!a || depth > 16)
		return 0;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		*v = strtoull(a->atom.atom, NULL, 0);
		return 1;
	case TEP_PRINT_FIELD:
		f = a->field.field ? a->field.field : tep_find_any_field(ev, a->field.name);
		return f && !tep_read_number_field(f, data, v);
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		f = a->dynarray.field;
		if (!f || tep_read_number_field(f, data, v))
			return 0;
		*v = (*v >> 16) & 0xffff;
		return 1;
	case TEP_PRINT_TYPE:
		return eval_len(ev, a->typecast.item, data, v, depth + 1);
	case TEP_PRINT_OP:
		if (!a->op.op || !eval_len(ev, a->op.left, data, &l, depth + 1) ||
		    !eval_len(ev, a->op.right, data, &r, depth + 1))
			return 0;
		if (!strcmp(a->op.op, "+"))
			return !__builtin_add_overflow(l, r, v);
		if (!strcmp(a->op.op, "*"))
			return !__builtin_mul_overflow(l, r, v);
		if (!strcmp(a->op.op, "-"))
			return l >= r ? (*v = l - r, 1) : 0;
		if (!strcmp(a->op.op, "/"))
			return r ? (*v = l / r, 1) : 0;
		if (!strcmp(a->op.op, ">>"))
			return (*v = r < 64 ? l >> r : 0), 1;
		if (!strcmp(a->op.op, "&"))
			return (*v = l & r), 1;
		return 0;
	default:
		return 0;
	}
}

#define PRINT_MAX 65536 /* bytes a __print_hex() or __print_array() may show */

/* Whether the lengths libtraceevent will trust in ev's print args are
 * known and at most PRINT_MAX bytes for this record. */
static int print_args_fit(struct tep_event *ev, struct tep_print_arg *a, const void *data,
			  int depth)
{
	unsigned long long n, el;

	if (depth > 16)
		return 0;
	for (; a; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
			if (!eval_len(ev, a->hex.size, data, &n, 0) || n > PRINT_MAX)
				return 0;
			break;
		case TEP_PRINT_INT_ARRAY:
			if (!eval_len(ev, a->int_array.count, data, &n, 0) ||
			    !eval_len(ev, a->int_array.el_size, data, &el, 0) || el > 8 ||
			    n > PRINT_MAX / (el ? el : 1))
				return 0;
			break;
		case TEP_PRINT_OP:
			if (!print_args_fit(ev, a->op.left, data, depth + 1) ||
			    !print_args_fit(ev, a->op.right, data, depth + 1))
				return 0;
			break;
		case TEP_PRINT_TYPE:
			if (!print_args_fit(ev, a->typecast.item, data, depth + 1))
				return 0;
			break;
		case TEP_PRINT_FLAGS:
			if (!print_args_fit(ev, a->flags.field, data, depth + 1))
				return 0;
			break;
		case TEP_PRINT_SYMBOL:
			if (!print_args_fit(ev, a->symbol.field, data, depth + 1))
				return 0;
			break;
		case TEP_PRINT_FUNC:
			if (!print_args_fit(ev, a->func.args, data, depth + 1))
				return 0;
			break;
		default:
			break;
		}
	}
	return 1;
}

unsigned tracefmt_nr_events(const struct tracefmt *t)
{
	return t->good;
}

int tracefmt_print(struct tracefmt *t, uint32_t cpu, const void *raw, size_t len, struct zbuf *out)
{
	struct tep_record rec = {0};
	struct trace_seq s;
	struct tep_event *ev;
	size_t i, at;
	int ret = 0;

	if (len > PROF_RAW_MAX)
		return -E2BIG;
	if (len < 2) /* not even a common_type */
		return -ENOENT;
	memcpy(t->scratch, raw, len);
	if (t->dirty > len)
		memset(t->scratch + len, 0, t->dirty - len);
	t->dirty = len;
	rec.cpu = (int)cpu;
	rec.size = (int)len;
	rec.data = t->scratch;
	ev = tep_find_event_by_record(t->tep, &rec);
	if (!ev)
		return -ENOENT;
	trace_seq_init(&s);
	tep_print_event(t->tep, &s, &rec, "%s",
			print_args_fit(ev, ev->print_fmt.args, rec.data, 0) ? TEP_PRINT_INFO
									    : TEP_PRINT_INFO_RAW);
	if (s.state != TRACE_SEQ__GOOD) {
		ret = -ENOMEM;
		goto out;
	}
	at = out->len;
	zbuf_put(out, s.buffer, s.len);
	for (i = at; !out->err && i < out->len; i++)
		if (out->data[i] < 0x20 || out->data[i] == 0x7f)
			out->data[i] = '?';
	ret = out->err;
out:
	trace_seq_destroy(&s);
	return ret;
}

#else /* !ZT_HAVE_TRACEEVENT */

struct tracefmt {
	int unused;
};

int tracefmt_available(void)
{
	return 0;
}

int tracefmt_new(const struct profile *p, struct tracefmt **out)
{
	(void)p;
	*out = NULL;
	return -ENOTSUP;
}

void tracefmt_free(struct tracefmt *t)
{
	free(t);
}

unsigned tracefmt_nr_bad(const struct tracefmt *t)
{
	(void)t;
	return 0;
}

unsigned tracefmt_nr_events(const struct tracefmt *t)
{
	(void)t;
	return 0;
}

void tracefmt_set_ksym(struct tracefmt *t, tracefmt_ksym_fn fn, void *ctx)
{
	(void)t, (void)fn, (void)ctx;
}

int tracefmt_print(struct tracefmt *t, uint32_t cpu, const void *raw, size_t len, struct zbuf *out)
{
	(void)t, (void)cpu, (void)raw, (void)len, (void)out;
	return -ENOTSUP;
}

#endif
