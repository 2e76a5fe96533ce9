/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Table-driven option parser over getopt_long, with generated -h. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/opts.h"

#define NEG_BASE 0x10000 /* --no-NAME of bool option i is NEG_BASE + i */
#define LONG_BASE 0x20000 /* long-only option i */

void opts_usage(FILE *f, const char *const *usage, const struct opt *opts)
{
	const struct opt *o;

	for (int i = 0; usage && usage[i]; i++)
		fprintf(f, "%s%s\n", i ? "   or: " : "usage: ", usage[i]);
	fputc('\n', f);
	for (o = opts; o->type != OPT_END; o++) {
		char left[512];
		int n = 0;

		if (o->type == OPT_GROUP) {
			fprintf(f, "\n%s\n", o->help);
			continue;
		}
		if (o->short_name)
			n += snprintf(left + n, sizeof(left) - n, "-%c", o->short_name);
		else
			n += snprintf(left + n, sizeof(left) - n, "   ");
		if (o->long_name)
				n += snprintf(left + n, sizeof(left) - n, "%s--%s", o->short_name ? ", " : " ",
				      o->long_name);
		if (o->argh && n < (int)sizeof(left))
			snprintf(left + n, sizeof(left) - n, o->optional_arg ? "[=<%s>]" : " <%s>", o->argh);
		/* a long option and placeholder whole, its help on the next line */
		if (strlen(left) > 28)
			fprintf(f, "    %s\n    %-28s %s\n", left, "", o->help ? o->help : "");
		else
			fprintf(f, "    %-28s %s\n", left, o->help ? o->help : "");
	}
}

static int set_value(const char *cmd, const struct opt *o, const char *arg, int neg)
{
	char *end;

	switch (o->type) {
	case OPT_BOOL:
		*(int *)o->value = !neg;
		return 0;
	case OPT_COUNT:
		(*(int *)o->value)++;
		return 0;
	case OPT_INT: {
		long v;

		errno = 0;
		v = strtol(arg, &end, 0);
		if (errno || *end || end == arg || v < INT32_MIN || v > INT32_MAX)
			break;
		*(int *)o->value = (int)v;
		return 0;
	}
	case OPT_U64: {
		unsigned long long v;

		errno = 0;
		v = strtoull(arg, &end, 0);
		if (errno || *end || end == arg || arg[0] == '-')
			break;
		*(uint64_t *)o->value = v;
		return 0;
	}
	case OPT_DOUBLE: {
		double v;

		errno = 0;
		v = strtod(arg, &end);
		if (errno || *end || end == arg)
			break;
		*(double *)o->value = v;
		return 0;
	}
	case OPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPT_CALLBACK:
		return o->cb(o, arg);
	default:
		return -1;
	}
	if (o->long_name)
		fprintf(stderr, "zt %s: option '--%s' expects a number, not '%s'\n", cmd, o->long_name, arg);
	else
		fprintf(stderr, "zt %s: option '-%c' expects a number, not '%s'\n", cmd, o->short_name, arg);
	return -1;
}

static int parse(const char *cmd, const char *const *usage, const struct opt *opts, int argc,
		 char **argv, int *rest, int permute)
{
	struct option lopts[128];
	char sopts[256] = "+:h";
	size_t nl = 0, ns = 3, i;

	if (permute) {
		memcpy(sopts, ":h", 3);
		ns = 2;
	}
	int c, ret = OPTS_OK;

	for (i = 0; opts[i].type != OPT_END && nl + 3 < 128; i++) {
		const struct opt *o = &opts[i];
		int has_arg = o->argh ? (o->optional_arg ? optional_argument : required_argument)
				      : no_argument;

		if (o->type == OPT_GROUP)
			continue;
		if (o->short_name && ns + 3 < sizeof(sopts)) {
			sopts[ns++] = (char)o->short_name;
			if (o->argh)
				sopts[ns++] = ':';
			if (o->argh && o->optional_arg)
				sopts[ns++] = ':';
		}
		if (o->long_name) {
			lopts[nl++] = (struct option){ o->long_name, has_arg, NULL,
						       o->short_name ? o->short_name : (int)(LONG_BASE + i) };
			if (o->type == OPT_BOOL) {
				static char negs[128][48];

				snprintf(negs[i % 128], sizeof(negs[0]), "no-%s", o->long_name);
				lopts[nl++] = (struct option){ negs[i % 128], no_argument, NULL, (int)(NEG_BASE + i) };
			}
		}
	}
	lopts[nl++] = (struct option){ "help", no_argument, NULL, 'h' };
	lopts[nl] = (struct option){ 0 };
	sopts[ns] = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		const struct opt *o = NULL;
		int neg = 0;

		if (c == 'h') {
			opts_usage(stdout, usage, opts);
			return OPTS_HELP;
		}
		if (c == '?' || c == ':') {
			const char *what = argv[optind - 1];

			if (optopt && c == '?')
				fprintf(stderr, "zt %s: unknown option '-%c'\n", cmd, optopt);
			else if (c == '?')
				fprintf(stderr, "zt %s: unknown option '%s'\n", cmd, what);
			else
				fprintf(stderr, "zt %s: option '%s' needs a value\n", cmd, what);
			ret = OPTS_ERROR;
			break;
		}
		if (c >= LONG_BASE) {
			o = &opts[c - LONG_BASE];
		} else if (c >= NEG_BASE) {
			o = &opts[c - NEG_BASE];
			neg = 1;
		} else {
			for (i = 0; opts[i].type != OPT_END; i++)
				if (opts[i].short_name == c && opts[i].type != OPT_GROUP)
					o = &opts[i];
		}
		if (!o || set_value(cmd, o, optarg, neg)) {
			ret = OPTS_ERROR;
			break;
		}
	}
	if (ret == OPTS_ERROR) {
		fputc('\n', stderr);
		opts_usage(stderr, usage, opts);
		return ret;
	}
	*rest = optind;
	return OPTS_OK;
}

int opts_parse(const char *cmd, const char *const *usage, const struct opt *opts, int argc,
	       char **argv, int *rest)
{
	return parse(cmd, usage, opts, argc, argv, rest, 0);
}

int opts_parse_permute(const char *cmd, const char *const *usage, const struct opt *opts, int argc,
		       char **argv, int *rest)
{
	return parse(cmd, usage, opts, argc, argv, rest, 1);
}
