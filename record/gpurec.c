// SPDX-License-Identifier: GPL-2.0-or-later
/* zt record --gpu: the library, the directory, the merge (see gpurec.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf/sample_event.h"
#include "cupti/wire.h"
#include "formats/ztdata.h"
#include "formats/ztgpu.h"
#include "libprof/gpu.h"
#include "libprof/hash.h"
#include "libprof/log.h"
#include "libprof/profile.h"
#include "record/gpurec.h"

#define MAX_FILES 4096 /* processes whose files are read in one recording */

struct gfile {
	char *name;
	struct ztgpu_reader *rd; /* NULL: refused or failed, no longer read */
	bool checked;            /* its owner was checked against its process */
};

struct gpurec {
	char lib[PATH_MAX];
	char dir[64];
	int dirfd;
	char opts[256];
	bool workload, no_driver, foreign_injection, usdt;
	int usdt_err;
	struct gfile *files;
	size_t nr_files, cap_files;
	uint64_t *bpf_launches; /* (pid << 32 | corr) of the launches the BPF sampler saw:
				   open addressing, 0 empty */
	size_t cap_bl, nr_bl;
	char **warned; /* warnings said once */
	size_t nr_warned;
	/* what was merged */
	uint64_t kernels, memops, launches, launch_stacks, bpf_stacks, pcs_samples, cubins, procs;
	uint64_t dropped;
	/* (pid, context, index) of the stall reasons whose samples are a
	 * subset of another's (prof_gpu_stall_is_subset), seen in earlier
	 * flushes too: a few per context */
	struct subset_stall {
		uint32_t pid, context, index;
	} *subsets;
	size_t nr_subsets;
};

static bool exists(const char *p)
{
	struct stat st;

	return !stat(p, &st);
}

/* libztcupti.so: $ZT_CUPTI_LIB, next to the zt binary (the build tree),
 * or in ../lib/zt beside it (make install). */
static int find_lib(struct gpurec *g)
{
	char exe[PATH_MAX], cand[PATH_MAX + 32], *slash;
	const char *env = getenv("ZT_CUPTI_LIB");
	ssize_t n;

	if (env && *env) {
		if (!realpath(env, g->lib)) {
			zt_error("--gpu: ZT_CUPTI_LIB names '%s': %s", env, strerror(errno));
			return -1;
		}
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	snprintf(cand, sizeof(cand), "%s/libztcupti.so", exe);
	if (!exists(cand))
		snprintf(cand, sizeof(cand), "%s/../lib/zt/libztcupti.so", exe);
	if (!exists(cand) || !realpath(cand, g->lib)) {
		zt_error("--gpu: this zt was built without its GPU library (libztcupti.so is not "
			 "next to it nor in ../lib/zt): CUDA's CUPTI was not found when zt was "
			 "built; install the CUDA toolkit and rebuild (make CUDA_HOME=/usr/local/cuda)");
		return -1;
	}
	return 0;
}

/* --gpu-opts: key=N pairs of the keys below, bounded (cupti/wire.h) */
static int check_extra(const char *s)
{
	static const char *const keys[] = {"pcs_hwbuf_mb", "pcs_scratch_mb", "pcs_sleep_ms",
					   "mem_mb", "flush_ms"};
	const char *p = s;

	if (strlen(s) > 160)
		return -1;
	while (*p) {
		size_t kn = strcspn(p, "="), vn, i;

		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strlen(keys[i]) == kn && !strncmp(p, keys[i], kn))
				break;
		if (i == sizeof(keys) / sizeof(keys[0]) || p[kn] != '=')
			return -1;
		p += kn + 1;
		vn = strspn(p, "0123456789");
		if (!vn || vn > 6 || (p[vn] && p[vn] != ','))
			return -1;
		p += vn;
		if (*p == ',' && !*++p)
			return -1;
	}
	return 0;
}

