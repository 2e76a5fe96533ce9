// SPDX-License-Identifier: GPL-2.0-or-later
/* zt archive: the binaries and symbols a recording needs, in one file for another machine. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/input.h"
#include "cmd/opts.h"
#include "cmd/outfile.h"
#include "cmd/symopts.h"
#include "libprof/zbuf.h"
#include "net/push.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/symarchive.h"
#include "symbolizer/symmod.h"
#include "symbolizer/vdso.h"

static const char *const archive_usage[] = {
	"zt archive [-i FILE | FILE] [-o FILE] [--symbols-only]",
	NULL,
};

static const char *const quality_names[] = {"none", "basic", "full"};

static const char readme[] =
	"This is a zt archive (zt archive): the binaries and symbols a recording\n"
	"needs to be read on another machine, by GNU build id. It is a tar file,\n"
	"zstd-compressed (tar --zstd -tvf FILE lists it):\n"
	"\n"
	"  MANIFEST                  one line a module: build id, binary packed (elf or -),\n"
	"                            quality of its symbols (full, basic, none), its path\n"
	"  buildid/XX/REST/elf       the binary whose build id is XXREST\n"
	"  gsym/ID.gsym, ID.meta     its symbols (functions, source files and lines,\n"
	"                            inlined calls) as a GSYM table, and their load segments\n"
	"\n"
	"Keep it next to the recording as RECORDING.archive (zt.data.archive) and\n"
	"zt report, script, flame and annotate use it; or name it with --archive FILE,\n"
	"or unpack it (mkdir DIR && tar --zstd -xf FILE -C DIR) and use --archive DIR.\n";

struct archive_cmd {
	const char *input, *output;
	int symbols_only;
	struct symopts so;
	struct session ses;
	struct outfile of;
	struct symarchive_writer *w;
	struct zbuf manifest;
	size_t nr_elf, nr_gsym;
};

/* The binary of mod on this machine, with its build id: the build-id
 * cache's copy, else the file at its path (under --symfs), or the vDSO
 * image. Its path into out and an open descriptor, or -1. */
