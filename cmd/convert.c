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
#include "symbolizer/demangle.h"

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

/* The GPU side's names as shown: kernels demangled (as the GPU frames are), once each. */
struct gpu_names {
	const struct prof_gpu *g;
	char **names; /* per string id, made when first asked */
	int full_signature;
};

static const char *gpu_name(void *ctx, uint32_t id)
{
	struct gpu_names *gn = ctx;

	if (!gn->names || id >= prof_gpu_nr_strs(gn->g))
		return NULL;
	if (!gn->names[id])
		gn->names[id] = zt_demangle(prof_gpu_str(gn->g, id), gn->full_signature);
	return gn->names[id];
}

static void gpu_names_release(struct gpu_names *gn)
{
	size_t i;

	for (i = 0; gn->names && i < prof_gpu_nr_strs(gn->g); i++)
		free(gn->names[i]);
	free(gn->names);
}

/* The GPU side for pprof and chrome-trace: a view of the records, the
 * PC samples' frames (when frames: pprof's), demangled names. 0 or a
 * negative errno. */
static int gpu_prepare(struct session *ses, struct gpu_view *gv, struct gpu_frametab *gft,
		       int frames, struct gpu_names *gn, int full_signature)
{
	const struct prof_gpu *g = ses->prof.gpu;
	int ret;

	gn->g = g;
	gn->full_signature = full_signature;
	if (!g)
		return 0;
	if ((ret = gpu_view_init(gv, g)) || (frames && (ret = session_gpu_frames(ses, gv, gft))))
		return ret;
	if (prof_gpu_nr_strs(g) && !(gn->names = calloc(prof_gpu_nr_strs(g), sizeof(*gn->names))))
		return -ENOMEM;
	return 0;
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
	struct gpu_view gv = {0};
	struct gpu_frametab gft;
	struct gpu_names gn = {0};
	int rest, ret, err, fd = -1, to_stdout;

	gpu_frametab_init(&gft);
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
	if (strcmp(to, "perf") && (err = gpu_prepare(&ses, &gv, &gft, !strcmp(to, "pprof"), &gn,
							 so.full_signature))) {
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
					    .gv = ses.prof.gpu ? &gv : NULL,
					    .gpu_name = gpu_name,
					    .ctx = &gn};

		ret = chrometrace_write(&ci, fd);
	} else {
		struct pprof_gpu pg = {.gv = &gv, .gft = &gft, .gpu_name = gpu_name, .ctx = &gn};

		ret = pprof_write(&ses.prof, ses.pt, &ses.ft, ses.prof.gpu ? &pg : NULL, fd);
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
	gpu_names_release(&gn);
	gpu_frametab_release(&gft);
	gpu_view_release(&gv);
	session_close(&ses);
	symopts_release(&so);
	return ret;
}
