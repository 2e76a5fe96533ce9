// SPDX-License-Identifier: GPL-2.0-or-later
/* The session: a recording read, unwound and resolved through one path. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/perfdata.h"
#include "formats/pprofread.h"
#include "formats/ztdata.h"
#include "libprof/array.h"
#include "libprof/fileio.h"
#include "libprof/gpu.h"
#include "libprof/log.h"
#include "libprof/procfile.h"
#include "libprof/pyfold.h"
#include "session/session.h"
#include "session/symstore.h"
#include "libprof/hash.h"
#include "symbolizer/cubin.h"
#include "symbolizer/cubincache.h"
#include "symbolizer/demangle.h"
#include "symbolizer/ksource.h"
#include "symbolizer/perfmap.h"
#include "symbolizer/pyframes.h"
#include "symbolizer/resolve.h"
#include "symbolizer/unwind.h"

/* ---- the symbolizer as a frame-table source ---- */

struct session_source {
	struct resolver_opts ro;
	struct symmod_opts mo;
	int have_mo;
	const struct profile *p; /* the resolver's */
	struct resolver *res;
};

int session_source_new(const struct session_opts *o, struct session_source **out)
{
	struct session_source *ss = calloc(1, sizeof(*ss));

	*out = ss;
	if (!ss)
		return -ENOMEM;
	if (o && o->mo) {
		ss->mo = *o->mo;
		ss->have_mo = 1;
	}
	ss->ro.mo = ss->have_mo ? &ss->mo : NULL;
	ss->ro.no_files = o ? o->no_files : 0;
	/* the frame table keeps the answers; the server counts no quality */
	ss->ro.no_memo = ss->ro.no_files;
	ss->ro.no_demangle = o ? o->no_demangle : 0;
	ss->ro.full_signature = o ? o->full_signature : 0;
	ss->ro.sources = o ? o->sources : NULL;
	ss->ro.nr_sources = o ? o->nr_sources : 0;
	return 0;
}

void session_source_free(struct session_source *ss)
{
	if (!ss)
		return;
	resolver_free(ss->res);
	free(ss);
}

int session_source_follow(struct session_source *ss, const struct profile *p,
			  const struct proctree *pt)
{
	struct resolver *r;
	int ret;

	if (!p) {
		resolver_free(ss->res);
		ss->res = NULL;
		ss->p = NULL;
		return 0;
	}
	if (ss->res && ss->p == p)
		return resolver_update(ss->res, pt);
	ret = resolver_new_opts(p, pt, &ss->ro, &r);
	if (ret)
		return ret;
	resolver_free(ss->res);
	ss->res = r;
	ss->p = p;
	return 0;
}

static int ft_push(void *ctx, const struct zt_frame *f)
{
	return frametab_push(ctx, f);
}

static int src_resolve(void *ctx, struct frametab *ft, uint32_t pid, uint64_t ts, uint64_t addr,
		       int kernel)
{
	struct session_source *ss = ctx;
	struct resolve_frame f;
	int ret;

	if (!ss->res)
		return -EINVAL; /* no profile followed */
	ret = resolver_resolve(ss->res, pid, ts, addr, kernel, &f);
	if (ret)
		return ret;
	/* a Python function is one address, whichever instruction (named:
	 * its offset), as a native function is its start */
	if (!kernel && prof_is_py(addr))
		addr = pyframes_func_ip(addr) + (f.sym ? f.offset : 0);
	return session_frames_of(&f, addr, ft_push, ft);
}

static int src_time_sensitive(void *ctx, uint32_t pid)
{
	struct session_source *ss = ctx;

	return ss->res && resolver_time_sensitive(ss->res, pid);
}

static int src_follow(void *ctx, const struct profile *p, const struct proctree *pt)
{
	return session_source_follow(ctx, p, pt);
}

void session_source_get(struct session_source *ss, struct frametab_source *src)
{
	/* without files, a binary's frames are its module and offset in each
	 * process: asked per process, they are cheap and name its own path */
	*src = (struct frametab_source){src_resolve, src_time_sensitive, src_follow, ss,
					ss->ro.no_files};
}

/* ---- a growing profile ---- */

struct session_live {
	struct session_source *src;
	struct rstacks_live lv;
};

int session_live_new(const struct session_opts *o, struct session_live **out)
{
	struct session_live *sl = calloc(1, sizeof(*sl));
	struct frametab_source fs;

	*out = sl;
	if (!sl || session_source_new(o, &sl->src)) {
		free(sl);
		*out = NULL;
		return -ENOMEM;
	}
	session_source_get(sl->src, &fs);
	rstacks_live_init(&sl->lv, &fs);
	return 0;
}

void session_live_free(struct session_live *sl)
{
	if (!sl)
		return;
	rstacks_live_release(&sl->lv);
	session_source_free(sl->src);
	free(sl);
}

struct rstacks_live *session_live_stacks(struct session_live *sl)
{
	return &sl->lv;
}

