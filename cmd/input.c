// SPDX-License-Identifier: GPL-2.0-or-later
/* Reading a recording for any command, with the messages users see. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/input.h"
#include "formats/perfdata.h"
#include "formats/ztdata.h"
#include "libprof/fileio.h"
#include "libprof/proctree.h"
#include "libprof/procfile.h"
#include "symbolizer/ksource.h"
#include "symbolizer/perfmap.h"
#include "symbolizer/unwind.h"

struct unwind_pass {
	struct unwinder *uw;
	struct profile *p;
	struct cmd_progress prog;
	uint64_t done;
};

static int on_ustack(void *arg, const struct prof_ustack *u)
{
	struct unwind_pass *ps = arg;

	if (!(++ps->done & 1023))
		cmd_progress_update(&ps->prog, ps->done);
	return unwinder_apply(ps->uw, ps->p, u);
}

/* --call-graph dwarf recordings: a second pass over the image hands each
 * sample's stack copy to the unwinder, which replaces its user frames. */
static int unwind_stacks(const char *path, const struct zt_image *img,
			 const struct perfdata_opts *perf, const struct symopts *so,
			 struct profile *p)
{
	const char *cg = profile_get_meta(p, "callchain");
	struct unwind_pass ps = { 0 };
	struct unwinder_opts uo = { so ? so->symfs : NULL, so ? so->debug_dirs : NULL };
	struct unwind_stats st;
	struct proctree *pt = NULL;
	char msg[256];
	size_t n = 0;
	int ret, i;

	if (!cg || strcmp(cg, "dwarf"))
		return 0;
	ps.p = p;
	ret = proctree_new(p, &pt);
	ret = ret ? ret : unwinder_new(p, pt, &uo, &ps.uw);
	if (ret) {
		cmd_error("out of memory unwinding the stacks of '%s'", path);
		proctree_free(pt);
		return -1;
	}
	cmd_progress_start(&ps.prog, "unwinding user stacks", p->nr_samples);
	ret = perf ? perfdata_read_ustacks_mem(img->data, img->len, perf, on_ustack, &ps, NULL)
		   : ztdata_read_ustacks_mem(img->data, img->len, on_ustack, &ps, NULL);
	cmd_progress_end(&ps.prog);
	unwinder_stats(ps.uw, &st);
	unwinder_free(ps.uw);
	proctree_free(pt);
	if (ret == -ENOMEM) {
		cmd_error("out of memory unwinding the stacks of '%s'", path);
		return -1;
	}
	if (ret) /* the first pass read this far: its warnings were given */
		cmd_warn("'%s': user stacks unwound up to where the file is damaged", path);
	for (i = 0; i < UNWIND_NR; i++)
		if (st.stop[i])
			n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%s%s %llu", n ? ", " : "",
					      unwind_stop_name((enum unwind_stop)i),
					      (unsigned long long)st.stop[i]);
	if (st.snapshots) {
		cmd_info("unwound %llu user stacks with DWARF CFI (%.1f frames each, %llu extended "
			 "with frame pointers; %llu binaries in %llu processes): %s",
			 (unsigned long long)st.snapshots, (double)st.frames / (double)st.snapshots,
			 (unsigned long long)st.spliced, (unsigned long long)st.modules,
			 (unsigned long long)st.dwfls, n ? msg : "");
		if (st.stop[UNWIND_STACK_END] * 5 > st.snapshots)
			cmd_warn("%llu%% of the user stacks were deeper than the stack copy: record "
				 "with a larger --call-graph dwarf,SIZE for complete stacks",
				 (unsigned long long)(st.stop[UNWIND_STACK_END] * 100 / st.snapshots));
	}
	return 0;
}

/*
 * Kernel symbols as perf takes them: from --kallsyms or -k/--vmlinux when
 * given (replacing a zt.data file's own), else for perf.data (which carries
 * none) this host's when it runs the recorded kernel build, relocated when
 * the recording comes from another boot. -1 after an error message (a file
 * given that cannot be read); a file that does not fit is a warning, as in
 * perf, and the frames stay unresolved.
 */
static int kernel_symbols(const char *path, const struct symopts *so, struct profile *p, int perf)
{
	struct ksource_opts ko = { 0 };
	struct ksource_info info;
	char a[2 * ZT_BUILD_ID_MAX + 1], b[2 * ZT_BUILD_ID_MAX + 1];
	const char *file;
	int k, fd;

	if (so) {
		ko.kallsyms = so->kallsyms;
		ko.vmlinux = so->kallsyms ? NULL : so->vmlinux;
		ko.cache = so->have_cache ? &so->cache : NULL;
	}
	file = ko.kallsyms ? ko.kallsyms : ko.vmlinux;
	if (!file && !perf)
		return 0; /* zt.data has its own */
	if (file) {
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			cmd_error("cannot read '%s': %s", file, strerror(errno));
			return -1;
		}
		close(fd);
	}
	k = ksource_add(p, &ko, &info);
	if (!k && (file || info.delta))
		cmd_info("kernel symbols from '%s'%s%s", info.source,
			 info.delta ? ", moved to the recorded _text" : "",
			 info.delta && !file ? " (this kernel, recorded in another boot)" : "");
	else if (k == -EXDEV)
		cmd_info("kernel frames stay unresolved: '%s' was recorded by another kernel build "
			 "or on another machine (--kallsyms FILE or --vmlinux VMLINUX of that kernel "
			 "would resolve them)", path);
	else if (k == -EKEYREJECTED)
		cmd_warn("'%s' has build id %s, the recorded kernel %s: not used, kernel frames stay "
			 "unresolved (give the vmlinux of the recorded kernel)", file,
			 info.src_bid.len ? prof_build_id_hex(&info.src_bid, a) : "none",
			 prof_build_id_hex(&info.rec_bid, b));
	else if (k == -ENOTSUP)
		cmd_warn("'%s' was recorded with hidden kernel addresses: '%s' cannot place them, "
			 "the recorded kernel symbols are used", path, file);
	else if (k == -EACCES)
		cmd_info("kernel frames stay unresolved: the kernel addresses in '%s' are hidden "
			 "(kernel.kptr_restrict)", info.source);
	else if (k == -ENOENT && ko.vmlinux)
		cmd_warn("'%s' has no _text symbol (not a vmlinux?): kernel frames stay unresolved", file);
	else if (k == -ENOEXEC)
		cmd_warn("'%s' is not an ELF file with a symbol table: kernel frames stay unresolved",
			 file);
	else if (k && k != -EEXIST)
		cmd_info("kernel frames stay unresolved: %s: %s", info.source ? info.source : path,
			 strerror(-k));
	return 0;
}

