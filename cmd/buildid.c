// SPDX-License-Identifier: GPL-2.0-or-later
/* zt buildid: the GNU build id and the OpenTelemetry file id of binaries. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/fileid.h"

static const char *const buildid_usage[] = {
	"zt buildid FILE...",
	NULL,
};

int cmd_buildid(int argc, char **argv)
{
	int verbose = 0;
	const struct opt options[] = {
		{ OPT_COUNT, 'v', "verbose", &verbose, NULL, "be more verbose" },
		OPT_EOL
	};
	int rest, i, ret = ZT_EXIT_OK;

	switch (opts_parse_permute("buildid", buildid_usage, options, argc, argv, &rest)) {
	case OPTS_HELP:
		return ZT_EXIT_OK;
	case OPTS_ERROR:
		return ZT_EXIT_USAGE;
	}
	cmd_setup("buildid", verbose);
	if (rest >= argc) {
		cmd_error("give one or more files (see 'zt buildid -h')");
		return ZT_EXIT_USAGE;
	}
	for (i = rest; i < argc; i++) {
		char bhex[2 * ZT_BUILD_ID_MAX + 1], fhex[ZT_FILEID_HEX_LEN];
		struct prof_build_id b = { 0 };
		struct zt_fileid id;
		int err = fileid_from_path(argv[i], &id);

		if (err) {
			cmd_error("cannot read '%s': %s", argv[i], strerror(-err));
			ret = ZT_EXIT_FAIL;
			continue;
		}
		/* not ELF: no build id, the file id still identifies it */
		elf_read_build_id(argv[i], &b);
		printf("%s %s %s\n", b.len ? prof_build_id_hex(&b, bhex) : "-", fileid_hex(&id, fhex), argv[i]);
	}
	return ret;
}
