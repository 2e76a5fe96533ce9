/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt flame: an interactive SVG flame graph of a recording (zt.data,
 * perf.data) or of folded stacks, and differential graphs of two.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/input.h"
#include "cmd/opts.h"
#include "cmd/outfile.h"
#include "libprof/rmodel.h"
#include "cmd/symopts.h"
#include "formats/flame.h"
#include "formats/gpufolded.h"
#include "formats/perfdata.h"
#include "formats/ztdata.h"
#include "libprof/array.h"
#include "libprof/gpuview.h"
#include "libprof/zbuf.h"

/* Folded text is streamed (stdin, pipes, files alike), a chunk of whole
 * lines at a time, so memory stays bounded by the graph; a stream that
 * never ends (/dev/zero, yes) stops at these limits. */
#define FOLDED_MAX	(4ull << 30) /* bytes of one input */
#define FOLDED_LINE_MAX (16u << 20)  /* bytes of one line (one stack) */
#define FOLDED_CHUNK	(1u << 20)   /* read size */

struct flame_cmd {
	const char *input, *output, *event_opt, *title, *subtitle, *colors;
	char event[160], event_line[192]; /* the event shown, of a recording with several */
	const char *comm, *pid, *tid, *dso, *cpu, *time, *gpu_weight;
	int folded, inverted, reverse, diff, force, quiet, demangle, inline_frames, gpu;
	int width;
	double minwidth;
	struct symopts so;
	struct rfilter filt;
	struct flame fl;
};

/* Wait for fd to have data (a descriptor left non-blocking by whoever opened it). */
static int wait_readable(int fd)
{
	struct pollfd pfd = {fd, POLLIN, 0};
	int r;

	while ((r = poll(&pfd, 1, -1)) < 0 && errno == EINTR)
		;
	return r < 0 ? -1 : 0;
}

/* Folded stacks from fd into the graph, parsed a chunk of whole lines at a
 * time. 0 or -1 after a message. */
static int add_folded_fd(struct flame_cmd *c, int fd, const char *name, int which)
{
	size_t cap = 0, n = 0, bad = 0;
	uint64_t total = 0;
	char *b = NULL;
	int ret = -1, r;

	for (;;) {
		ssize_t k;
		char *nl;

		if (n + FOLDED_CHUNK > cap && ZT_GROW(b, cap, n + FOLDED_CHUNK)) {
			cmd_error("out of memory reading '%s'", name);
			goto out;
		}
		k = read(fd, b + n, FOLDED_CHUNK);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !wait_readable(fd))
			continue;
		if (k < 0) {
			cmd_error("cannot read '%s': %s", name, strerror(errno));
			goto out;
		}
		total += (uint64_t)k;
		if (total > FOLDED_MAX) {
			cmd_error("'%s': more than %llu GiB of folded stacks: stopped reading (give "
				  "fewer stacks, e.g. one recording's 'zt script --folded')",
				  name, FOLDED_MAX >> 30);
			goto out;
		}
		n += (size_t)k;
		/* the whole lines now, the last partial one kept for the next read
		 * (it holds no newline: only the bytes just read can) */
		nl = k ? memrchr(b + n - (size_t)k, '\n', (size_t)k) : b + n;
		if (!nl && n > FOLDED_LINE_MAX) {
			cmd_error("'%s': a line longer than %u MiB: not folded stacks (\"a;b;c "
				  "COUNT\" per line)",
				  name, FOLDED_LINE_MAX >> 20);
			goto out;
		}
		if (nl) {
			size_t whole = (size_t)(nl - b) + (k ? 1 : 0);

			r = flame_parse_folded(&c->fl, b, whole, which, &bad);
			if (r) {
				cmd_error("cannot build the graph: %s", strerror(-r));
				goto out;
			}
			memmove(b, b + whole, n - whole);
			n -= whole;
		}
		if (!k)
			break;
	}
	if (bad)
		cmd_warn("'%s': %zu lines are not folded stacks (\"a;b;c COUNT\"): skipped", name,
			 bad);
	ret = 0;