/* ---- reading ---- */

struct unwind_pass {
	struct unwinder *uw;
	struct profile *p;
	const struct session_opts *o;
	uint64_t done;
	uint64_t launches; /* GPU launch snapshots unwound */
};

static void progress(const struct session_opts *o, const char *what, uint64_t done, uint64_t total)
{
	if (o->progress)
		o->progress(o->progress_ctx, what, done, total);
}

#define UNWINDING "unwinding user stacks"

/* A GPU launch's snapshot (zt record --gpu --call-graph dwarf, taken by
 * the BPF sampler at the USDT probe): its stack becomes the unwinding,
 * with the frame-pointer chain it has as the one to splice. */
static int unwind_launch(struct unwind_pass *ps, const struct prof_ustack *u)
{
	static __thread uint64_t ips[ZT_MAX_FRAMES];
	struct prof_gpu *g = ps->p->gpu;
	struct prof_gpu_launch *l;
	const uint64_t *fp = NULL;
	enum unwind_stop stop;
	unsigned nfp = 0;
	uint32_t id;
	int n;

	if (!g || u->sample >= g->nr_launches)
		return 0;
	l = &g->launches[u->sample];
	if (l->stack != PROF_GPU_NO_STACK && l->stack < ps->p->nr_stacks) {
		const struct prof_stack *st = &ps->p->stacks[l->stack];

		fp = profile_stack_ips(ps->p, l->stack) + st->nk;
		nfp = st->nu;
	}
	n = unwinder_unwind(ps->uw, l->pid, l->tid, l->ts, u, fp, nfp, ips, ZT_MAX_FRAMES, &stop);
	if (n < 0)
		return n;
	if (!n || profile_intern_stack(ps->p, ips, 0, (unsigned)n, &id))
		return n ? -ENOMEM : 0;
	ps->launches++;
	l->stack = id;
	l->flags |= PROF_GPU_L_STACK;
	return 0;
}

static int on_ustack(void *arg, const struct prof_ustack *u)
{
	struct unwind_pass *ps = arg;

	if (u->launch)
		return unwind_launch(ps, u);
	if (!(++ps->done & 1023))
		progress(ps->o, UNWINDING, ps->done, ps->p->nr_samples);
	return unwinder_apply(ps->uw, ps->p, u);
}

/* --call-graph dwarf recordings: a second pass over the image hands each
 * sample's stack copy to the unwinder, which replaces its user frames. */