static int find_binary(const struct archive_cmd *c, const struct push_module *mod, char *out,
		       size_t n, int *temp)
{
	struct prof_build_id fb = {0};
	size_t l;
	int fd;

	if (c->so.have_cache && !buildid_cache_path(&c->so.cache, &mod->id, out, n))
		goto open;
	/* this machine's image (or perf's copy) when it is the one recorded;
	 * *temp: a temporary copy, for the caller to unlink */
	if (!strcmp(mod->path, "[vdso]")) {
		if (vdso_path(&c->ses.prof, c->so.have_cache ? &c->so.cache : NULL, &mod->id, out,
			      n, temp))
			return -1;
		fd = open(out, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && *temp)
			unlink(out);
		return fd;
	}
	if (mod->path[0] != '/' ||
	    snprintf(out, n, "%s%s", c->so.symfs ? c->so.symfs : "", mod->path) >= (int)n)
		return -1;
	l = strlen(out);
	if (l > 10 && !strcmp(out + l - 10, " (deleted)"))
		out[l - 10] = 0;
open:
	fd = open(out, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	/* the file read is the one checked */
	if (elf_read_build_id_fd(fd, &fb) || fb.len != mod->id.len ||
	    memcmp(fb.data, mod->id.data, fb.len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* mod's binary and symbols into the archive; the MANIFEST line. 0, or -1
 * after a message. */
static int add_module(struct archive_cmd *c, const struct push_module *mod)
{
	char hex[2 * ZT_BUILD_ID_MAX + 1], name[128], bin[PATH_MAX], err[512], shown[PATH_MAX];
	struct symmod_seg segs[64];
	struct symmod *sm = NULL;
	struct zbuf meta;
	const void *img;
	size_t len, nseg;
	enum symq q = SYMQ_NONE;
	int fd = -1, ret = -1, have_elf = 0, temp = 0;

	zbuf_init(&meta);
	prof_build_id_hex(&mod->id, hex);
	prof_sanitize(shown, sizeof(shown), mod->path);
	if (!c->symbols_only)
		fd = find_binary(c, mod, bin, sizeof(bin), &temp);
	if (fd >= 0) {
		snprintf(name, sizeof(name), "buildid/%.2s/%s/elf", hex, hex + 2);
		if (symarchive_add_fd(c->w, name, fd, err, sizeof(err))) {
			cmd_error("cannot pack '%s': %s", bin, err);
			goto out;
		}
		have_elf = 1;
		c->nr_elf++;
	} else if (!c->symbols_only) {
		cmd_warn("the binary of '%s' (build id %s) is not on this machine: its symbols "
			 "only, "
			 "if any",
			 shown, hex);
	}
	if (symmod_open(&c->so.mo, have_elf ? bin : mod->path, &mod->id, &sm)) {
		cmd_error("out of memory");
		goto out;
	}
	q = symmod_quality(sm);
	if (q != SYMQ_NONE && !symmod_image(sm, &img, &len)) {
		nseg = symmod_segments(sm, segs, sizeof(segs) / sizeof(segs[0]));
		if (nseg > sizeof(segs) / sizeof(segs[0]))
			nseg = sizeof(segs) / sizeof(segs[0]);
		if (symmod_meta_format(&meta, q, symmod_why(sm), symmod_source(sm), segs, nseg)) {
			cmd_error("out of memory");
			goto out;
		}
		snprintf(name, sizeof(name), "gsym/%s.gsym", hex);
		if (symarchive_add(c->w, name, img, len, err, sizeof(err))) {
			cmd_error("cannot pack the symbols of '%s': %s", shown, err);
			goto out;
		}
		snprintf(name, sizeof(name), "gsym/%s.meta", hex);
		if (symarchive_add(c->w, name, meta.data, meta.len, err, sizeof(err))) {
			cmd_error("cannot pack the symbols of '%s': %s", shown, err);
			goto out;
		}
		c->nr_gsym++;
	}
	if (q != SYMQ_FULL)
		cmd_info("'%s': %s symbols only: %s", shown, quality_names[q], symmod_why(sm));
	zbuf_putf(&c->manifest, "%s %s %s %s\n", hex, have_elf ? "elf" : "-", quality_names[q],
		  shown);
	ret = c->manifest.err ? -1 : 0;
	if (ret)
		cmd_error("out of memory");
out:
	if (fd >= 0)
		close(fd);
	if (temp)
		unlink(bin);
	symmod_free(sm);
	zbuf_release(&meta);
	return ret;
}

/* Every sampled module into the new archive file, then README and
 * MANIFEST. 0, or -1 after a message. */
static int write_archive(struct archive_cmd *c, const struct push_module *mods, size_t n)
{
	char err[512];
	size_t i;
	int ret;

	if (outfile_create(&c->of, c->output, 0600, 0))
		return -1;
	if ((ret = symarchive_writer_new(c->of.fd, &c->w, err, sizeof(err)))) {
		cmd_error("cannot write '%s': %s", c->output, err);
		return -1;
	}
	if (symarchive_add(c->w, "README", readme, sizeof(readme) - 1, err, sizeof(err))) {
		cmd_error("cannot write '%s': %s", c->output, err);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (add_module(c, &mods[i]))
			return -1;
	if (symarchive_add(c->w, "MANIFEST", c->manifest.data ? (const char *)c->manifest.data : "",
			   c->manifest.len, err, sizeof(err))) {
		cmd_error("cannot write '%s': %s", c->output, err);
		return -1;
	}
	ret = symarchive_writer_close(c->w, err, sizeof(err));
	c->w = NULL;
	if (ret) {
		cmd_error("cannot write '%s': %s", c->output, err);
		return -1;
	}
	if (fsync(c->of.fd) && errno != EINVAL) {
		cmd_error("cannot write '%s': %s", c->output, strerror(errno));
		return -1;
	}
	return outfile_commit(&c->of, true);
}

/* What to do on the other machine (perf archive says it too). */
static void print_next_steps(const struct archive_cmd *c, size_t n)
{
	off_t size = lseek(c->of.fd, 0, SEEK_END);

	printf("%s: %zu module%s: %zu binar%s, %zu symbol table%s, %.1f MB\n", c->output, n,
	       n == 1 ? "" : "s", c->nr_elf, c->nr_elf == 1 ? "y" : "ies", c->nr_gsym,
	       c->nr_gsym == 1 ? "" : "s", size > 0 ? (double)size / 1e6 : 0.0);
	printf("\nCopy it with '%s' to the machine where you read the recording and keep\n"
	       "it next to it as '%s.archive': zt report, script, flame and annotate use it\n"
	       "then. Or name it:\n\n    zt report -i %s --archive %s\n",
	       c->input, c->input, c->input, c->output);
}

static int run(struct archive_cmd *c)
{
	struct push_module *mods = NULL;
	size_t n = 0;
	int ret = ZT_EXIT_FAIL;

	if (cmd_open_session(&c->ses, c->input, &c->so, 0, NULL, 1))
		return ZT_EXIT_FAIL;
	if (push_modules(session_stacks(&c->ses), &mods, &n)) {
		cmd_error("out of memory");
		goto out;
	}
	if (!n) {
		cmd_error("'%s' has no samples in binaries with a build id: nothing to archive "
			  "(perf.data: record without -B, or with --buildid-mmap)",
			  c->input);
		goto out;
	}
	if (write_archive(c, mods, n))
		goto out;
	print_next_steps(c, n);
	ret = ZT_EXIT_OK;
out:
	free(mods);
	return ret;
}

int cmd_archive(int argc, char **argv)
{
	struct archive_cmd c = {.so = {.use_debuginfod = 1, .use_cache = 1, .no_archive = 1}};
	char defout[PATH_MAX];
	const struct opt options[] = {
		{OPT_STRING, 'i', "input", &c.input, "file",
		 "the recording (zt.data or perf.data; default: zt.data)"},
		{OPT_STRING, 'o', "output", &c.output, "file",
		 "write the archive to FILE (default: INPUT.archive; an existing one becomes "
		 "FILE.old)"},
		{OPT_BOOL, 0, "symbols-only", &c.symbols_only, NULL,
		 "pack the symbol tables only, no binaries (report, script and flame need no "
		 "more; annotate and --call-graph dwarf recordings need the binaries)"},
		SYMOPTS_OPTIONS(c.so),
		OPT_EOL};
	int rest, ret;

	switch (opts_parse_permute("archive", archive_usage, options, argc, argv, &rest)) {
	case OPTS_HELP:
		symopts_release(&c.so);
		return ZT_EXIT_OK;
	case OPTS_ERROR:
		symopts_release(&c.so);
		return ZT_EXIT_USAGE;
	}
	cmd_setup("archive", c.so.verbose);
	/* perf archive [FILE]: the recording may be named without -i too */
	if (rest < argc && !c.input)
		c.input = argv[rest++];
	if (rest < argc) {
		cmd_error("unexpected argument '%s' (one recording: -i FILE or FILE)", argv[rest]);
		symopts_release(&c.so);
		return ZT_EXIT_USAGE;
	}
	if (!c.input)
		c.input = "zt.data";
	if (!c.output) {
		if (!strcmp(c.input, "-")) {
			cmd_error("a recording read from standard input needs -o FILE");
			symopts_release(&c.so);
			return ZT_EXIT_USAGE;
		}
		snprintf(defout, sizeof(defout), "%s.archive", c.input);
		c.output = defout;
	}
	c.of.fd = c.of.dirfd = -1;
	zbuf_init(&c.manifest);
	ret = symopts_init(&c.so, "archive") ? ZT_EXIT_FAIL : run(&c);
	symarchive_writer_free(c.w);
	outfile_release(&c.of);
	session_close(&c.ses);
	zbuf_release(&c.manifest);
	symopts_release(&c.so);
	return ret;
}
