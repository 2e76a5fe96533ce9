// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Prometheus selectors: parsing and matching (server/selector.h).
 */
#include "server/selector.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprof/log.h"

/* the sentence into msg; -EINVAL */
#define say(msg, msglen, ...) (zt_say(msg, msglen, __VA_ARGS__), -EINVAL)

/* up to 24 bytes of s as printable ASCII ('?' for the rest) */
static const char *quote(const char *s, size_t n, char out[32])
{
	size_t i, k = 0;

	for (i = 0; i < n && k < 24; i++)
		out[k++] = (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"') ? s[i] : '?';
	if (i < n && k < 28) {
		out[k++] = '.';
		out[k++] = '.';
		out[k++] = '.';
	}
	out[k] = 0;
	return out;
}

static int name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == ':';
}

int zs_label_name_ok(const char *name, size_t len)
{
	size_t i;

	if (!len || len > 64 || !name_start(name[0]))
		return 0;
	for (i = 1; i < len; i++)
		if (!name_char(name[i]))
			return 0;
	return 1;
}

const char *zs_mop_text(enum zs_mop op)
{
	switch (op) {
	case ZS_MOP_EQ:
		return "=";
	case ZS_MOP_NE:
		return "!=";
	case ZS_MOP_RE:
		return "=~";
	default:
		return "!~";
	}
}

int zs_matcher_positive(const struct zs_matcher *m, const char *v)
{
	if (m->op == ZS_MOP_EQ || m->op == ZS_MOP_NE)
		return !strcmp(m->value, v);
	return !regexec(&m->re, v, 0, NULL, 0);
}

int zs_matcher_holds(const struct zs_matcher *m, const char *const *values, size_t n)
{
	int any = 0;
	size_t i;

	if (!n)
		any = m->empty_ok;
	for (i = 0; i < n && !any; i++)
		any = zs_matcher_positive(m, values[i]);
	return (m->op == ZS_MOP_EQ || m->op == ZS_MOP_RE) ? any : !any;
}

const struct zs_matcher *zs_selector_find(const struct zs_selector *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->m[i].name, name))
			return &s->m[i];
	return NULL;
}

#define MAX_REPEAT 1000 /* RE2's bound on a counted repetition, here on their nesting too */
#define MAX_DEPTH 64

/* Whether a regular expression is one zt compiles: what RE2 (Prometheus's
 * engine) refuses, glibc's regcomp may take time or memory exponential in
 * the pattern's length for (a repetition of a repetition, "a++++"; counted
 * repetitions nested: "((a{1000}){1000})"; back-references). 0, or
 * -EINVAL with msg. */
static int re_ok(const char *v, const char *name, char *msg, size_t msglen)
{
	uint64_t inner[MAX_DEPTH + 1];
	size_t depth = 0, i = 0, n = strlen(v);
	int after_rep = 0, atom = 0;
	uint64_t closed = 1; /* the expansion of the atom just ended */
	uint64_t total = 0;  /* of every repetition */

	inner[0] = 1;
	while (i < n) {
		char c = v[i];

		if (c == '*' || c == '+' || c == '?' || c == '{') {
			uint64_t b = 1;

			if (after_rep)
				return say(msg, msglen,
					   "bad regular expression for %s: a repetition of a "
					   "repetition at offset %zu",
					   name, i);
			if (!atom)
				return say(msg, msglen,
					   "bad regular expression for %s: a repetition of nothing "
					   "at offset %zu",
					   name, i);
			if (c == '{') {
				uint64_t m = 0, k = 0;
				int digits = 0;

				for (i++; i < n && v[i] >= '0' && v[i] <= '9'; i++, digits++)
					if ((m = m * 10 + (uint64_t)(v[i] - '0')) > MAX_REPEAT)
						goto big;
				if (i < n && v[i] == ',')
					for (i++; i < n && v[i] >= '0' && v[i] <= '9'; i++, digits++)
						if ((k = k * 10 + (uint64_t)(v[i] - '0')) > MAX_REPEAT)
							goto big;
				if (i >= n || v[i] != '}' || !digits)
					return say(msg, msglen,
						   "bad regular expression for %s: a bad {m,n} at "
						   "offset %zu",
						   name, i);
				b = (m > k ? m : k) ? (m > k ? m : k) : 1;
			}
			if (closed * b > MAX_REPEAT || (total += closed * b) > 10 * MAX_REPEAT)
				goto big;
			if (closed * b > inner[depth])
				inner[depth] = closed * b;
			after_rep = 1;
			i++;
			continue;
		}
		after_rep = 0;
		atom = 1;
		closed = 1;
		if (c == '\\') {
			if (i + 1 < n && v[i + 1] >= '1' && v[i + 1] <= '9')
				return say(msg, msglen,
					   "bad regular expression for %s: back-references (\\%c) "
					   "are not taken",
					   name, v[i + 1]);
			i += 2;
		} else if (c == '[') {
			/* a bracket expression: "]" first is a member; [:class:] inside */
			i++;
			if (i < n && v[i] == '^')
				i++;
			if (i < n && v[i] == ']')
				i++;
			while (i < n && v[i] != ']') {
				if (v[i] == '[' && i + 1 < n && (v[i + 1] == ':' || v[i + 1] == '.' ||
								 v[i + 1] == '=')) {
					const char *e = strstr(v + i + 2, (char[3]){ v[i + 1], ']', 0 });

					i = e ? (size_t)(e - v) + 2 : n;
				} else {
					i++;
				}
			}
			i++;
		} else if (c == '(') {
			if (depth >= MAX_DEPTH)
				return say(msg, msglen,
					   "bad regular expression for %s: more than %d groups inside "
					   "each other",
					   name, MAX_DEPTH);
			inner[++depth] = 1;
			atom = 0;
			i++;
		} else if (c == ')') {
			if (!depth)
				return say(msg, msglen,
					   "bad regular expression for %s: a ')' without '(' at offset "
					   "%zu",
					   name, i);
			closed = inner[depth--];
			if (closed > inner[depth])
				inner[depth] = closed;
			i++;
		} else if (c == '|') {
			atom = 0;
			i++;
		} else {
			i++;
		}
	}
	return 0;
big:
	return say(msg, msglen,
		   "bad regular expression for %s: counted repetitions of more than %d in all",
		   name, MAX_REPEAT);
}