static int unwind_stacks(struct session *s, const struct zt_image *img,
			 const struct session_opts *o)
{
	struct profile *p = &s->prof;
	const char *cg = profile_get_meta(p, "callchain"), *path = s->path;
	struct perfdata_opts po = {-1, o->event, o->all_events};
	struct unwind_pass ps = {0};
	struct unwinder_opts uo = {o->mo ? o->mo->find.symfs : NULL,
				   o->mo ? o->mo->find.debug_dirs : NULL,
				   o->mo ? o->mo->archive : NULL};
	struct unwind_stats st;
	char msg[256];
	size_t n = 0;
	int ret, i;

	if (!cg || strcmp(cg, "dwarf") || (o && o->no_unwind))
		return 0;
	ps.p = p;
	ps.o = o;
	ret = unwinder_new(p, s->pt, &uo, &ps.uw);
	if (ret) {
		zt_log(ZT_LOG_ERROR, "out of memory unwinding the stacks of '%s'", path);
		return -1;
	}
	progress(o, UNWINDING, 0, p->nr_samples);
	ret = s->perf ? perfdata_read_ustacks_mem(img->data, img->len, &po, on_ustack, &ps, NULL)
		      : ztdata_read_ustacks_mem(img->data, img->len, on_ustack, &ps, NULL);
	progress(o, UNWINDING, p->nr_samples, p->nr_samples);
	unwinder_stats(ps.uw, &st);
	unwinder_free(ps.uw);
	if (ret == -ENOMEM) {
		zt_log(ZT_LOG_ERROR, "out of memory unwinding the stacks of '%s'", path);
		return -1;
	}
	if (ret) /* the first pass read this far: its warnings were given */
		zt_warn("'%s': user stacks unwound up to where the file is damaged", path);
	for (i = 0; i < UNWIND_NR; i++)
		if (st.stop[i])
			n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%s%s %llu", n ? ", " : "",
					      unwind_stop_name((enum unwind_stop)i),
					      (unsigned long long)st.stop[i]);
	if (st.snapshots) {
		zt_info("unwound %llu user stacks with DWARF CFI (%.1f frames each, %llu extended "
			"with the recorded chain, %llu of them the kernel unwinder's; %llu binaries "
			"in %llu processes; %llu GPU launches'): %s",
			(unsigned long long)st.snapshots, (double)st.frames / (double)st.snapshots,
			(unsigned long long)st.spliced, (unsigned long long)st.chained,
			(unsigned long long)st.modules,
			(unsigned long long)st.dwfls, (unsigned long long)ps.launches,
			n ? msg : "");
		/* (those the recorded chain carried on past the copy are whole) */
		if (st.cut * 5 > st.snapshots)
			zt_warn("%llu%% of the user stacks were deeper than the stack copy: record "
				"with a larger --call-graph dwarf,SIZE for complete stacks",
				(unsigned long long)(st.cut * 100 / st.snapshots));
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
static int kernel_symbols(const char *path, const struct session_opts *so, struct profile *p,
			  int perf)
{
	struct ksource_opts ko = {0};
	struct ksource_info info;
	char a[2 * ZT_BUILD_ID_MAX + 1], b[2 * ZT_BUILD_ID_MAX + 1];
	const char *file;
	int k, fd;

	if (so) {
		ko.kallsyms = so->kallsyms;
		ko.vmlinux = so->kallsyms ? NULL : so->vmlinux;
		ko.cache = so->kcache;
	}
	file = ko.kallsyms ? ko.kallsyms : ko.vmlinux;
	if (!file && !perf)
		return 0; /* zt.data has its own */
	if (file) {
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			zt_log(ZT_LOG_ERROR, "cannot read '%s': %s", file, strerror(errno));
			return -1;
		}
		close(fd);
	}
	k = ksource_add(p, &ko, &info);
	if (!k && (file || info.delta))
		zt_info("kernel symbols from '%s'%s%s", info.source,
			info.delta ? ", moved to the recorded _text" : "",
			info.delta && !file ? " (this kernel, recorded in another boot)" : "");
	else if (k == -EXDEV)
		zt_info("kernel frames stay unresolved: '%s' was recorded by another kernel build "
			"or on another machine (--kallsyms FILE or --vmlinux VMLINUX of that "
			"kernel "
			"would resolve them)",
			path);
	else if (k == -EKEYREJECTED)
		zt_warn("'%s' has build id %s, the recorded kernel %s: not used, kernel frames "
			"stay "
			"unresolved (give the vmlinux of the recorded kernel)",
			file, info.src_bid.len ? prof_build_id_hex(&info.src_bid, a) : "none",
			prof_build_id_hex(&info.rec_bid, b));
	else if (k == -ENOTSUP)
		zt_warn("'%s' was recorded with hidden kernel addresses: '%s' cannot place them, "
			"the recorded kernel symbols are used",
			path, file);
	else if (k == -EACCES)
		zt_info("kernel frames stay unresolved: the kernel addresses in '%s' are hidden "
			"(kernel.kptr_restrict)",
			info.source);
	else if (k == -ENOENT && ko.vmlinux)
		zt_warn("'%s' has no _text symbol (not a vmlinux?): kernel frames stay unresolved",
			file);
	else if (k == -ENOEXEC)
		zt_warn("'%s' is not an ELF file with a symbol table: kernel frames stay "
			"unresolved",
			file);
	else if (k && k != -EEXIST)
		zt_info("kernel frames stay unresolved: %s: %s", info.source ? info.source : path,
			strerror(-k));
	return 0;
}

/* perf.data carries no perf maps: perf report reads /tmp/perf-PID.map
 * when it reports, and so does this, by perf's safety rule (see perfmap.h). */
static int jit_maps(const char *path, struct profile *p)
{
	struct perfmap_host_info pi;

	if (perfmap_add_host(p, NULL, &pi)) {
		zt_log(ZT_LOG_ERROR, "out of memory reading the perf maps for '%s'", path);
		return -1;
	}
	if (pi.used)
		zt_info("JIT symbols from %u /tmp/perf-PID.map file%s", pi.used,
			pi.used == 1 ? "" : "s");
	if (pi.refused)
		zt_warn("'/tmp/perf-%u.map' not used: %s%s (it must be a file owned by you or "
			"root)",
			pi.refused_pid, procfile_why(pi.refused_err),
			pi.refused > 1 ? ", and more" : "");
	return 0;
}

/* path mapped whole, or -1 after a message. Recordings are regular files
 * (a pipe or a device given by name could be read forever), or "-":
 * standard input read to its end. */
static int open_recording(const char *path, struct zt_image *img)
{
	const char *what = "read";
	int ret;

	if (!strcmp(path, "-")) {
		/* a stream: zt record -o - | zt report -i -, perf record -o - | ... */
		if (isatty(STDIN_FILENO)) {
			zt_log(ZT_LOG_ERROR, "standard input is a terminal: pipe a recording into it "
					     "(zt record -o - | zt report -i -) or give a file with -i");
			return -1;
		}
		ret = zt_image_read_fd(STDIN_FILENO, img);
		if (ret)
			zt_log(ZT_LOG_ERROR, "cannot read standard input: %s", strerror(-ret));
		return ret ? -1 : 0;
	}
	ret = zt_image_open(path, img, &what);

	if (ret == -ESPIPE || (!ret && img->is_dir)) {
		zt_log(ZT_LOG_ERROR,
		       "'%s' is %s: give a recording made by 'zt record' or 'perf record'", path,
		       ret ? "not a regular file" : "a directory, not a recording");
		zt_image_close(img);
		return -1;
	}
	if (ret) {
		zt_log(ZT_LOG_ERROR, "cannot %s '%s': %s%s", what, path, strerror(-ret),
		       ret == -ENOENT ? " (record one with 'zt record')" : "");
		return -1;
	}
	return 0;
}

