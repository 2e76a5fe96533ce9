/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Selections of zt serve in Prometheus's selector syntax:
 *
 *   {__name__="cpu",env=~"prod.*",host!="db1"}     cpu{env="prod"}     cpu
 *
 * A selector is a list of matchers, all of which must hold: a label name,
 * an operator (=, !=, =~, !~) and a value in double quotes, single quotes
 * or backquotes (Go's escapes in the first two: \" \' \\ \n \t). Regular
 * expressions are POSIX extended ones, anchored at both ends as
 * Prometheus anchors its RE2 ones. A label that a profile lacks has the
 * value "" (so host!="db1" holds for a profile without a host, and
 * env=~".*" for every profile), as in Prometheus. Label names are
 * Prometheus's ([A-Za-z_][A-Za-z0-9_]*) plus the '.' and '-' zt's labels
 * may have.
 *
 * Pure functions on outside input: unit tested and fuzzed on their own
 * (tests/unit/test_selector.c, tests/fuzz/fuzz_selector.c).
 */
#ifndef ZT_SERVER_SELECTOR_H
#define ZT_SERVER_SELECTOR_H

#include <regex.h>
#include <stddef.h>
#include <string.h>

#define ZS_MAX_MATCHERS 32     /* matchers of one selector */
#define ZS_MAX_SELECTOR 4096   /* bytes of a selector */
#define ZS_MAX_MATCH_VALUE 1024 /* bytes of a matcher's value, decoded */

enum zs_mop { ZS_MOP_EQ, ZS_MOP_NE, ZS_MOP_RE, ZS_MOP_NRE };

struct zs_matcher {
	char *name;     /* malloc'ed */
	char *value;    /* malloc'ed, decoded */
	enum zs_mop op;
	int empty_ok;   /* the positive form (= or =~) holds for "" */
	regex_t re;     /* =~ and !~: the anchored expression */
};

struct zs_selector {
	struct zs_matcher m[ZS_MAX_MATCHERS];
	size_t n;
};

/*
 * Parse text (len bytes, need not be NUL-terminated) into s (which needs
 * zs_selector_release() only when this returned 0). 0, or -EINVAL with a
 * sentence in msg that quotes only printable ASCII of the input; -ENOMEM.
 */
int zs_selector_parse(const char *text, size_t len, struct zs_selector *s, char *msg,
		      size_t msglen);
void zs_selector_release(struct zs_selector *s);

/* Add one matcher (name and value copied; a regular expression compiled).
 * 0, -EINVAL (msg: a bad name or expression, too many), -ENOMEM. */
int zs_selector_add(struct zs_selector *s, const char *name, enum zs_mop op, const char *value,
		    char *msg, size_t msglen);

/* Whether m's positive form (= for = and !=, =~ for =~ and !~) holds for v. */
int zs_matcher_positive(const struct zs_matcher *m, const char *v);
/* Whether m holds for a label with these values (n 0: the label is
 * absent, its value ""): = and =~ hold when one value matches; != and !~
 * when none does. */
int zs_matcher_holds(const struct zs_matcher *m, const char *const *values, size_t n);

/* The first matcher named name, or NULL. */
const struct zs_matcher *zs_selector_find(const struct zs_selector *s, const char *name);

/* Whether m selects samples by their process (comm, pid), not profiles. */
static inline int zs_matcher_is_proc(const struct zs_matcher *m)
{
	return !strcmp(m->name, "comm") || !strcmp(m->name, "pid");
}

/* "=", "!=", "=~", "!~" */
const char *zs_mop_text(enum zs_mop op);

/* Whether name is a label name a selector may hold. */
int zs_label_name_ok(const char *name, size_t len);

#endif
