// SPDX-License-Identifier: GPL-2.0-or-later
/* zt convert: a recording in another tool's format: pprof, perf.data, Chrome trace JSON. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/input.h"
#include "cmd/opts.h"
#include "cmd/outfile.h"
#include "cmd/symopts.h"
#include "formats/chrometrace.h"
#include "formats/perfwrite.h"
#include "formats/pprof.h"

static const char *const convert_usage[] = {
	"zt convert [-i FILE] [--to pprof|perf|chrome-trace] -o OUT",
	NULL,
};

/* The format named by the output file: x.pb.gz or x.pprof is pprof,
 * perf.data (or x.perf) is perf's, x.json a Chrome trace. NULL when the
 * name says nothing. */
static const char *format_of(const char *out)
{
	size_t n = strlen(out);

	if ((n >= 6 && !strcmp(out + n - 6, ".pb.gz")) || (n >= 6 && !strcmp(out + n - 6, ".pprof")))
		return "pprof";
	if ((n >= 9 && !strcmp(out + n - 9, "perf.data")) || (n >= 5 && !strcmp(out + n - 5, ".perf")))
		return "perf";
	if (n >= 5 && !strcmp(out + n - 5, ".json"))
		return "chrome-trace";
	return NULL;
}

int cmd_convert(int argc, char **argv)
{
	const char *in = "zt.data", *out = NULL, *to = NULL, *event = NULL;
	struct symopts so = { .use_debuginfod = 1, .use_cache = 1, .use_symdb = 1 };
	int force = 0;
	const struct opt opts[] = {
		{OPT_STRING, 'i', "input", &in, "file",
		 "the recording: zt.data or perf.data (default zt.data)"},
		{OPT_STRING, 0, "event", &event, "name",
		 "only this event of a recording with several (default: every one)"},
		{OPT_STRING, 'o', "output", &out, "file",
		 "the file to write ('-': standard output, not for perf)"},
		{OPT_STRING, 0, "to", &to, "format",
		 "pprof (go tool pprof, Pyroscope; GPU samples and time as sample types of their "
		 "own), perf (perf report/script) or chrome-trace (JSON timeline for Perfetto, "
		 "speedscope; GPU streams, launch flows); default: from the output's name "
		 "(.pb.gz, .pprof, perf.data, .perf, .json)"},
		{OPT_BOOL, 'f', "force", &force, NULL,
		 "convert the readable part of a damaged file"},
		SYMOPTS_NAME_OPTIONS(so),
		SYMOPTS_OPTIONS(so),
		SYMOPTS_SYMDB_OPTIONS(so),
		SYMOPTS_KERNEL_OPTIONS(so),
		OPT_EOL,
	};
	struct session ses = { 0 };
	struct outfile of = { .fd = -1, .dirfd = -1 };
	struct session_gpu sg = {0};
	int rest, ret, err, fd = -1, to_stdout;

	ret = opts_parse("convert", convert_usage, opts, argc, argv, &rest);
	cmd_setup("convert", so.verbose);
	if (ret) {
		symopts_release(&so);
		return ret == OPTS_HELP ? ZT_EXIT_OK : ZT_EXIT_USAGE;
	}
	ret = ZT_EXIT_USAGE;
	if (!out || rest < argc) {
		cmd_error("give the output file with -o (see 'zt convert -h')");
		goto out;
	}
	if (!to && !(to = format_of(out))) {
		cmd_error("cannot tell the format from '%s': give --to pprof, perf or chrome-trace",
			  out);
		goto out;
	}
	if (strcmp(to, "pprof") && strcmp(to, "perf") && strcmp(to, "chrome-trace")) {
		cmd_error("cannot convert to '%s': the formats are pprof, perf and chrome-trace",
			  to);
		goto out;
	}
	to_stdout = !strcmp(out, "-");
	if (to_stdout && !strcmp(to, "perf")) {
		cmd_error("perf.data needs a file it can seek in, not standard output");
		goto out;
	}
	ret = ZT_EXIT_FAIL;
	/* every event: perf.data has an attr each, pprof sample types, the trace categories */
	if (symopts_init(&so, "convert") ||
	    cmd_open_session_events(&ses, in, &so, force, event, 1, 1))
		goto out;
	/* the GPU side for pprof (with the PC samples' frames) and chrome-trace */
	if (strcmp(to, "perf") && (err = session_gpu_open(&ses, NULL, !strcmp(to, "pprof"), &sg))) {
		cmd_error("cannot read the GPU records of '%s': %s", in, strerror(-err));
		goto out;
	}
	/* 0600 as a recording: a perf.data holds addresses, the kernel's too */
	if (to_stdout)
		fd = STDOUT_FILENO;
	else if (outfile_create(&of, out, 0600, strcmp(to, "perf") ? OUTFILE_STDOUT_HINT : 0))
		goto out;
	else
		fd = of.fd;
	if (!strcmp(to, "perf")) {
		/* perf symbolizes by itself: addresses, mappings, build ids and
		 * the kernel's symbols go in, no names */
		ret = perfwrite_fd(&ses.prof, fd);
		if (ret == -ESPIPE)
			cmd_error("perf.data needs a file it can seek in, not a pipe");
	} else if (!strcmp(to, "chrome-trace")) {
		struct chrometrace_in ci = {.p = &ses.prof,
					    .pt = ses.pt,
					    .ft = &ses.ft,
					    .gv = sg.v.g ? &sg.v : NULL,
					    .gpu_name = session_gpu_name_cb,
					    .ctx = &sg};

		ret = chrometrace_write(&ci, fd);
	} else {
		struct pprof_gpu pg = {
			.gv = &sg.v, .gft = &sg.ft, .gpu_name = session_gpu_name_cb, .ctx = &sg};

		ret = pprof_write(&ses.prof, ses.pt, &ses.ft, sg.v.g ? &pg : NULL, fd);
	}
	if (to_stdout) {
		if (ret == -EPIPE)
			ret = 0; /* zt convert -o - | head: not an error */
		if (ret) {
			cmd_error("cannot write to standard output: %s", strerror(-ret));
			ret = ZT_EXIT_FAIL;
		} else {
			ret = ZT_EXIT_OK;
		}
		goto out;
	}
	if (!ret && fsync(fd) && errno != EINVAL)
		ret = -errno;
	if (ret) {
		cmd_error("cannot write '%s': %s", out, strerror(-ret));
		ret = ZT_EXIT_FAIL;
		goto out;
	}
	ret = outfile_commit(&of, false) ? ZT_EXIT_FAIL : ZT_EXIT_OK;
	if (ret == ZT_EXIT_OK && (err = outfile_release(&of))) {
		cmd_error("cannot write '%s': %s", out, strerror(-err));
		ret = ZT_EXIT_FAIL;
	}
out:
	outfile_release(&of); /* a file not complete goes */
	session_gpu_close(&sg);
	session_close(&ses);
	symopts_release(&so);
	return ret;
}