int zs_selector_add(struct zs_selector *s, const char *name, enum zs_mop op, const char *value,
		    char *msg, size_t msglen)
{
	struct zs_matcher *m;
	char qb[32];
	size_t vl = strlen(value);

	if (!zs_label_name_ok(name, strlen(name)))
		return say(msg, msglen,
			   "bad label name \"%s\": a letter or '_', then letters, digits, '_', "
			   "'.', '-' or ':', at most 64",
			   quote(name, strlen(name), qb));
	if (s->n >= ZS_MAX_MATCHERS)
		return say(msg, msglen, "too many matchers (at most %d)", ZS_MAX_MATCHERS);
	if (vl > ZS_MAX_MATCH_VALUE)
		return say(msg, msglen, "the value of %s is longer than %d bytes", name,
			   ZS_MAX_MATCH_VALUE);
	if ((op == ZS_MOP_RE || op == ZS_MOP_NRE) && re_ok(value, name, msg, msglen))
		return -EINVAL;
	m = &s->m[s->n];
	memset(m, 0, sizeof(*m));
	m->op = op;
	m->name = strdup(name);
	m->value = strdup(value);
	if (!m->name || !m->value) {
		free(m->name);
		free(m->value);
		return -ENOMEM;
	}
	if (op == ZS_MOP_RE || op == ZS_MOP_NRE) {
		char *anch = malloc(vl + 5);
		int rc;

		if (!anch) {
			free(m->name);
			free(m->value);
			return -ENOMEM;
		}
		snprintf(anch, vl + 5, "^(%s)$", value);
		rc = regcomp(&m->re, anch, REG_EXTENDED | REG_NOSUB);
		free(anch);
		if (rc) {
			char err[96];

			regerror(rc, NULL, err, sizeof(err));
			free(m->name);
			free(m->value);
			return say(msg, msglen, "bad regular expression for %s (\"%s\"): %s", name,
				   quote(value, vl, qb), err);
		}
	}
	s->n++;
	m->empty_ok = zs_matcher_positive(m, "");
	return 0;
}

void zs_selector_release(struct zs_selector *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (s->m[i].op == ZS_MOP_RE || s->m[i].op == ZS_MOP_NRE)
			regfree(&s->m[i].re);
		free(s->m[i].name);
		free(s->m[i].value);
	}
	s->n = 0;
}

/* ---- parsing ----------------------------------------------------------------------- */

struct lex {
	const char *p, *end, *start;
	char *msg;
	size_t msglen;
};

static void skip_ws(struct lex *x)
{
	while (x->p < x->end && (*x->p == ' ' || *x->p == '\t' || *x->p == '\n' || *x->p == '\r'))
		x->p++;
}

/* A name into out (65 bytes). */
static int lex_name(struct lex *x, char out[65], const char *what)
{
	const char *b = x->p;
	char qb[32];

	while (x->p < x->end && name_char(*x->p))
		x->p++;
	if (x->p == b || !zs_label_name_ok(b, (size_t)(x->p - b)))
		return say(x->msg, x->msglen, "expected %s at offset %zu, found \"%s\"", what,
			   (size_t)(b - x->start), quote(b, (size_t)(x->end - b), qb));
	memcpy(out, b, (size_t)(x->p - b));
	out[x->p - b] = 0;
	return 0;
}