int gpurec_check(const struct gpurec_opts *o)
{
	if (o->extra && check_extra(o->extra)) {
		zt_error("--gpu-opts '%s': give key=N[,key=N...] with the keys pcs_hwbuf_mb, "
			 "pcs_scratch_mb, pcs_sleep_ms, mem_mb and flush_ms (see zt-record(1))",
			 o->extra);
		return -1;
	}
	if (o->pcs && strcmp(o->pcs, "continuous") && strcmp(o->pcs, "serialized") &&
	    strcmp(o->pcs, "off")) {
		zt_error("unknown --gpu-pcs mode '%s': use continuous, serialized or off", o->pcs);
		return -1;
	}
	if (o->pcs_period && (o->pcs_period < 5 || o->pcs_period > 31)) {
		zt_error("--gpu-pcs-period %d: give 5 to 31 (a period of 2^N GPU cycles)",
			 o->pcs_period);
		return -1;
	}
	if (o->stack_rate < 0 || o->stack_rate > 1000000) {
		zt_error("--gpu-stack-rate %d: give 1 to 1000000 launch stacks a second", o->stack_rate);
		return -1;
	}
	if (o->stacks && strcmp(o->stacks, "usdt") && strcmp(o->stacks, "unwind") &&
	    strcmp(o->stacks, "off")) {
		zt_error("unknown launch stack mode '%s': use usdt, unwind or off", o->stacks);
		return -1;
	}
	return 0;
}

