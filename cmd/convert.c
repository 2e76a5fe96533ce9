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

/* zt convert: its options, and what it holds */
struct convert {
	const char *in, *out, *to, *event;
	struct symopts so;
	int force, to_stdout;
	struct session ses;
	struct session_gpu sg;
	struct outfile of;
};

static int convert_parse_options(struct convert *c, int argc, char **argv, int *rest)
{
	const struct opt opts[] = {
		{OPT_STRING, 'i', "input", &c->in, "file",
		 "the recording: zt.data or perf.data (default zt.data)"},
		{OPT_STRING, 0, "event", &c->event, "name",
		 "only this event of a recording with several (default: every one)"},
		{OPT_STRING, 'o', "output", &c->out, "file",
		 "the file to write ('-': standard output, not for perf)"},
		{OPT_STRING, 0, "to", &c->to, "format",
		 "pprof (go tool pprof, Pyroscope; GPU samples and time as sample types of their "
		 "own), perf (perf report/script) or chrome-trace (JSON timeline for Perfetto, "
		 "speedscope; GPU streams, launch flows); default: from the output's name "
		 "(.pb.gz, .pprof, perf.data, .perf, .json)"},
		{OPT_BOOL, 'f', "force", &c->force, NULL,
		 "convert the readable part of a damaged file"},
		SYMOPTS_NAME_OPTIONS(c->so),
		SYMOPTS_OPTIONS(c->so),
		SYMOPTS_SYMDB_OPTIONS(c->so),
		SYMOPTS_KERNEL_OPTIONS(c->so),
		SYMOPTS_PYTHON_OPTIONS(c->so),
		OPT_EOL,
	};

	return opts_parse("convert", convert_usage, opts, argc, argv, rest);
}

/* -o, and the format (--to, or from -o's name): ZT_EXIT_OK or
 * ZT_EXIT_USAGE (the message shown). */
static int convert_check_options(struct convert *c, int argc, int rest)
{
	if (!c->out || rest < argc) {
		cmd_error("give the output file with -o (see 'zt convert -h')");
		return ZT_EXIT_USAGE;
	}
	if (!c->to && !(c->to = format_of(c->out))) {
		cmd_error("cannot tell the format from '%s': give --to pprof, perf or chrome-trace",
			  c->out);
		return ZT_EXIT_USAGE;
	}
	if (strcmp(c->to, "pprof") && strcmp(c->to, "perf") && strcmp(c->to, "chrome-trace")) {
		cmd_error("cannot convert to '%s': the formats are pprof, perf and chrome-trace",
			  c->to);
		return ZT_EXIT_USAGE;
	}
	c->to_stdout = !strcmp(c->out, "-");
	if (c->to_stdout && !strcmp(c->to, "perf")) {
		cmd_error("perf.data needs a file it can seek in, not standard output");
		return ZT_EXIT_USAGE;
	}
	return ZT_EXIT_OK;
}

/* The recording, and its GPU side where the format has one. 0 or -1 (the
 * message shown). */
static int convert_open(struct convert *c)
{
	int err;

	/* every event: perf.data has an attr each, pprof sample types, the trace categories */
	if (symopts_init(&c->so, "convert") ||
	    cmd_open_session_events(&c->ses, c->in, &c->so, c->force, c->event, 1, 1))
		return -1;
	/* the GPU side for pprof (with the PC samples' frames) and chrome-trace */
	if (strcmp(c->to, "perf") &&
	    (err = session_gpu_open(&c->ses, NULL, !strcmp(c->to, "pprof"), &c->sg))) {
		cmd_error("cannot read the GPU records of '%s': %s", c->in, strerror(-err));
		return -1;
	}
	return 0;
}

/* The recording in the format to fd: 0 or a negative errno. */
static int write_format(struct convert *c, int fd)
{
	int ret;

	if (!strcmp(c->to, "perf")) {
		/* perf symbolizes by itself: addresses, mappings, build ids and
		 * the kernel's symbols go in, no names */
		ret = perfwrite_fd(&c->ses.prof, fd);
		if (ret == -ESPIPE)
			cmd_error("perf.data needs a file it can seek in, not a pipe");
	} else if (!strcmp(c->to, "chrome-trace")) {
		struct chrometrace_in ci = {.rs = session_stacks(&c->ses),
					    .gv = c->sg.v.g ? &c->sg.v : NULL,
					    .gpu_name = session_gpu_name_cb,
					    .ctx = &c->sg};

		ret = chrometrace_write(&ci, fd);
	} else {
		struct pprof_gpu pg = {.gv = &c->sg.v,
				       .gft = &c->sg.ft,
				       .gpu_name = session_gpu_name_cb,
				       .ctx = &c->sg};

		ret = pprof_write(session_stacks(&c->ses), c->sg.v.g ? &pg : NULL, fd);
	}
	return ret;
}

/* To standard output, or to -o through a temporary file put in place once
 * whole. An exit code. */
static int convert_write(struct convert *c)
{
	int ret, err, fd;

	/* 0600 as a recording: a perf.data holds addresses, the kernel's too */
	if (c->to_stdout)
		fd = STDOUT_FILENO;
	else if (outfile_create(&c->of, c->out, 0600,
				strcmp(c->to, "perf") ? OUTFILE_STDOUT_HINT : 0))
		return ZT_EXIT_FAIL;
	else
		fd = c->of.fd;
	ret = write_format(c, fd);
	if (c->to_stdout) {
		if (ret == -EPIPE)
			ret = 0; /* zt convert -o - | head: not an error */
		if (ret) {
			cmd_error("cannot write to standard output: %s", strerror(-ret));
			return ZT_EXIT_FAIL;
		}
		return ZT_EXIT_OK;
	}
	if (!ret && fsync(fd) && errno != EINVAL)
		ret = -errno;
	if (ret) {
		cmd_error("cannot write '%s': %s", c->out, strerror(-ret));
		return ZT_EXIT_FAIL;
	}
	ret = outfile_commit(&c->of, false) ? ZT_EXIT_FAIL : ZT_EXIT_OK;
	if (ret == ZT_EXIT_OK && (err = outfile_release(&c->of))) {
		cmd_error("cannot write '%s': %s", c->out, strerror(-err));
		ret = ZT_EXIT_FAIL;
	}
	return ret;
}

int cmd_convert(int argc, char **argv)
{
	struct convert c = {.in = "zt.data",
			    .so = {.use_debuginfod = 1, .use_cache = 1, .use_symdb = 1},
			    .of = {.fd = -1, .dirfd = -1}};
	int rest, ret;

	ret = convert_parse_options(&c, argc, argv, &rest);
	cmd_setup("convert", c.so.verbose);
	if (ret) {
		symopts_release(&c.so);
		return ret == OPTS_HELP ? ZT_EXIT_OK : ZT_EXIT_USAGE;
	}
	ret = convert_check_options(&c, argc, rest);
	if (ret == ZT_EXIT_OK)
		ret = convert_open(&c) ? ZT_EXIT_FAIL : convert_write(&c);
	outfile_release(&c.of); /* a file not complete goes */
	session_gpu_close(&c.sg);
	session_close(&c.ses);
	symopts_release(&c.so);
	return ret;
}