/* A quoted string, decoded into out (ZS_MAX_MATCH_VALUE + 1 bytes). */
static int lex_string(struct lex *x, char *out)
{
	char q, qb[32];
	size_t n = 0;

	if (x->p >= x->end || (*x->p != '"' && *x->p != '\'' && *x->p != '`'))
		return say(x->msg, x->msglen,
			   "expected a quoted value at offset %zu, found \"%s\"",
			   (size_t)(x->p - x->start), quote(x->p, (size_t)(x->end - x->p), qb));
	q = *x->p++;
	for (;;) {
		char c;

		if (x->p >= x->end)
			return say(x->msg, x->msglen, "a value is not closed with %c", q);
		c = *x->p++;
		if (c == q)
			break;
		if (!c)
			return say(x->msg, x->msglen, "a NUL byte in a value");
		if (c == '\\' && q != '`') {
			if (x->p >= x->end)
				return say(x->msg, x->msglen, "a value ends with a backslash");
			c = *x->p++;
			switch (c) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case '\\':
			case '"':
			case '\'':
			case '`':
				break;
			default: /* kept for the regular expression (\. \d ...) */
				if (n >= ZS_MAX_MATCH_VALUE)
					goto long_;
				out[n++] = '\\';
			}
		}
		if (n >= ZS_MAX_MATCH_VALUE)
			goto long_;
		out[n++] = c;
	}
	out[n] = 0;
	return 0;
long_:
	return say(x->msg, x->msglen, "a value is longer than %d bytes", ZS_MAX_MATCH_VALUE);
}

static int lex_op(struct lex *x, enum zs_mop *op)
{
	char qb[32];

	if (x->end - x->p >= 2 && x->p[0] == '=' && x->p[1] == '~') {
		*op = ZS_MOP_RE;
		x->p += 2;
	} else if (x->end - x->p >= 2 && x->p[0] == '!' && x->p[1] == '=') {
		*op = ZS_MOP_NE;
		x->p += 2;
	} else if (x->end - x->p >= 2 && x->p[0] == '!' && x->p[1] == '~') {
		*op = ZS_MOP_NRE;
		x->p += 2;
	} else if (x->p < x->end && x->p[0] == '=') {
		*op = ZS_MOP_EQ;
		x->p++;
	} else {
		return say(x->msg, x->msglen,
			   "expected =, !=, =~ or !~ at offset %zu, found \"%s\"",
			   (size_t)(x->p - x->start), quote(x->p, (size_t)(x->end - x->p), qb));
	}
	return 0;
}

int zs_selector_parse(const char *text, size_t len, struct zs_selector *s, char *msg,
		      size_t msglen)
{
	struct lex x = { text, text + len, text, msg, msglen };
	char name[65], *value;
	int err = 0;

	memset(s, 0, sizeof(*s));
	if (len > ZS_MAX_SELECTOR)
		return say(msg, msglen, "a selector is longer than %d bytes", ZS_MAX_SELECTOR);
	if (memchr(text, 0, len))
		return say(msg, msglen, "a NUL byte in the selector");
	if (!(value = malloc(ZS_MAX_MATCH_VALUE + 1)))
		return -ENOMEM;
	skip_ws(&x);
	if (x.p < x.end && *x.p != '{') {
		err = lex_name(&x, name, "a profile type or '{'");
		if (!err)
			err = zs_selector_add(s, "__name__", ZS_MOP_EQ, name, msg, msglen);
		skip_ws(&x);
	}
	if (!err && x.p < x.end && *x.p == '{') {
		x.p++;
		for (;;) {
			enum zs_mop op = ZS_MOP_EQ;

			skip_ws(&x);
			if (x.p < x.end && *x.p == '}') {
				x.p++;
				break;
			}
			if ((err = lex_name(&x, name, "a label name or '}'")))
				break;
			skip_ws(&x);
			if ((err = lex_op(&x, &op)))
				break;
			skip_ws(&x);
			if ((err = lex_string(&x, value)))
				break;
			if ((err = zs_selector_add(s, name, op, value, msg, msglen)))
				break;
			skip_ws(&x);
			if (x.p < x.end && *x.p == ',') {
				x.p++;
				continue;
			}
			if (x.p < x.end && *x.p == '}') {
				x.p++;
				break;
			}
			err = say(msg, msglen, "expected ',' or '}' at offset %zu",
				  (size_t)(x.p - x.start));
			break;
		}
		skip_ws(&x);
	}
	if (!err && x.p < x.end) {
		char qb[32];

		err = say(msg, msglen, "unexpected \"%s\" at offset %zu",
			  quote(x.p, (size_t)(x.end - x.p), qb), (size_t)(x.p - x.start));
	}
	free(value);
	if (err)
		zs_selector_release(s);
	return err;
}