static int load_perf(struct session *s, const struct zt_image *img, const struct session_opts *o)
{
	struct perfdata_opts po = {-1, o->event, o->all_events};
	struct perfdata_info info;
	struct profile *p = &s->prof;
	const char *path = s->path;
	int ret;

	ret = perfdata_read_mem(img->data, img->len, p, &po, &info);
	if (ret == -EBADMSG && o->force && info.good_end > info.data_offset) {
		zt_warn("'%s': %s: using what comes before it (--force)", path, info.msg);
	} else if (ret) {
		int partial = ret == -EBADMSG && info.good_end > info.data_offset;

		zt_log(ZT_LOG_ERROR, "'%s': %s%s", path, info.msg[0] ? info.msg : strerror(-ret),
		       partial ? " (use -f to read the part before it)" : "");
		return -1;
	} else if (info.msg[0]) {
		zt_warn("'%s': %s", path, info.msg);
	}
	if (kernel_symbols(path, o, p, 1))
		return -1;
	if (jit_maps(path, p))
		return -1;
	zt_info("read %zu samples of '%s' (%u events in the file), %zu mappings, %zu task events "
		"from '%s'",
		p->nr_samples, profile_get_meta(p, "event") ? profile_get_meta(p, "event") : "?",
		info.nr_events, p->nr_mmaps, p->nr_tasks, path);
	return 0;
}

static int load_zt(struct session *s, const struct zt_image *img, const struct session_opts *o)
{
	struct ztdata_read_info info;
	struct profile *p = &s->prof;
	const char *path = s->path;
	int ret;

	ret = ztdata_read_mem(img->data, img->len, p, &info);
	if (ret == -EBADMSG && o->force && info.good_end > 0) {
		zt_warn("'%s': %s: using what comes before it (--force)", path, info.msg);
	} else if (ret) {
		int partial = ret == -EBADMSG && info.good_end;

		zt_log(ZT_LOG_ERROR, "'%s': %s%s", path, info.msg[0] ? info.msg : strerror(-ret),
		       partial ? " (use -f to read the part before it)" : "");
		return -1;
	} else if (info.msg[0]) {
		zt_warn("'%s': %s", path, info.msg);
	}
	zt_info("read %zu samples, %zu stacks, %zu mappings, %zu task events from '%s'",
		p->nr_samples, p->nr_stacks, p->nr_mmaps, p->nr_tasks, path);
	return kernel_symbols(path, o, p, 0);
}

static const struct session_opts no_opts;

/* Python stacks: the interpreter's glue between Python frames folded out
 * (after unwinding: the unwound stacks are the ones folded), unless
 * python_glue. 0 or -ENOMEM. */
static int fold_python(struct session *s, const struct session_opts *o)
{
	struct pyfold_stats st;
	int ret;

	if (o->python_glue || !s->prof.nr_stacks)
		return 0;
	ret = pyfold_profile(&s->prof, s->pt, &st);
	if (!ret && st.stacks)
		zt_debug("folded the interpreter's frames out of %llu Python stacks (%llu frames)",
			 (unsigned long long)st.stacks, (unsigned long long)st.frames);
	return ret;
}

/* perf's event name matching: "cpu-clock" names "cpu-clock:ppp" too, and
 * "cpu-clock:u" names "cpu-clock". */
static int event_matches(const char *have, const char *want)
{
	size_t l = strlen(want);

	if (!strcmp(have, want) || (!strncmp(have, want, l) && have[l] == ':'))
		return 1;
	l = strlen(have);
	return !strncmp(want, have, l) && want[l] == ':';
}

/* zt.data holds every event: keep the one asked for (or the first),
 * unless all are wanted. After unwinding: the snapshots are numbered by
 * the file's samples. 0, or -1 after a message. */
static int select_events(struct session *s, const struct session_opts *o)
{
	struct profile *p = &s->prof;
	size_t i, nr = profile_nr_events(p);
	char list[512];

	if (!o->event) {
		if (!o->all_events && nr > 1)
			profile_keep_event(p, 0);
		return 0;
	}
	for (i = 0; i < nr; i++) {
		const char *name = profile_event_name(p, (uint32_t)i);

		if (name && event_matches(name, o->event)) {
			profile_keep_event(p, (uint32_t)i);
			return 0;
		}
	}
	profile_event_list(p, list, sizeof(list));
	zt_log(ZT_LOG_ERROR, "'%s': no event '%s' in the file (it has: %s)", s->path, o->event,
	       list);
	return -1;
}