/* perf.data carries no perf maps: perf report reads /tmp/perf-PID.map
 * when it reports, and so does this, by perf's safety rule (see perfmap.h). */
static int jit_maps(const char *path, struct profile *p)
{
	struct perfmap_host_info pi;

	if (perfmap_add_host(p, NULL, &pi)) {
		cmd_error("out of memory reading the perf maps for '%s'", path);
		return -1;
	}
	if (pi.used)
		cmd_info("JIT symbols from %u /tmp/perf-PID.map file%s", pi.used, pi.used == 1 ? "" : "s");
	if (pi.refused)
		cmd_warn("'/tmp/perf-%u.map' not used: %s%s (it must be a file owned by you or root)",
			 pi.refused_pid, procfile_why(pi.refused_err),
			 pi.refused > 1 ? ", and more" : "");
	return 0;
}

static int load_perf(const char *path, const struct zt_image *img, int force, const char *event,
		     const struct symopts *so, struct profile *p)
{
	struct perfdata_opts o = { -1, event };
	struct perfdata_info info;
	int ret;

	ret = perfdata_read_mem(img->data, img->len, p, &o, &info);
	if (ret == -EBADMSG && force && info.good_end > info.data_offset) {
		cmd_warn("'%s': %s: using what comes before it (--force)", path, info.msg);
	} else if (ret) {
		int partial = ret == -EBADMSG && info.good_end > info.data_offset;

		cmd_error("'%s': %s%s", path, info.msg[0] ? info.msg : strerror(-ret),
			  partial ? " (use -f to read the part before it)" : "");
		return -1;
	} else if (info.msg[0]) {
		cmd_warn("'%s': %s", path, info.msg);
	}
	if (info.dwarf && unwind_stacks(path, img, &o, so, p))
		return -1;
	if (kernel_symbols(path, so, p, 1))
		return -1;
	if (jit_maps(path, p))
		return -1;
	cmd_info("read %zu samples of '%s' (%u events in the file), %zu mappings, %zu task events from '%s'",
		 p->nr_samples, profile_get_meta(p, "event") ? profile_get_meta(p, "event") : "?",
		 info.nr_events, p->nr_mmaps, p->nr_tasks, path);
	return 0;
}

/* path mapped whole, or -1 after a message. Recordings are regular files:
 * a pipe or a device (zt has no pipe mode) could be read forever. */
static int open_recording(const char *path, struct zt_image *img)
{
	const char *what;
	int ret = zt_image_open(path, img, &what);

	if (ret == -ESPIPE || (!ret && img->is_dir)) {
		cmd_error("'%s' is %s: give a recording made by 'zt record' or 'perf record'", path,
			  ret ? "not a regular file" : "a directory, not a recording");
		zt_image_close(img);
		return -1;
	}
	if (ret) {
		cmd_error("cannot %s '%s': %s%s", what, path, strerror(-ret),
			  ret == -ENOENT ? " (record one with 'zt record')" : "");
		return -1;
	}
	return 0;
}

static int load_zt(const char *path, const struct zt_image *img, int force, const char *event,
		   const struct symopts *so, struct profile *p)
{
	struct ztdata_read_info info;
	int ret;

	if (event)
		cmd_warn("--event is for perf.data files: '%s' has one event", path);
	ret = ztdata_read_mem(img->data, img->len, p, &info);
	if (ret == -EBADMSG && force && info.good_end > 0) {
		cmd_warn("'%s': %s: using what comes before it (--force)", path, info.msg);
	} else if (ret) {
		int partial = ret == -EBADMSG && info.good_end;

		cmd_error("'%s': %s%s", path, info.msg[0] ? info.msg : strerror(-ret),
			  partial ? " (use -f to read the part before it)" : "");
		return -1;
	} else if (info.msg[0]) {
		cmd_warn("'%s': %s", path, info.msg);
	}
	cmd_info("read %zu samples, %zu stacks, %zu mappings, %zu task events from '%s'", p->nr_samples,
		 p->nr_stacks, p->nr_mmaps, p->nr_tasks, path);
	if (kernel_symbols(path, so, p, 0))
		return -1;
	return unwind_stacks(path, img, NULL, so, p);
}

int cmd_load_profile(const char *path, int force, const char *event, const struct symopts *so,
		     struct profile *p)
{
	struct zt_image img;
	int ret;

	/* one descriptor, checked and mapped once: both passes read that image */
	if (open_recording(path, &img))
		return -1;
	if (perfdata_probe(img.data, img.len))
		ret = load_perf(path, &img, force, event, so, p);
	else
		ret = load_zt(path, &img, force, event, so, p);
	zt_image_close(&img);
	return ret;
}
