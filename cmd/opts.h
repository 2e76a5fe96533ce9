/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Table-driven option parsing for commands (getopt_long underneath): one
 * table per command gives both the parser and the -h text.
 */
#ifndef ZT_OPTS_H
#define ZT_OPTS_H

#include <stdint.h>
#include <stdio.h>

enum opt_type {
	OPT_END = 0,
	OPT_BOOL,     /* int *: set to 1 (--no-NAME sets 0) */
	OPT_COUNT,    /* int *: incremented each time (-v -v) */
	OPT_INT,      /* int *: decimal */
	OPT_U64,      /* uint64_t *: decimal */
	OPT_DOUBLE,   /* double * */
	OPT_STRING,   /* const char **: borrowed from argv */
	OPT_CALLBACK, /* cb(opt, arg) returns 0 or -1 after printing nothing */
	OPT_GROUP,    /* a heading in -h */
};

struct opt {
	enum opt_type type;
	int short_name;        /* 0 if none */
	const char *long_name; /* NULL if none */
	void *value;
	const char *argh;      /* name of the argument in -h; NULL: takes none */
	const char *help;
	int (*cb)(const struct opt *o, const char *arg);
	int optional_arg;      /* the argument may be omitted (--opt[=arg]) */
};

#define OPT_EOL { OPT_END }

enum { OPTS_OK = 0, OPTS_HELP = 1, OPTS_ERROR = -1 };

/*
 * Parse argv[1..]; options stop at the first non-option or "--" (so a
 * workload's own options are left alone). On success returns OPTS_OK and
 * sets *rest to the index of the first remaining argument. -h/--help
 * prints the usage to stdout and returns OPTS_HELP; a bad option prints
 * "zt CMD: ..." and the usage to stderr and returns OPTS_ERROR.
 */
int opts_parse(const char *cmd, const char *const *usage, const struct opt *opts, int argc,
	       char **argv, int *rest);
/* The same, but options may also follow the other arguments ("FILE... -o
 * DIR"): argv is reordered so that the others come last. */
int opts_parse_permute(const char *cmd, const char *const *usage, const struct opt *opts, int argc,
		       char **argv, int *rest);
void opts_usage(FILE *f, const char *const *usage, const struct opt *opts);

#endif