int session_open(struct session *s, const char *path, const struct session_opts *o)
{
	struct frametab_source fs;
	struct zt_image img;
	int ret;

	memset(s, 0, sizeof(*s));
	s->path = path;
	profile_init(&s->prof);
	if (!o)
		o = &no_opts;
	/* one descriptor, checked and mapped once: both passes read that image */
	if (open_recording(path, &img))
		return -1;
	s->perf = perfdata_probe(img.data, img.len);
	ret = s->perf ? load_perf(s, &img, o) : load_zt(s, &img, o);
	/* one tree: the unwinder's and the resolver's */
	if (!ret && proctree_new(&s->prof, &s->pt)) {
		zt_log(ZT_LOG_ERROR, "out of memory reading '%s'", path);
		ret = -1;
	}
	if (!ret)
		ret = unwind_stacks(s, &img, o);
	if (!ret && !s->perf)
		ret = select_events(s, o);
	if (!ret && fold_python(s, o)) {
		zt_log(ZT_LOG_ERROR, "out of memory reading '%s'", path);
		ret = -1;
	}
	zt_image_close(&img);
	if (!ret &&
	    (session_source_new(o, &s->src) || session_source_follow(s->src, &s->prof, s->pt))) {
		zt_log(ZT_LOG_ERROR, "out of memory reading '%s'", path);
		ret = -1;
	}
	if (ret) {
		session_close(s);
		return -1;
	}
	session_source_get(s->src, &fs);
	frametab_init(&s->ft, s->pt, &fs);
	rstacks_init(&s->rs, &s->prof, s->pt, &s->ft);
	return 0;
}

int session_open_pushed(struct session *s, const void *data, size_t len,
			const struct session_opts *o, char *msg, size_t msglen)
{
	struct session_opts so = o ? *o : no_opts;
	struct ztdata_read_info info;
	struct frametab_source fs;
	int ret;

	memset(s, 0, sizeof(*s));
	s->path = "(pushed)";
	profile_init(&s->prof);
	so.no_files = 1;
	/* GPU records are not kept by the server: their chunks are only checked */
	ret = ztdata_read_mem_flags(data, len, &s->prof, ZTDATA_READ_NO_GPU, &info);
	if (ret) {
		zt_say(msg, msglen, "bad zt.data: %s", info.msg[0] ? info.msg : strerror(-ret));
		goto fail;
	}
	ret = -EBADMSG;
	if (info.ustack_chunks) {
		zt_say(msg, msglen, "the recording holds user-stack snapshots (--call-graph dwarf): "
				 "push --call-graph dwarf recordings with zt push, which unwinds them");
		goto fail;
	}
	if (!info.complete || info.truncated || info.good_end != len) {
		zt_say(msg, msglen, "incomplete zt.data: %s",
		       info.msg[0] ? info.msg : "the file does not end with its index chunk");
		goto fail;
	}
	/* one event a profile, as for perf.data: the first (zt push sends one each) */
	if (profile_nr_events(&s->prof) > 1)
		profile_keep_event(&s->prof, 0);
	ret = proctree_new(&s->prof, &s->pt);
	if (!ret)
		ret = fold_python(s, &so);
	if (!ret)
		ret = session_source_new(&so, &s->src);
	if (!ret)
		ret = session_source_follow(s->src, &s->prof, s->pt);
	if (ret) {
		zt_say(msg, msglen, "out of memory reading the recording");
		goto fail;
	}
	session_source_get(s->src, &fs);
	frametab_init(&s->ft, s->pt, &fs);
	/* the server keeps each stack's frame keys itself, and most of a
	 * fleet's addresses come once: resolved as they come, without files */
	frametab_transient(&s->ft);
	rstacks_init(&s->rs, &s->prof, s->pt, &s->ft);
	return 0;
fail:
	session_close(s);
	return ret == -ENOMEM ? -ENOMEM : -EBADMSG;
}

/* ---- a pushed pprof ---- */

/* The frame source of a pprof's locations: their lines as inline
 * chains, asked before the caller's sources. The chain of an answer lives
 * until the next one: the session's resolver keeps no answers (no_memo,
 * without files), the frame table copies them. */
struct session_pprof {
	struct pprof_body *b;
	struct fi_loc *locs; /* the last answer's chain */
	size_t cap_locs;
	struct resolve_source *sources; /* this one, then the caller's */
};

static void session_pprof_free(struct session_pprof *sp)
{
	if (!sp)
		return;
	pprof_body_free(sp->b);
	free(sp->locs);
	free(sp->sources);
	free(sp);
}