out:
	free(b);
	return ret;
}

/* Folded stacks from path (stdin for NULL or "-"): a file, a pipe or a
 * FIFO (waited for, as any reader of a FIFO does). 0 or -1 after a message. */
static int add_folded(struct flame_cmd *c, const char *path, int which)
{
	int in = !path || !strcmp(path, "-");
	int fd = in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), ret;
	struct stat st;

	if (fd < 0) {
		cmd_error("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (!fstat(fd, &st) && S_ISDIR(st.st_mode)) {
		cmd_error("'%s' is a directory: give a file of folded stacks",
			  path ? path : "stdin");
		ret = -1;
	} else {
		ret = add_folded_fd(c, fd, in ? "stdin" : path, which);
	}
	if (!in)
		close(fd);
	return ret;
}

/* What a chain frame is, from its module and name. */
static enum flame_kind kind_of(const char *dso, const char *sym)
{
	if (sym[0] == '[')
		return FLAME_UNRESOLVED;
	if (!strncmp(dso, "[JIT]", 5) || !strcmp(dso, "[anon]") ||
	    !strncmp(dso, "/tmp/perf-", 10) || strstr(dso, "jitted-"))
		return FLAME_JIT;
	if (dso[0] == '[' && strcmp(dso, "[vdso]") && strcmp(dso, "[vsyscall]") &&
	    strcmp(dso, "[unknown]") && strcmp(dso, "[heap]") && strcmp(dso, "[stack]"))
		return FLAME_KERNEL;
	return FLAME_USER;
}

/* Every path of entry e's call-chain tree (caller first) into the graph,
 * under the thread name. */
static int add_entry(struct flame_cmd *c, struct rmodel *m, const struct hist_entry *e, int which)
{
	const struct callchains *cc = &m->hist.cc;
	struct flame_frame *path = NULL;
	char **names = NULL;
	char (*lines)[80] = NULL; /* per depth: the frame's file:line */
	size_t cap = 0, ncap = 0, lcap = 0, sp = 0, scap = 0;
	struct {
		uint32_t node, depth;
	} *stack = NULL;
	int ret = 0;

	if (e->chain == CC_NONE)
		return 0;
	if (ZT_GROW(stack, scap, 1)) {
		ret = -ENOMEM;
		goto out;
	}
	stack[sp].node = e->chain;
	stack[sp++].depth = 0;
	while (sp && !ret) {
		uint32_t ni = stack[--sp].node, d = stack[sp].depth, ch;
		const struct cc_node *n = cc_node(cc, ni);

		size_t oldcap = ncap;

		if (ZT_GROW(path, cap, d + 1) || ZT_GROW(names, ncap, d + 1) ||
		    ZT_GROW(lines, lcap, d + 1)) {
			ret = -ENOMEM;
			break;
		}
		if (ncap > oldcap)
			memset(names + oldcap, 0, (ncap - oldcap) * sizeof(*names));
		if (!d) {
			path[0] = (struct flame_frame){hist_str(&m->hist, e->f.comm), NULL, NULL,
						       FLAME_PROCESS};
		} else {
			const char *dso = hist_str(&m->hist, hist_chain_key_dso(n->key));
			const char *sym = rmodel_chain_name(m, n);
			size_t l = strlen(sym);
			enum flame_kind k = kind_of(dso, sym);

			if (l > 10 && !strcmp(sym + l - 10, " (inlined)")) {
				/* the name without the mark: the kind says it */
				char *s = names[d];

				s = realloc(s, l - 9);
				if (!s) {
					ret = -ENOMEM;
					break;
				}
				memcpy(s, sym, l - 10);
				s[l - 10] = 0;
				names[d] = s;
				sym = s;
				k = FLAME_INLINED;
			}
			/* the function's hottest line in the recording, for the tooltip */
			if (rmodel_func_line(m, n->key, lines[d], sizeof(lines[d])))
				lines[d][0] = 0;
			path[d] = (struct flame_frame){sym, dso, lines[d][0] ? lines[d] : NULL, k};
		}
		if (n->count) {
			/* lines may have moved when it grew: point at it again */
			for (size_t k = 1; k <= d; k++)
				path[k].srcline = lines[k][0] ? lines[k] : NULL;
			ret = flame_add_stack(&c->fl, path, d + 1, n->count, which);
		}
		for (ch = n->child; ch != CC_NONE && !ret; ch = cc_node(cc, ch)->next) {
			if (ZT_GROW(stack, scap, sp + 1)) {
				ret = -ENOMEM;
				break;
			}
			stack[sp].node = ch;
			stack[sp++].depth = d + 1;
		}
	}
out:
	for (size_t i = 0; i < ncap && names; i++)
		free(names[i]);
	free(names);
	free(lines);
	free(path);
	free(stack);
	return ret;
}

