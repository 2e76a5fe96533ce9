/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Table-driven option parser over getopt_long, with generated -h. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/config.h"
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

/* ---- defaults from the configuration (cmd/config.h) --------------------------- */

static const struct opt *find_long(const struct opt *opts, const char *name)
{
	const struct opt *o;

	for (o = opts; o->type != OPT_END; o++)
		if (o->type != OPT_GROUP && o->long_name && !strcmp(o->long_name, name))
			return o;
	return NULL;
}

/* key's value applied to o (bools: true or false); 0, or -1 after a message. */
static int apply_item(const char *cmd, const struct cfg_key *k, const struct opt *o, const char *v,
		      const struct zt_config_item *it)
{
	char where[4200], msg[512];
	int b = 0;

	if (cfg_check_value(k, v, msg, sizeof(msg)) ||
	    ((o->type == OPT_BOOL || o->type == OPT_CALLBACK) && !o->argh &&
	     (b = zt_config_bool(v)) < 0 &&
	     snprintf(msg, sizeof(msg), "'%s' is not a boolean", v))) {
		fprintf(stderr, "zt %s: %s in %s: %s: fix it with 'zt config %s=VALUE'\n", cmd,
			k->key,
			it ? cmd_config_where(it, where, sizeof(where)) : "the configuration", msg,
			k->key);
		return -1;
	}
	if (o->type == OPT_BOOL || (o->type == OPT_CALLBACK && !o->argh))
		return set_value(cmd, o, NULL, !b);
	if (set_value(cmd, o, v, 0)) {
		fprintf(stderr,
			"zt %s: the value above is %s in %s: fix it with 'zt config %s=VALUE'\n",
			cmd, k->key,
			it ? cmd_config_where(it, where, sizeof(where)) : "the configuration",
			k->key);
		return -1;
	}
	return 0;
}

/* report's --call-graph from perf's call-graph.* keys, when report.call-graph is not set */
static const char *compose_report_chains(char *buf, size_t n)
{
	static const char *const parts[] = {"call-graph.print-type", "call-graph.threshold",
					    "call-graph.print-limit", "call-graph.order"};
	size_t i, off = 0;
	int any = 0;

	buf[0] = 0;
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		const char *v = cmd_config_get(parts[i], NULL);

		/* the print limit is the second number: a threshold goes first */
		if (!v && i == 1 && cmd_config_get(parts[2], NULL))
			v = "0.5";
		if (!v || !*v)
			continue;
		off += (size_t)snprintf(buf + off, off < n ? n - off : 0, "%s%s", any ? "," : "",
					v);
		any = 1;
	}
	return any && off < n ? buf : NULL;
}

/* The configuration's defaults for those of cmd's options the command line
 * did not give (seen[i] for opts[i]), nor an option that excludes them
 * (k->unless). 0, or -1 after a message. */
static int apply_config(const char *cmd, const struct opt *opts, const unsigned char *seen)
{
	static char chains[512];
	const struct cfg_key *k;

	if (!strcmp(cmd, "config"))
		return 0;
	cmd_config(cmd);
	for (k = cfg_keys; k->key; k++) {
		const struct zt_config_item *it;
		const struct opt *o, *u;
		const char *v;

		if (!k->cmd || !k->opt || (strcmp(k->cmd, "*") && strcmp(k->cmd, cmd)))
			continue;
		if (k->kind == CFG_GMODE || !(o = find_long(opts, k->opt)) || seen[o - opts])
			continue;
		if (k->unless && (u = find_long(opts, k->unless)) && seen[u - opts])
			continue;
		v = cmd_config_get(k->key, &it);
		if (!v && !strcmp(k->key, "report.call-graph"))
			v = compose_report_chains(chains, sizeof(chains)), it = NULL;
		if (!v)
			continue;
		/* symbols.debuginfod: a boolean, or the servers (the environment wins) */
		if (!strcmp(k->key, "symbols.debuginfod") && zt_config_bool(v) < 0) {
			if (*v)
				setenv("DEBUGINFOD_URLS", v, 0);
			continue;
		}
		if (apply_item(cmd, k, o, v, it))
			return -1;
	}
	return 0;
}

/* -g without --call-graph: the mode of cmd.call-graph or call-graph.record-mode. */
static int apply_gmode(const char *cmd, const struct opt *opts)
{
	static char mode[64];
	const struct zt_config_item *it = NULL;
	const struct cfg_key *k;
	const struct opt *o = find_long(opts, "call-graph");
	const char *v = NULL, *size;
	char key[64];

	snprintf(key, sizeof(key), "%s.call-graph", cmd);
	k = cfg_key_find(key);
	if (!o || !k || k->kind != CFG_GMODE)
		return 0;
	v = cmd_config_get(key, &it);
	/* perf's shared key; zt top unwinds frame pointers only, so not for it */
	if (!v && !strcmp(cmd, "record"))
		v = cmd_config_get("call-graph.record-mode", &it);
	if (!v)
		return 0;
	size = cmd_config_get("call-graph.dump-size", NULL);
	if (!strcmp(v, "dwarf") && size && *size) {
		snprintf(mode, sizeof(mode), "dwarf,%s", size);
		v = mode;
	}
	return apply_item(cmd, k, o, v, it);
}

/* --list-opts (hidden, for the shell completion): the options, one a line. */
static void list_opts(const struct opt *opts)
{
	const struct opt *o;

	for (o = opts; o->type != OPT_END; o++) {
		if (o->type == OPT_GROUP || !o->long_name)
			continue;
		printf("--%s%s\n", o->long_name, o->argh && !o->optional_arg ? "=" : "");
		if (o->type == OPT_BOOL)
			printf("--no-%s\n", o->long_name);
	}
	printf("--help\n");
	for (o = opts; o->type != OPT_END; o++)
		if (o->type != OPT_GROUP && o->short_name)
			printf("-%c\n", o->short_name);
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
	int c, ret = OPTS_OK, saw_g = 0, saw_cg = 0;
	unsigned char seen[512] = {0};

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

	if (argc == 2 && !strcmp(argv[1], "--list-opts")) {
		list_opts(opts);
		return OPTS_HELP;
	}
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
		if (o - opts < (long)sizeof(seen))
			seen[o - opts] = 1;
		if (o->short_name == 'g' && o->type == OPT_BOOL)
			saw_g = !neg;
		if (o->long_name && !strcmp(o->long_name, "call-graph"))
			saw_cg = 1;
	}
	/* then the configuration's defaults, for what the command line left */
	if (ret == OPTS_OK &&
	    (apply_config(cmd, opts, seen) || (saw_g && !saw_cg && apply_gmode(cmd, opts))))
		return OPTS_ERROR;
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