static int pprof_resolve(void *ctx, const struct profile *p, uint32_t pid, uint64_t ts,
			 const struct prof_mmap *m, uint64_t addr, struct resolve_frame *f)
{
	struct session_pprof *sp = ctx;
	const struct pprof_loc *l = pprof_body_loc(sp->b, addr);
	uint32_t i;

	(void)p, (void)pid, (void)ts, (void)m;
	if (!l)
		return 0;
	f->module = l->module;
	if (!l->named) {
		f->offset = l->offset;
		f->quality = SYMQ_NONE;
		return 1;
	}
	if (ZT_GROW(sp->locs, sp->cap_locs, l->nr_lines))
		return -ENOMEM;
	for (i = 0; i < l->nr_lines; i++)
		sp->locs[i] = (struct fi_loc){l->lines[i].name, "", l->lines[i].file,
					      l->lines[i].line, 0};
	f->locs = sp->locs;
	f->nr_locs = l->nr_lines;
	f->sym = f->locs[f->nr_locs - 1].name;
	f->quality = SYMQ_BASIC;
	return 1;
}

/* The frame source of body b, before o's sources in *so. */
static int session_pprof_new(struct pprof_body *b, struct session_opts *so,
			     struct session_pprof **out)
{
	struct session_pprof *sp = calloc(1, sizeof(*sp));

	*out = sp;
	if (!sp) {
		pprof_body_free(b);
		return -ENOMEM;
	}
	sp->b = b;
	sp->sources = calloc(so->nr_sources + 1, sizeof(*sp->sources));
	if (!sp->sources)
		return -ENOMEM;
	sp->sources[0] = (struct resolve_source){pprof_resolve, sp};
	if (so->nr_sources)
		memcpy(sp->sources + 1, so->sources, so->nr_sources * sizeof(*sp->sources));
	so->sources = sp->sources;
	so->nr_sources++;
	return 0;
}

int session_open_pushed_pprof(struct session *s, const void *data, size_t len,
			      uint64_t max_decoded, const struct session_opts *o, char *msg,
			      size_t msglen)
{
	struct session_opts so = o ? *o : no_opts;
	struct frametab_source fs;
	struct pprof_body *b;
	int ret;

	memset(s, 0, sizeof(*s));
	s->path = "(pushed)";
	profile_init(&s->prof);
	so.no_files = 1;
	ret = pprof_read_mem(data, len, max_decoded, &s->prof, &b, msg, msglen);
	if (ret == -EMEDIUMTYPE)
		zt_say(msg, msglen, "not a pprof profile");
	if (!ret)
		ret = session_pprof_new(b, &so, &s->pp);
	if (!ret)
		ret = proctree_new(&s->prof, &s->pt);
	if (!ret)
		ret = session_source_new(&so, &s->src);
	if (!ret)
		ret = session_source_follow(s->src, &s->prof, s->pt);
	if (!ret) {
		session_source_get(s->src, &fs);
		frametab_init(&s->ft, s->pt, &fs);
		/* as session_open_pushed()'s: its consumer keeps each
		 * location's keys */
		frametab_transient(&s->ft);
	}
	if (ret) {
		if (ret == -ENOMEM)
			zt_say(msg, msglen, "out of memory reading the pprof");
		session_close(s);
		return ret;
	}
	rstacks_init(&s->rs, &s->prof, s->pt, &s->ft);
	return 0;
}

const struct pprof_body *session_pprof(const struct session *s)
{
	return s->pp ? s->pp->b : NULL;
}

const struct rstacks *session_stacks(const struct session *s)
{
	return &s->rs;
}

void session_close(struct session *s)
{
	frametab_release(&s->ft);
	session_source_free(s->src);
	session_pprof_free(s->pp);
	proctree_free(s->pt);
	profile_release(&s->prof);
	memset(s, 0, sizeof(*s));
}

void session_quality_counts(const struct session *s, uint64_t counts[3])
{
	resolver_quality_counts(s->src->res, counts);
}

void session_pclntab_modules(const struct session *s, void (*cb)(void *ctx, const char *module),
			     void *ctx)
{
	resolver_pclntab_modules(s->src->res, cb, ctx);
}

void session_weak_modules(const struct session *s,
			  void (*cb)(void *ctx, const char *module, enum symq q, const char *why),
			  void *ctx)
{
	resolver_weak_modules(s->src->res, cb, ctx);
}

void session_remote_modules(const struct session *s,
			    void (*cb)(void *ctx, const char *module, const char *source,
				       int fetched),
			    void *ctx)
{
	resolver_remote_modules(s->src->res, cb, ctx);
}

/* ---- GPU PCs, from the recorded cubins ---- */

#define GPU_MAX_FRAMES 64

struct gpu_pckey {
	uint64_t crc, pc;
	uint32_t function;
	struct gpu_frange r;
};

struct gpu_cubin_ent {
	uint64_t crc;
	struct cubin *c; /* NULL: missing or unreadable */
	size_t note;	 /* index into t->cubins */
};

struct gpu_res {
	struct session *s;
	const struct prof_gpu *g;
	struct gpu_frametab *t;
	struct gpu_pckey *keys;
	size_t nr_keys, cap_keys;
	struct zt_htab kh;
	struct gpu_cubin_ent *cubins;
	size_t nr_cubins, cap_cubins, last;
};