/* A recording into the graph, filtered. 0 or -1 after a message. */
static int add_profile(struct flame_cmd *c, const char *path, int which)
{
	struct session ses;
	struct rmodel m;
	struct rmodel_opts mo = {.keys = {HIST_KEY_COMM},
				 .nr_keys = 1,
				 .chain = HIST_CHAIN_CALLER,
				 .inline_frames = c->inline_frames,
				 .filter = &c->filt};
	const struct hist_entry **rows;
	size_t nrows, i;
	int ret = -1, r;

	memset(&m, 0, sizeof(m));
	if (cmd_open_session_events(&ses, path, &c->so, c->force, c->event_opt, c->demangle, 1))
		return -1;
	/* one event of several: the graph says which under its title */
	if (!c->event[0] && (c->event_opt || profile_nr_events(&ses.prof) > 1) &&
	    profile_event_name(&ses.prof, 0))
		prof_sanitize(c->event, sizeof(c->event), profile_event_name(&ses.prof, 0));
	cmd_first_event(&ses, "--event");
	if (!ses.prof.nr_samples)
		cmd_warn("'%s' has no samples", path);
	else if (!profile_has_callchains(&ses.prof))
		cmd_warn("'%s' has no call chains (record with -g): the graph is one level deep",
			 path);
	r = rmodel_init(&m, session_stacks(&ses), NULL, NULL);
	rstacks_seal(session_stacks(&ses)); /* every frame is resolved: no more lookups */
	if (!r)
		r = rmodel_build(&m, &mo);
	if (!r)
		r = rmodel_sort(&m, 0, &rows, &nrows);
	for (i = 0; !r && i < nrows; i++)
		r = add_entry(c, &m, rows[i], which);
	if (r) {
		cmd_error("cannot build the graph of '%s': %s", path, strerror(-r));
		goto out;
	}
	if (rfilter_active(&c->filt) && !m.shown_nr)
		cmd_warn("no samples of '%s' pass the filters", path);
	ret = 0;
out:
	rmodel_release(&m);
	session_close(&ses);
	return ret;
}

static int put_folded(void *ctx, const void *buf, size_t n)
{
	zbuf_put(ctx, buf, n);
	return ((struct zbuf *)ctx)->err;
}

/* --gpu: a recording's GPU stacks (formats/gpufolded.h) into the graph,
 * through their folded text. 0 or -1 after a message. */