int gpurec_new(const struct gpurec_opts *o, struct gpurec **out)
{
	struct gpurec *g;
	const char *inj = getenv("CUDA_INJECTION64_PATH");
	size_t n = 0;

	*out = NULL;
	if (gpurec_check(o))
		return -1;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -1;
	g->dirfd = -1;
	g->workload = o->workload;
	if (find_lib(g))
		goto fail;
	if (inj && *inj) {
		char real[PATH_MAX];

		if (!realpath(inj, real) || strcmp(real, g->lib)) {
			g->foreign_injection = true;
			zt_warn("--gpu: CUDA_INJECTION64_PATH is already set to '%s': zt keeps it, "
				"so CUDA programs load that library, not zt's, and zt records their "
				"CPU side only (unset it to record the GPU side)", inj);
		}
	}
	if (!exists("/proc/driver/nvidia/version") && !exists("/dev/nvidiactl")) {
		g->no_driver = true;
		zt_warn("--gpu: no NVIDIA GPU driver found (no /proc/driver/nvidia, no "
			"/dev/nvidiactl): CUDA programs cannot use a GPU here, so zt records "
			"their CPU side");
	}
	/* Every CUDA process writes its own file here, as its own user: the
	 * directory is writable by all, sticky, and not listable by others
	 * (1733); zt checks each file's owner against its process. */
	snprintf(g->dir, sizeof(g->dir), "/tmp/zt-gpu.XXXXXX");
	if (!mkdtemp(g->dir)) {
		zt_error("--gpu: cannot make a directory in /tmp for the GPU records: %s",
			 strerror(errno));
		g->dir[0] = 0;
		goto fail;
	}
	if (chmod(g->dir, 01733) ||
	    (g->dirfd = open(g->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		zt_error("--gpu: cannot prepare '%s': %s", g->dir, strerror(errno));
		goto fail;
	}
	n += (size_t)snprintf(g->opts + n, sizeof(g->opts) - n, "pcs=%s",
			      o->pcs ? o->pcs : "continuous");
	if (o->pcs_period)
		n += (size_t)snprintf(g->opts + n, sizeof(g->opts) - n, ",pcs_period=%d",
				      o->pcs_period);
	if (o->stack_rate)
		n += (size_t)snprintf(g->opts + n, sizeof(g->opts) - n, ",stack_rate=%d",
				      o->stack_rate);
	if (o->stacks)
		n += (size_t)snprintf(g->opts + n, sizeof(g->opts) - n, ",stacks=%s", o->stacks);
	if (o->extra && *o->extra)
		n += (size_t)snprintf(g->opts + n, sizeof(g->opts) - n, ",%s", o->extra);
	if (o->verbose)
		snprintf(g->opts + n, sizeof(g->opts) - n, ",verbose=1");
	*out = g;
	return 0;
fail:
	gpurec_free(g);
	return -1;
}

void gpurec_free(struct gpurec *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nr_files; i++) {
		ztgpu_reader_free(g->files[i].rd);
		if (g->dirfd >= 0)
			unlinkat(g->dirfd, g->files[i].name, 0);
		free(g->files[i].name);
	}
	free(g->files);
	if (g->dirfd >= 0) {
		/* files that were never read (more than MAX_FILES, or refused) */
		int fd = dup(g->dirfd);
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		struct dirent *de;

		if (d)
			rewinddir(d); /* the offset is shared with every earlier scan */
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.')
				unlinkat(g->dirfd, de->d_name, 0);
		if (d)
			closedir(d);
		else if (fd >= 0)
			close(fd);
		close(g->dirfd);
	}
	if (g->dir[0])
		rmdir(g->dir);
	for (size_t i = 0; i < g->nr_warned; i++)
		free(g->warned[i]);
	free(g->warned);
	free(g->bpf_launches);
	free(g->subsets);
	free(g);
}

const char *gpurec_lib(const struct gpurec *g)
{
	return g->lib;
}

const char *gpurec_dir(const struct gpurec *g)
{
	return g->dir;
}

void gpurec_usdt(struct gpurec *g, int err)
{
	g->usdt = !err;
	g->usdt_err = err;
	if (err)
		zt_warn("--gpu: cannot attach to the launch probe of '%s' (%s): launch stacks "
			"are taken inside the CUDA processes instead", g->lib, strerror(-err));
}

void gpurec_export(struct gpurec *g)
{
	if (g->workload) {
		if (!g->foreign_injection)
			setenv("CUDA_INJECTION64_PATH", g->lib, 1);
		setenv(ZG_ENV_DIR, g->dir, 1);
		setenv(ZG_ENV_OPTS, g->opts, 1);
		return;
	}
	/* -a, -p: only programs started with these while zt records are seen */
	zt_warn("--gpu: to record the GPU side of CUDA programs, start them while zt "
		"records with (processes already running cannot be injected):\n"
		"  export CUDA_INJECTION64_PATH=%s %s=%s %s=%s",
		g->lib, ZG_ENV_DIR, g->dir, ZG_ENV_OPTS, g->opts);
}

/* ---- launches the BPF sampler saw ---------------------------------------- */

static int bl_add(struct gpurec *g, uint64_t key)
{
	size_t i;

	if (!key)
		key = 1; /* pid 0, corr 0: no launch has it */
	if (2 * (g->nr_bl + 1) > g->cap_bl) {
		size_t cap = g->cap_bl ? 2 * g->cap_bl : 1024;
		uint64_t *t = calloc(cap, sizeof(*t)), *old = g->bpf_launches;

		if (!t)
			return -ENOMEM;
		for (i = 0; i < g->cap_bl; i++) {
			size_t j;

			if (!old[i])
				continue;
			for (j = zt_hash_mix(0x9e3779b97f4a7c15ull, old[i]) & (cap - 1); t[j]; j = (j + 1) & (cap - 1))
				;
			t[j] = old[i];
		}
		free(old);
		g->bpf_launches = t;
		g->cap_bl = cap;
	}
	for (i = zt_hash_mix(0x9e3779b97f4a7c15ull, key) & (g->cap_bl - 1); g->bpf_launches[i]; i = (i + 1) & (g->cap_bl - 1))
		if (g->bpf_launches[i] == key)
			return 0;
	g->bpf_launches[i] = key;
	g->nr_bl++;
	return 0;
}

static bool bl_has(const struct gpurec *g, uint64_t key)
{
	if (!key)
		key = 1;
	if (!g->cap_bl)
		return false;
	for (size_t i = zt_hash_mix(0x9e3779b97f4a7c15ull, key) & (g->cap_bl - 1); g->bpf_launches[i];
	     i = (i + 1) & (g->cap_bl - 1))
		if (g->bpf_launches[i] == key)
			return true;
	return false;
}

void gpurec_launch(struct gpurec *g, struct ztdata_writer *w, uint64_t ts, uint32_t pid,
		   uint32_t tid, uint64_t arg, const uint64_t *ips, unsigned nu)
{
	struct prof_gpu_launch l = {
		.ts = ts, .pid = pid, .tid = tid, .corr = ZT_LAUNCH_CORR(arg),
		.cbid = ZT_LAUNCH_CBID(arg), .domain = ZT_LAUNCH_DOMAIN(arg),
		.flags = PROF_GPU_L_STACK | PROF_GPU_L_USDT, .stack = PROF_GPU_NO_STACK,
	};

	if (nu > ZT_MAX_FRAMES)
		nu = ZT_MAX_FRAMES;
	if (ztdata_write_gpu_launch(w, &l, ips, 0, nu))
		return;
	bl_add(g, (uint64_t)pid << 32 | l.corr);
	g->bpf_stacks++;
}

/* ---- the processes' files ------------------------------------------------- */

static void warn_once(struct gpurec *g, uint32_t pid, const char *what)
{
	char **t;

	for (size_t i = 0; i < g->nr_warned; i++)
		if (!strcmp(g->warned[i], what))
			return;
	t = realloc(g->warned, (g->nr_warned + 1) * sizeof(*t));
	if (!t)
		return;
	g->warned = t;
	g->warned[g->nr_warned] = strdup(what);
	if (!g->warned[g->nr_warned])
		return;
	g->nr_warned++;
	zt_warn("GPU, process %u: %s", pid, what);
}

/* A file's owner must be root or the user its process runs as: any user
 * can write into the directory, not on another's behalf. */
static bool owner_ok(uint32_t pid, uint32_t uid)
{
	char p[32];
	struct stat st;

	if (uid == 0)
		return true;
	snprintf(p, sizeof(p), "/proc/%u", pid);
	if (stat(p, &st))
		return true; /* gone: nothing left to check it against */
	return st.st_uid == uid;
}

static void open_new_files(struct gpurec *g)
{
	int fd = dup(g->dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	/* from the start every time: the dup shares dirfd's offset, which the
	 * last scan left at the end, and a file created since (a CUDA process
	 * that started after the first poll, as PyTorch after its imports) is
	 * not always past it: on ext4 and tmpfs it was never seen again */
	rewinddir(d);
	while ((de = readdir(d))) {
		struct gfile *f;
		char msg[256];
		size_t len = strlen(de->d_name), i;

		if (len < 8 || strncmp(de->d_name, "gpu-", 4) || strcmp(de->d_name + len - 3, ".zg"))
			continue;
		for (i = 0; i < g->nr_files; i++)
			if (!strcmp(g->files[i].name, de->d_name))
				break;
		if (i < g->nr_files || g->nr_files >= MAX_FILES)
			continue;
		if (g->nr_files == g->cap_files) {
			size_t cap = g->cap_files ? 2 * g->cap_files : 16;
			struct gfile *t = realloc(g->files, cap * sizeof(*t));

			if (!t)
				break;
			g->files = t;
			g->cap_files = cap;
		}
		f = &g->files[g->nr_files];
		f->name = strdup(de->d_name);
		f->rd = NULL;
		if (!f->name)
			break;
		f->checked = false;
		g->nr_files++;
		if (ztgpu_reader_open(g->dirfd, f->name, &f->rd, msg, sizeof(msg)))
			zt_warn("GPU records in '%s/%s' not read: %s", g->dir, f->name, msg);
	}
	closedir(d);
}

/* Drop the library's records of launches whose stack the BPF sampler
 * already wrote (the probe fired for them). */
static void drop_bpf_seen(struct gpurec *g, struct prof_gpu *t)
{
	size_t k = 0;

	for (size_t i = 0; i < t->nr_launches; i++) {
		const struct prof_gpu_launch *l = &t->launches[i];

		if ((l->flags & PROF_GPU_L_USDT) && !(l->flags & PROF_GPU_L_STACK) &&
		    bl_has(g, (uint64_t)l->pid << 32 | l->corr))
			continue;
		t->launches[k++] = *l;
	}
	t->nr_launches = k;
}

static bool subset_stall(const struct gpurec *g, uint32_t pid, uint32_t context, uint32_t index)
{
	for (size_t i = 0; i < g->nr_subsets; i++)
		if (g->subsets[i].pid == pid && g->subsets[i].context == context &&
		    g->subsets[i].index == index)
			return true;
	return false;
}

static void tally(struct gpurec *g, const struct prof_gpu *t)
{
	g->kernels += t->nr_kernels;
	g->memops += t->nr_memops;
	/* the launch calls: a driver launch inside a runtime one (nested) is
	 * the same launch (the H200's PyTorch loop: 64560 records for 34178
	 * kernels, said as launches) */
	for (size_t i = 0; i < t->nr_launches; i++)
		if (!(t->launches[i].flags & PROF_GPU_L_NESTED)) {
			g->launches++;
			g->launch_stacks += t->launches[i].stack != PROF_GPU_NO_STACK;
		}
	/* (a reason table is bounded by the reader: 4096 per context) */
	for (size_t i = 0; i < t->nr_stalls; i++) {
		const struct prof_gpu_stall *s = &t->stalls[i];
		struct subset_stall *n;

		if (!prof_gpu_stall_name_is_subset(prof_gpu_str(t, s->name)) ||
		    subset_stall(g, s->pid, s->context, s->index) || g->nr_subsets >= 4096)
			continue;
		n = realloc(g->subsets, (g->nr_subsets + 1) * sizeof(*n));
		if (!n)
			break; /* the summary line counts those samples: no harm */
		g->subsets = n;
		g->subsets[g->nr_subsets++] = (struct subset_stall){s->pid, s->context, s->index};
	}
	for (size_t i = 0; i < t->nr_pcs; i++)
		if (!subset_stall(g, t->pcs[i].pid, t->pcs[i].context, t->pcs[i].stall))
			g->pcs_samples += t->pcs[i].samples;
	g->cubins += t->nr_cubins;
	for (size_t i = 0; i < t->nr_infos; i++)
		if (!strcmp(prof_gpu_str(t, t->infos[i].key), "warning"))
			warn_once(g, t->infos[i].pid, prof_gpu_str(t, t->infos[i].value));
	for (size_t i = 0; i < t->nr_counters; i++)
		if (t->counters[i].dropped_records || t->counters[i].pc_dropped_samples ||
		    t->counters[i].mem_dropped)
			g->dropped = 1;
}

int gpurec_poll(struct gpurec *g, struct ztdata_writer *w)
{
	int err = 0;

	open_new_files(g);
	for (size_t i = 0; i < g->nr_files && !err; i++) {
		struct gfile *f = &g->files[i];
		struct prof_gpu *t;
		char msg[256] = "";
		int r = 0;

		if (!f->rd)
			continue;
		t = prof_gpu_new();
		if (!t)
			return -ENOMEM;
		/* at most 64 MiB of frames a call: a few calls catch up with a
		 * busy process, the rest waits for the next poll */
		for (int k = 0; k < 4; k++) {
			r = ztgpu_reader_read(f->rd, t, msg, sizeof(msg));
			if (r <= 0)
				break;
		}
		if (!f->checked && ztgpu_reader_pid(f->rd)) {
			uint32_t pid = ztgpu_reader_pid(f->rd), uid = ztgpu_reader_uid(f->rd);

			if (!owner_ok(pid, uid)) {
				zt_warn("GPU records in '%s/%s' not read: the file's owner (uid %u) "
					"is not process %u's user", g->dir, f->name, uid, pid);
				prof_gpu_free(t);
				ztgpu_reader_free(f->rd);
				f->rd = NULL;
				continue;
			}
			f->checked = true;
			g->procs++;
		}
		if (r < 0) {
			zt_warn("GPU records of process %u ('%s/%s'): %s; the records before it are "
				"kept", ztgpu_reader_pid(f->rd), g->dir, f->name,
				msg[0] ? msg : strerror(-r));
		}
		drop_bpf_seen(g, t);
		tally(g, t);
		err = ztdata_write_gpu(w, t, ztgpu_reader_stacks(f->rd));
		prof_gpu_free(t);
		if (r < 0) {
			ztgpu_reader_free(f->rd);
			f->rd = NULL;
		}
	}
	return err;
}

void gpurec_summary(const struct gpurec *g)
{
	if (!g->procs) {
		if (g->foreign_injection)
			return;
		if (g->no_driver)
			zt_warn("--gpu: no GPU records: no GPU was found (no NVIDIA driver), so no CUDA "
				"program loaded zt's GPU library; the CPU side is recorded");
		else
			zt_warn("--gpu: no CUDA process reported GPU activity%s",
				g->workload ? "" : " (programs must be started with the variables "
						   "above while zt records)");
		return;
	}
	zt_warn("GPU: %llu process%s, %llu kernels, %llu launches (%llu with stacks), %llu memory "
		"copies and sets, %llu PC samples, %llu cubins%s",
		(unsigned long long)g->procs, g->procs == 1 ? "" : "es",
		(unsigned long long)g->kernels, (unsigned long long)(g->launches + g->bpf_stacks),
		(unsigned long long)(g->launch_stacks + g->bpf_stacks),
		(unsigned long long)g->memops, (unsigned long long)g->pcs_samples,
		(unsigned long long)g->cubins, g->dropped ? " (some records were dropped)" : "");
}