static inline uint64_t gpu_key_hash(uint64_t crc, uint32_t function, uint64_t pc)
{
	return zt_hash_pair(zt_hash_pair(crc, function), pc);
}

static inline uint64_t gpu_key_item_hash(const void *ctx, uint32_t i)
{
	const struct gpu_res *r = ctx;
	const struct gpu_pckey *k = &r->keys[i];

	return gpu_key_hash(k->crc, k->function, k->pc);
}

/* The demangled (or kept) name as one of t's strings. */
static const char *gpu_name(struct gpu_res *r, const char *mangled)
{
	char *d = r->s->src->ro.no_demangle ? NULL
					    : zt_demangle(mangled, r->s->src->ro.full_signature);
	const char *n = gpu_frametab_str(r->t, d ? d : mangled);

	free(d);
	return n;
}

static struct gpu_cubin_ent *gpu_cubin(struct gpu_res *r, uint64_t crc)
{
	const struct prof_gpu_cubin *pc;
	struct gpu_cubin_ent *e;
	const char *why = NULL;
	size_t i;
	int ret;

	/* the view's buckets come by cubin: the last one first */
	if (r->nr_cubins && r->cubins[r->last].crc == crc)
		return &r->cubins[r->last];
	for (i = 0; i < r->nr_cubins; i++)
		if (r->cubins[i].crc == crc) {
			r->last = i;
			return &r->cubins[i];
		}
	if (r->nr_cubins == r->cap_cubins) {
		size_t nc = r->cap_cubins ? r->cap_cubins * 2 : 16;
		void *p = realloc(r->cubins, nc * sizeof(*r->cubins));

		if (!p)
			return NULL;
		r->cubins = p;
		r->cap_cubins = nc;
	}
	e = &r->cubins[r->nr_cubins];
	memset(e, 0, sizeof(*e));
	e->crc = crc;
	pc = prof_gpu_find_cubin(r->g, crc);
	if (!pc) {
		why = "cubin not recorded";
	} else if (!cubin_is_cubin(pc->data, pc->len)) {
		why = "not a cubin (no EM_CUDA ELF image)";
	} else if ((ret = cubincache_open(pc->data, pc->len,
					  r->s->src->have_mo ? r->s->src->mo.cache : NULL, &e->c,
					  NULL))) {
		if (ret == -ENOMEM)
			return NULL;
		why = "unreadable cubin";
	} else if (!cubin_has_lines(e->c)) {
		why = "no line table (built without -lineinfo)";
	}
	e->note = r->t->nr_cubins;
	if (gpu_frametab_add_cubin(r->t, crc,
				   e->c ? (why ? ZT_FRAME_BASIC : ZT_FRAME_FULL) : ZT_FRAME_NONE,
				   why)) {
		cubin_free(e->c);
		return NULL;
	}
	r->last = r->nr_cubins++;
	return e;
}

/* Resolve one unique (cubin, function, PC) into t's frames. */
static int gpu_resolve_one(struct gpu_res *r, struct gpu_pckey *k)
{
	struct cubin_frame cf[GPU_MAX_FRAMES];
	struct gpu_cubin_ent *e = gpu_cubin(r, k->crc);
	const char *fn = prof_gpu_str(r->g, k->function);
	struct gpu_frametab *t = r->t;
	int n = 0, i, q = ZT_FRAME_NONE;

	if (!e)
		return -ENOMEM;
	if (e->c) {
		n = cubin_resolve(e->c, fn, k->pc, cf, GPU_MAX_FRAMES);
		if (n < 0)
			return n;
	}
	k->r.first = (uint32_t)t->nr_frames;
	for (i = 0; i < n; i++) {
		struct gpu_frame f = {.inlined = cf[i].inlined, .line = cf[i].line};

		f.func = gpu_name(r, cf[i].func[0] ? cf[i].func : "??");
		if (cf[i].file && !(f.file = gpu_frametab_str(t, cf[i].file)))
			return -ENOMEM;
		if (cf[i].dir && !(f.dir = gpu_frametab_str(t, cf[i].dir)))
			return -ENOMEM;
		f.quality = f.file && f.line ? ZT_FRAME_FULL : ZT_FRAME_BASIC;
		if (!f.func || gpu_frametab_push(t, &f))
			return -ENOMEM;
	}
	if (n > 0) {
		q = t->frames[k->r.first].quality;
	} else {
		struct gpu_frame f = {.quality = ZT_FRAME_NONE};

		f.func = gpu_name(r, fn);
		if (!f.func || gpu_frametab_push(t, &f))
			return -ENOMEM;
		n = 1;
	}
	k->r.n = (uint32_t)n;
	t->quality[q]++;
	if (q > t->cubins[e->note].quality || !e->c)
		t->cubins[e->note].quality = (uint8_t)q;
	return 0;
}