static int add_gpu_profile(struct flame_cmd *c, const char *path, int which)
{
	struct session ses;
	struct session_gpu sg = {0};
	struct gpu_launch_stacks ls;
	struct folded_set fs;
	struct gpufolded_opts o = {.weight = c->gpu_weight && !strcmp(c->gpu_weight, "time")
						     ? GPUFOLDED_TIME
						     : GPUFOLDED_SAMPLES,
				   .prefix = gpu_launch_stacks_prefix,
				   .prefix_ctx = &ls,
				   .kernel_name = session_gpu_name_cb,
				   .name_ctx = &sg};
	struct zbuf b;
	size_t bad = 0;
	int ret = -1, r;

	if (cmd_open_session(&ses, path, &c->so, c->force, c->event_opt, c->demangle))
		return -1;
	folded_set_init(&fs);
	zbuf_init(&b);
	gpu_launch_stacks_init(&ls, session_stacks(&ses), c->inline_frames);
	if (!ses.prof.gpu) {
		cmd_warn("'%s' has no GPU records (record with zt record --gpu)", path);
		ret = 0;
		goto out;
	}
	/* --pid, --tid, --comm, --time: the GPU records they select */
	r = session_gpu_open(&ses, &c->filt, o.weight == GPUFOLDED_SAMPLES, &sg);
	if (r)
		goto fail;
	if (o.weight == GPUFOLDED_SAMPLES && !sg.had_pcs)
		cmd_warn("'%s' has no GPU PC samples (recorded with --gpu-pcs off?): try "
			 "--gpu-weight time",
			 path);
	r = gpufolded_build(&fs, &sg.v, &sg.ft, &o);
	if (!r)
		r = folded_set_write(&fs, put_folded, &b);
	c->fl.process_first = 1;
	if (!r)
		r = flame_parse_folded(&c->fl, (const char *)b.data, b.len, which, &bad);
	c->fl.process_first = 0;
	if (r)
		goto fail;
	ret = 0;
	goto out;
fail:
	cmd_error("cannot build the GPU graph of '%s': %s", path, strerror(-r));
out:
	gpu_launch_stacks_release(&ls);
	zbuf_release(&b);
	folded_set_release(&fs);
	session_gpu_close(&sg);
	session_close(&ses);
	return ret;
}

/* zt.data and perf.data by their magic; anything else is folded text. Only
 * a regular file can be a recording: a pipe (a process substitution, say)
 * is left unread for the folded reader. */
