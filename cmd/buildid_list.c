/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt buildid-list: the build ids and paths of a recording's modules, as
 * `perf buildid-list` prints them; -k the running kernel's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/input.h"
#include "cmd/opts.h"
#include "libprof/fileio.h"
#include "libprof/modlist.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/ksource.h"

static void print_entry(const struct prof_build_id *b, const char *path)
{
	char hex[2 * ZT_BUILD_ID_MAX + 1], buf[4096];

	prof_sanitize(buf, sizeof(buf), path);
	/* perf: "%-40s %s", an unknown build id blank */
	printf("%-40s %s\n", b->len ? prof_build_id_hex(b, hex) : "", buf);
}

/* perf.data's build-id table (perf's order): meta "build_ids" lines. */
static void print_table(const char *t)
{
	char buf[4096];

	while (*t) {
		const char *nl = strchr(t, '\n'), *sp;
		size_t len = nl ? (size_t)(nl - t) : strlen(t);

		sp = memchr(t, ' ', len);
		if (sp && len < sizeof(buf)) {
			prof_sanitize(buf, len + 1, t);
			buf[sp - t] = 0;
			printf("%-40s %s\n", buf, buf + (sp - t) + 1);
		}
		t += len + (nl != NULL);
	}
}

/* -k: the running kernel's build id (/sys/kernel/notes). */
static int show_kernel(void)
{
	struct prof_build_id b = {0};
	char *notes = NULL, hex[2 * ZT_BUILD_ID_MAX + 1];
	size_t len;
	int err = zt_read_file("/sys/kernel/notes", 1u << 20, &notes, &len);

	if (!err)
		err = ksyms_notes_build_id(notes, len, &b);
	free(notes);
	if (err || !b.len) {
		cmd_error("cannot read the running kernel's build id from '/sys/kernel/notes'%s%s",
			  err ? ": " : "", err ? strerror(-err) : "");
		return ZT_EXIT_FAIL;
	}
	printf("%s\n", prof_build_id_hex(&b, hex));
	return ZT_EXIT_OK;
}

static int list_modules(const struct session *s, int with_hits)
{
	const char *table = profile_get_meta(&s->prof, "build_ids");
	struct modlist l = {0};
	size_t i;
	int err;

	/* perf: the recorded table, or without one the modules with samples */
	if (table && !with_hits) {
		print_table(table);
		return ZT_EXIT_OK;
	}
	if (s->perf && !table)
		with_hits = 1;
	if ((err = modlist_build(&l, session_stacks(s)))) {
		cmd_error("cannot list the modules: %s", strerror(-err));
		return ZT_EXIT_FAIL;
	}
	for (i = 0; i < l.nr; i++)
		if (!with_hits || l.e[i].hit)
			print_entry(&l.e[i].bid, l.e[i].path);
	modlist_release(&l);
	return ZT_EXIT_OK;
}

static const char *const buildid_list_usage[] = {
	"zt buildid-list [<options>]",
	NULL,
};

int cmd_buildid_list(int argc, char **argv)
{
	const char *input = NULL;
	int with_hits = 0, kernel = 0, force = 0, verbose = 0, rest, ret;
	const struct opt opts[] = {
		{OPT_STRING, 'i', "input", &input, "file",
		 "input file name: zt.data or perf.data (default: zt.data), or an ELF file"},
		{OPT_BOOL, 'H', "with-hits", &with_hits, NULL, "only the modules with samples"},
		{OPT_BOOL, 'k', "kernel", &kernel, NULL, "the running kernel's build id"},
		{OPT_BOOL, 'f', "force", &force, NULL, "read the readable part of a damaged file"},
		{OPT_COUNT, 'v', "verbose", &verbose, NULL, "be more verbose"},
		OPT_EOL,
	};
	struct symopts so = {.use_debuginfod = 0, .use_cache = 0};
	struct session s;
	struct prof_build_id b = {0};

	ret = opts_parse("buildid-list", buildid_list_usage, opts, argc, argv, &rest);
	cmd_setup("buildid-list", verbose);
	if (ret == OPTS_HELP)
		return ZT_EXIT_OK;
	if (ret == OPTS_ERROR)
		return ZT_EXIT_USAGE;
	if (rest < argc) {
		cmd_error("unexpected argument '%s': the input is given with -i", argv[rest]);
		return ZT_EXIT_USAGE;
	}
	if (kernel)
		return show_kernel();
	if (!input)
		input = "zt.data";
	/* perf: an ELF file's own build id first */
	if (!elf_read_build_id(input, &b) && b.len) {
		char hex[2 * ZT_BUILD_ID_MAX + 1];

		printf("%s\n", prof_build_id_hex(&b, hex));
		return ZT_EXIT_OK;
	}
	so.verbose = verbose;
	if (symopts_init(&so, "buildid-list"))
		return ZT_EXIT_FAIL;
	if (cmd_open_session_events(&s, input, &so, force, NULL, 1, 1)) {
		symopts_release(&so);
		return ZT_EXIT_FAIL;
	}
	ret = list_modules(&s, with_hits);
	session_close(&s);
	symopts_release(&so);
	return ret;
}