int session_gpu_frames(struct session *s, const struct gpu_view *v, struct gpu_frametab *t)
{
	struct gpu_res r = {.s = s, .g = s->prof.gpu, .t = t};
	size_t i;
	int ret = 0;

	if (gpu_frametab_set_pcs(t, v->nr_pcs))
		return -ENOMEM;
	for (i = 0; i < v->nr_pcs && !ret; i++) {
		const struct gpu_pcsum *p = &v->pcs[i];
		uint64_t h = gpu_key_hash(p->crc, p->function, p->pc);
		struct gpu_pckey *k = NULL;
		uint32_t ki;
		size_t j;

		if ((ret = zt_htab_reserve(&r.kh, 1, gpu_key_item_hash, &r)))
			break;
		for (j = zt_htab_first(&r.kh, h); zt_htab_get(&r.kh, j, &ki);
		     j = zt_htab_next(&r.kh, j))
			if (r.keys[ki].crc == p->crc && r.keys[ki].pc == p->pc &&
			    r.keys[ki].function == p->function) {
				k = &r.keys[ki];
				break;
			}
		if (!k) {
			if (r.nr_keys == r.cap_keys) {
				size_t nc = r.cap_keys ? r.cap_keys * 2 : 256;
				void *np = realloc(r.keys, nc * sizeof(*r.keys));

				if (!np) {
					ret = -ENOMEM;
					break;
				}
				r.keys = np;
				r.cap_keys = nc;
			}
			k = &r.keys[r.nr_keys];
			*k = (struct gpu_pckey){
				.crc = p->crc, .pc = p->pc, .function = p->function};
			if ((ret = gpu_resolve_one(&r, k)))
				break;
			zt_htab_set(&r.kh, j, (uint32_t)r.nr_keys++);
		}
		t->pcs[i] = k->r;
	}
	for (i = 0; i < r.nr_cubins; i++)
		cubin_free(r.cubins[i].c);
	free(r.cubins);
	free(r.keys);
	zt_htab_release(&r.kh);
	return ret;
}

int session_select_gpu(struct session *s, const struct rfilter *f)
{
	const struct prof_gpu *g = s->prof.gpu;
	uint64_t first, last;
	size_t i;

	if (!g || !gpu_select_active(f))
		return 0;
	profile_time_span(&s->prof, &first, &last);
	if (!s->prof.nr_samples)
		first = UINT64_MAX;
	for (i = 0; !s->prof.nr_samples && i < g->nr_kernels; i++) {
		first = g->kernels[i].start < first ? g->kernels[i].start : first;
		last = g->kernels[i].end > last ? g->kernels[i].end : last;
	}
	for (i = 0; !s->prof.nr_samples && i < g->nr_memops; i++) {
		first = g->memops[i].start < first ? g->memops[i].start : first;
		last = g->memops[i].end > last ? g->memops[i].end : last;
	}
	if (first == UINT64_MAX)
		first = 0;
	return gpu_select(s->prof.gpu, f, s->pt, first, last);
}

int session_gpu_open(struct session *s, const struct rfilter *f, int frames,
		     struct session_gpu *sg)
{
	const struct prof_gpu *g = s->prof.gpu;
	int ret;

	memset(sg, 0, sizeof(*sg));
	gpu_frametab_init(&sg->ft);
	sg->g = g;
	sg->demangle = !s->src->ro.no_demangle;
	sg->full_signature = s->src->ro.full_signature;
	if (!g)
		return 0;
	sg->had_pcs = g->nr_pcs != 0;
	if (prof_gpu_nr_strs(g) && !(sg->names = calloc(prof_gpu_nr_strs(g), sizeof(*sg->names))))
		return -ENOMEM;
	ret = f ? session_select_gpu(s, f) : 0;
	if (!ret)
		ret = gpu_view_init(&sg->v, g);
	if (!ret && frames)
		ret = session_gpu_frames(s, &sg->v, &sg->ft);
	return ret;
}

void session_gpu_close(struct session_gpu *sg)
{
	size_t i;

	for (i = 0; sg->names && i < prof_gpu_nr_strs(sg->g); i++)
		free(sg->names[i]);
	free(sg->names);
	gpu_frametab_release(&sg->ft);
	gpu_view_release(&sg->v);
	memset(sg, 0, sizeof(*sg));
}

const char *session_gpu_name(struct session_gpu *sg, uint32_t id)
{
	const char *raw;
	char *d;

	if (!sg->g)
		return NULL;
	raw = prof_gpu_str(sg->g, id);
	if (id >= prof_gpu_nr_strs(sg->g) || !sg->names)
		return raw;
	if (!sg->names[id]) {
		d = sg->demangle ? zt_demangle(raw, sg->full_signature) : NULL;
		sg->names[id] = d ? d : strdup(raw);
	}
	return sg->names[id] ? sg->names[id] : raw;
}

const char *session_gpu_name_cb(void *ctx, uint32_t id)
{
	return session_gpu_name(ctx, id);
}