static int is_recording(const char *path)
{
	char magic[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	ssize_t n = 0;

	if (fd < 0)
		return 1; /* let the loader say why */
	if (fstat(fd, &st) || S_ISDIR(st.st_mode))
		n = -1; /* the loader says what a directory is not */
	else if (S_ISREG(st.st_mode))
		n = pread(fd, magic, sizeof(magic), 0);
	close(fd);
	return n < 0 ||
	       (n == 8 && (!memcmp(magic, ZTDATA_MAGIC, 8) || !memcmp(magic, PERFDATA_MAGIC, 8)));
}

static int add_input(struct flame_cmd *c, const char *path, int which)
{
	if (c->folded || (c->diff && !is_recording(path)))
		return add_folded(c, path, which);
	if (c->gpu)
		return add_gpu_profile(c, path, which);
	return add_profile(c, path, which);
}

static int setup_filters(struct flame_cmd *c)
{
	char err[256];
	int ret = 0;

	if (!ret && c->comm)
		ret = rfilter_add_strs(&c->filt.comms, &c->filt.nr_comms, c->comm, err,
				       sizeof(err));
	if (!ret && c->dso)
		ret = rfilter_add_strs(&c->filt.dsos, &c->filt.nr_dsos, c->dso, err, sizeof(err));
	if (!ret && c->pid)
		ret = rfilter_add_ids(&c->filt.pids, &c->filt.nr_pids, c->pid, err, sizeof(err));
	if (!ret && c->tid)
		ret = rfilter_add_ids(&c->filt.tids, &c->filt.nr_tids, c->tid, err, sizeof(err));
	if (!ret && c->cpu)
		ret = rfilter_add_cpus(&c->filt, c->cpu, err, sizeof(err));
	if (!ret && c->time)
		ret = rfilter_set_time(&c->filt, c->time, err, sizeof(err));
	if (ret)
		cmd_error("%s", err);
	return ret;
}

static const char *const flame_usage[] = {
	"zt flame [-i <file>] [-o <file.svg>] [<options>]",
	"zt flame --folded [-i <file>] [-o <file.svg>] [<options>]   (folded stacks; default "
	"stdin)",
	"zt flame --diff <old> <new> [-o <file.svg>] [<options>]",
	"zt flame --gpu [--gpu-weight samples|time] [-i <file>] [-o <file.svg>] [<options>]",
	NULL,
};

static int flame_parse_options(struct flame_cmd *c, int argc, char **argv, int *rest)
{
	const struct opt opts[] = {
		{OPT_STRING, 'i', "input", &c->input, "file",
		 "input file name (default: zt.data; with --folded: stdin)"},
		{OPT_STRING, 'o', "output", &c->output, "file",
		 "the SVG to write (default: flame.svg; '-': stdout)"},
		{OPT_BOOL, 0, "folded", &c->folded, NULL,
		 "the input is folded stacks (\"a;b;c COUNT\", as zt script --folded writes)"},
		{OPT_BOOL, 0, "diff", &c->diff, NULL,
		 "differential graph of two inputs OLD NEW: widths of NEW, red grew, blue shrank"},
		{OPT_STRING, 'e', "event", &c->event_opt, "name",
		 "the event to show of a recording with several (default: the first)"},
		{OPT_BOOL, 0, "gpu", &c->gpu, NULL,
		 "the GPU graph of a zt record --gpu recording: launch stack, kernel, device "
		 "functions, source line, stall reason"},
		{OPT_STRING, 0, "gpu-weight", &c->gpu_weight, "samples|time",
		 "--gpu: widths by PC samples (default) or by kernel time in ns (stacks end at "
		 "the kernel)"},
		{OPT_GROUP, 0, NULL, NULL, NULL, "The graph"},
		{OPT_STRING, 0, "title", &c->title, "text", "the title (default: Flame Graph)"},
		{OPT_STRING, 0, "subtitle", &c->subtitle, "text", "a second line under the title"},
		{OPT_INT, 0, "width", &c->width, "pixels", "image width (default: 1200)"},
		{OPT_DOUBLE, 0, "minwidth", &c->minwidth, "pixels",
		 "leave out frames narrower than this (default: 0.1)"},
		{OPT_STRING, 0, "colors", &c->colors, "palette",
		 "kind (default: kernel, user, JIT, inlined, unresolved apart), hot, mem, io, red, "
		 "green, blue, aqua"},
		{OPT_BOOL, 0, "inverted", &c->inverted, NULL, "an icicle graph: the root on top"},
		{OPT_BOOL, 0, "reverse", &c->reverse, NULL,
		 "callee-rooted: stacks from the sampled function to the outermost caller"},
		{OPT_BOOL, 0, "inline", &c->inline_frames, NULL,
		 "inlined functions as frames of their own (default); --no-inline: not"},
		{OPT_GROUP, 0, NULL, NULL, NULL, "Filters (recordings)"},
		{OPT_STRING, 'c', "comms", &c->comm, "comm[,comm...]", "only these thread names"},
		{OPT_STRING, 0, "comm", &c->comm, "comm[,comm...]", "the same as --comms"},
		{OPT_STRING, 0, "pid", &c->pid, "pid[,pid...]", "only these processes"},
		{OPT_STRING, 0, "tid", &c->tid, "tid[,tid...]", "only these threads"},
		{OPT_STRING, 'd', "dsos", &c->dso, "dso[,dso...]",
		 "only samples whose own function is in these modules"},
		{OPT_STRING, 0, "dso", &c->dso, "dso[,dso...]", "the same as --dsos"},
		{OPT_STRING, 'C', "cpu", &c->cpu, "cpus", "only samples on these CPUs (0,2-3)"},
		{OPT_STRING, 0, "time", &c->time, "start,end",
		 "only samples in this time range: seconds as zt script shows them, or A%-B%"},
		{OPT_BOOL, 'f', "force", &c->force, NULL,
		 "use the readable part of a damaged file"},
		{OPT_BOOL, 0, "demangle", &c->demangle, NULL,
		 "demangle C++ and Rust names (default); --no-demangle: keep them raw"},
		{OPT_BOOL, 'q', "quiet", &c->quiet, NULL, "no warnings"},
		SYMOPTS_NAME_OPTIONS(c->so),
		SYMOPTS_OPTIONS(c->so),
		SYMOPTS_SYMDB_OPTIONS(c->so),
		SYMOPTS_KERNEL_OPTIONS(c->so),
		SYMOPTS_PYTHON_OPTIONS(c->so),
		OPT_EOL,
	};

	return opts_parse_permute("flame", flame_usage, opts, argc, argv, rest);
}

/* The options' values and the arguments after them (argv[rest..]), the
 * filters set up: ZT_EXIT_OK or ZT_EXIT_USAGE (the message shown). */
static int flame_check_options(struct flame_cmd *c, int argc, char **argv, int rest)
{
	if (c->diff && argc - rest != 2) {
		cmd_error("--diff takes two inputs: OLD NEW");
		return ZT_EXIT_USAGE;
	}
	if (!c->diff && rest < argc) {
		cmd_error("unexpected argument '%s': the input is given with -i", argv[rest]);
		return ZT_EXIT_USAGE;
	}
	if (c->diff && c->input) {
		cmd_error("--diff takes its inputs as arguments, not -i");
		return ZT_EXIT_USAGE;
	}
	if (c->width < 100 || c->width > 1000000) {
		cmd_error("--width must be between 100 and 1000000 pixels, not %d", c->width);
		return ZT_EXIT_USAGE;
	}
	if (c->minwidth < 0 || c->minwidth > c->width) {
		cmd_error("--minwidth must be between 0 and the width, not %g", c->minwidth);
		return ZT_EXIT_USAGE;
	}
	if (c->colors && !flame_palette_valid(c->colors)) {
		cmd_error("--colors: unknown palette '%s': use %s", c->colors, flame_palettes);
		return ZT_EXIT_USAGE;
	}
	if (c->gpu_weight && strcmp(c->gpu_weight, "samples") && strcmp(c->gpu_weight, "time")) {
		cmd_error("--gpu-weight: '%s' is neither 'samples' nor 'time'", c->gpu_weight);
		return ZT_EXIT_USAGE;
	}
	if (c->gpu_weight && !c->gpu) {
		cmd_error("--gpu-weight weighs the GPU graph: give --gpu too");
		return ZT_EXIT_USAGE;
	}
	if (c->gpu && (c->folded || c->diff)) {
		cmd_error("--gpu draws a recording's GPU stacks: it cannot be used with %s (folded "
			  "GPU stacks from zt script --folded --gpu draw with --folded alone)",
			  c->folded ? "--folded" : "--diff");
		return ZT_EXIT_USAGE;
	}
	if (setup_filters(c))
		return ZT_EXIT_USAGE;
	if (c->gpu && (c->filt.nr_cpus || c->filt.nr_dsos))
		cmd_warn("--cpu and --dsos apply to CPU samples, not to --gpu: ignored");
	if (c->folded && rfilter_active(&c->filt))
		cmd_warn("filters apply to recordings, not to folded stacks: ignored");
	return ZT_EXIT_OK;
}

/* The graph's titles, size and colors from the options. */
static void svg_options(struct flame_cmd *c, struct flame_svg_opts *so)
{
	so->title = c->title;
	so->subtitle = c->subtitle;
	if (!c->subtitle && c->event[0]) {
		snprintf(c->event_line, sizeof(c->event_line), "Event: %s", c->event);
		so->subtitle = c->event_line;
	}
	so->width = (unsigned)c->width;
	so->minwidth = c->minwidth;
	so->colors = c->colors;
	so->inverted = c->inverted;
	so->diff = c->diff;
	if (c->diff && !c->title)
		so->title = c->inverted ? "Differential Icicle Graph" : "Differential Flame Graph";
	if (c->gpu) {
		int time = c->gpu_weight && !strcmp(c->gpu_weight, "time");

		if (!c->title)
			so->title = c->inverted ? "GPU Icicle Graph" : "GPU Flame Graph";
		if (!c->subtitle)
			so->subtitle =
				time ? "GPU time (ns) by launch stack and kernel"
				     : "GPU PC samples by launch stack, kernel, device function, "
				       "source line and stall reason";
		so->unit = time ? "ns" : "samples";
	}
}

/* The SVG to -o (through a temporary file, in place once whole) or to
 * stdout. 0 or -1 (the message shown). */
static int write_graph(struct flame_cmd *c, const struct flame_svg_opts *so, struct outfile *of)
{
	FILE *out;
	int r;

	if (strcmp(c->output, "-")) {
		if (outfile_create(of, c->output, 0644, OUTFILE_STDOUT_HINT))
			return -1;
		out = fdopen(of->fd, "w");
		if (!out) {
			cmd_error("cannot create '%s': %s", c->output, strerror(errno));
			return -1;
		}
		of->fd = -1; /* the stream owns it now */
	} else {
		out = stdout;
	}
	if (out != stdout)
		setvbuf(out, NULL, _IOFBF, 1 << 20);
	r = flame_write_svg(&c->fl, out, so);
	if (out != stdout && fclose(out) && !r)
		r = -errno;
	if (r) {
		cmd_error("cannot write '%s': %s", c->output, strerror(-r));
		return -1;
	}
	if (strcmp(c->output, "-") && outfile_commit(of, false))
		return -1;
	return 0;
}

int cmd_flame(int argc, char **argv)
{
	struct flame_cmd c = {.output = "flame.svg",
			      .demangle = 1,
			      .inline_frames = 1,
			      .width = 1200,
			      .minwidth = 0.1,
			      .so = {.use_debuginfod = 1, .use_cache = 1, .use_symdb = 1}};
	struct flame_svg_opts so = {0};
	struct outfile of = {.fd = -1, .dirfd = -1};
	int rest, ret, r;

	rfilter_init(&c.filt);
	if (flame_init(&c.fl)) {
		fprintf(stderr, "zt flame: out of memory\n");
		return ZT_EXIT_FAIL;
	}
	ret = flame_parse_options(&c, argc, argv, &rest);
	cmd_setup("flame", c.quiet ? -1 : c.so.verbose);
	if (ret == OPTS_HELP || ret == OPTS_ERROR) {
		ret = ret == OPTS_HELP ? ZT_EXIT_OK : ZT_EXIT_USAGE;
		goto out;
	}
	ret = flame_check_options(&c, argc, argv, rest);
	if (ret != ZT_EXIT_OK)
		goto out;
	ret = ZT_EXIT_FAIL;
	if (symopts_init(&c.so, "flame"))
		goto out;
	c.fl.reverse = c.reverse;
	if (c.diff) {
		/* value[0] (the widths) is NEW, value[1] OLD */
		r = add_input(&c, argv[rest + 1], 0);
		if (!r)
			r = add_input(&c, argv[rest], 1);
	} else {
		r = add_input(&c, c.input ? c.input : c.folded ? NULL : "zt.data", 0);
	}
	if (r)
		goto out;
	if (!c.fl.total[0])
		cmd_warn("no samples to draw: the graph is empty");
	svg_options(&c, &so);
	if (write_graph(&c, &so, &of))
		goto out;
	cmd_info("%zu frames, %llu samples", c.fl.nr_nodes - 1, (unsigned long long)c.fl.total[0]);
	ret = ZT_EXIT_OK;
out:
	outfile_release(&of); /* a graph not written whole goes */
	flame_release(&c.fl);
	rfilter_release(&c.filt);
	symopts_release(&c.so);
	return ret;
}
