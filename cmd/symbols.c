// SPDX-License-Identifier: GPL-2.0-or-later
/* zt symbols: symbol files for a build (extract now; upload with the team server). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/symopts.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/fileid.h"
#include "symbolizer/symmod.h"

static const char *const quality_names[] = { "none", "basic", "full" };

static const char *const extract_usage[] = {
	"zt symbols extract [<options>] FILE... -o DIR",
	NULL,
};

static int cmd_symbols_extract(int argc, char **argv)
{
	struct symopts so = { .use_debuginfod = 1, .use_cache = 1 };
	const char *outdir = NULL;
	const struct opt options[] = {
		{ OPT_STRING, 'o', "output", &outdir, "dir", "write DIR/<build id>.gsym for each FILE" },
		SYMOPTS_OPTIONS(so),
		OPT_EOL
	};
	int rest, i, ret = ZT_EXIT_OK;

	switch (opts_parse_permute("symbols extract", extract_usage, options, argc, argv, &rest)) {
	case OPTS_HELP:
		symopts_release(&so);
		return ZT_EXIT_OK;
	case OPTS_ERROR:
		symopts_release(&so);
		return ZT_EXIT_USAGE;
	}
	cmd_setup("symbols", so.verbose);
	if (!outdir || rest >= argc) {
		cmd_error("give the files and -o DIR (see 'zt symbols extract -h')");
		symopts_release(&so);
		return ZT_EXIT_USAGE;
	}
	if (mkdir(outdir, 0755) && errno != EEXIST) {
		cmd_error("cannot create '%s': %s", outdir, strerror(errno));
		symopts_release(&so);
		return ZT_EXIT_FAIL;
	}
	if (symopts_init(&so, "symbols"))
		return ZT_EXIT_FAIL;
	for (i = rest; i < argc; i++) {
		char id[2 * ZT_BUILD_ID_MAX + 1], out[PATH_MAX];
		struct prof_build_id b = { 0 };
		struct zt_fileid fid;
		enum symq q;
		int err;

		/* named by GNU build id, or by file id when there is none */
		if (!elf_read_build_id(argv[i], &b) && b.len) {
			prof_build_id_hex(&b, id);
		} else if ((err = fileid_from_path(argv[i], &fid))) {
			cmd_error("cannot read '%s': %s", argv[i], strerror(-err));
			ret = ZT_EXIT_FAIL;
			continue;
		} else {
			fileid_hex(&fid, id);
		}
		snprintf(out, sizeof(out), "%s/%s.gsym", outdir, id);
		err = symmod_extract(&so.mo, argv[i], out, &q);
		if (err) {
			cmd_error("cannot extract the symbols of '%s': %s", argv[i], strerror(-err));
			ret = ZT_EXIT_FAIL;
			continue;
		}
		printf("%s %s %s\n", out, quality_names[q], argv[i]);
		if (q != SYMQ_FULL)
			cmd_warn("'%s' has %s symbols only (%s)", argv[i], quality_names[q],
				 q == SYMQ_BASIC ? "no debug info: build with -g" : "stripped");
	}
	symopts_release(&so);
	return ret;
}

int cmd_symbols(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "extract"))
		return cmd_symbols_extract(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: zt symbols extract [<options>] FILE... -o DIR\n");
		return ZT_EXIT_OK;
	}
	fprintf(stderr, "zt symbols: give a subcommand: extract (see 'zt symbols -h')\n");
	return ZT_EXIT_USAGE;
}
