/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The core profile model: what a recording holds, independent of the file
 * it came from. Readers (zt.data, perf.data) fill it; report, script and the
 * writer consume it. Times are CLOCK_MONOTONIC nanoseconds.
 *
 * Ownership: a struct profile owns every string, array and blob added to it
 * (add functions copy their input). Pointers returned by lookups are borrowed
 * and stay valid until the next add of the same kind or profile_release().
 */
#ifndef ZT_PROFILE_H
#define ZT_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "libprof/htab.h"

struct prof_gpu;

#define ZT_BUILD_ID_MAX 20
#define ZT_COMM_LEN 16
#define ZT_MAX_FRAMES 512 /* per part (kernel or user) of one stack */
#define ZT_PID_KERNEL UINT32_MAX /* mappings of the kernel itself */

struct prof_build_id {
	uint8_t len; /* 0: unknown */
	uint8_t data[ZT_BUILD_ID_MAX];
};

enum prof_task_kind {
	PROF_TASK_COMM = 1, /* a thread was (re)named: prctl, or seen at start */
	PROF_TASK_EXEC = 2, /* pid exec'd: comm is the new name; older maps are gone */
	PROF_TASK_FORK = 3, /* pid/tid created by ppid/ptid (a thread when pid == ppid) */
	PROF_TASK_EXIT = 4, /* pid/tid exited */
};

struct prof_task {
	uint64_t ts;
	uint32_t kind;
	uint32_t pid, tid;
	uint32_t ppid, ptid; /* FORK and EXIT only */
	char comm[ZT_COMM_LEN]; /* COMM and EXEC only, NUL-terminated */
};

/* An executable mapping appeared in process pid. */
struct prof_mmap {
	uint64_t ts;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t prot, flags;
	struct prof_build_id build_id;
	char *path; /* owned by the profile */
};

/* The file offset address addr of mapping m holds (the kernel maps file
 * offset pgoff at start): a module's addresses are keyed by it. It is not
 * an ELF virtual address: symmod_seg_vaddr() turns it into one through
 * the file's load segments (their p_offset and p_vaddr differ by other
 * than a page multiple with lld and others). */
static inline uint64_t prof_mmap_offset(const struct prof_mmap *m, uint64_t addr)
{
	return addr - m->start + m->pgoff;
}

/* Whether a mapping's path is anonymous memory (where JIT code lives,
 * named by perf maps and jitdumps), as perf tells it: empty, "//anon",
 * "[anon...", "/dev/zero", "/anon_hugepage". A memfd is a file to perf
 * (a DSO named by its path), not JIT. */
static inline int prof_path_is_anon(const char *path)
{
	/* asked for every address resolved: a file's path ("/usr/...") is
	 * told apart by its first two characters, without a call */
	switch (path[0]) {
	case 0:
		return 1;
	case '[':
		return !strncmp(path, "[anon", 5);
	case '/':
		switch (path[1]) {
		case '/':
			return !strncmp(path, "//anon", 6);
		case 'd':
			return !strncmp(path, "/dev/zero", 9);
		case 'a':
			return !strncmp(path, "/anon_hugepage", 14);
		}
	}
	return 0;
}

struct prof_sample {
	uint64_t ts;
	uint64_t weight; /* the event period: ns for cpu-clock, or count */
	uint32_t pid, tid, cpu;
	uint32_t stack; /* index into the profile's stacks */
	uint32_t event; /* index into the profile's events (0 when it has none) */
	uint32_t raw;   /* the sample's raw record (a tracepoint's fields,
			   PERF_SAMPLE_RAW): 1 + an index into the profile's raws,
			   0 for none (it sits in what was padding: free) */
};

/* A raw record's bytes: raw_data[off .. off+len). */
struct prof_raw {
	uint64_t off;
	uint32_t len;
};
#define PROF_RAW_MAX (1u << 16) /* the kernel's PERF_SAMPLE_RAW is at most a u32
				   size in a record of at most 64 KiB */

/* An event the samples come from (zt record -e, a perf.data attr). A
 * profile without events (older recordings) has one: meta "event". */
#define PROF_EV_FREQ 1u         /* period is a frequency in Hz */
#define PROF_EV_EXCL_USER 2u    /* :k, --all-kernel */
#define PROF_EV_EXCL_KERNEL 4u  /* :u, --all-user */
struct prof_event {
	char *name;      /* owned: "cpu-clock", "page-faults:u", "sched:sched_switch" */
	uint32_t type;   /* perf_event_attr.type: 0 hardware, 1 software, 2 tracepoint */
	uint64_t config; /* perf_event_attr.config (a tracepoint's id) */
	uint64_t period; /* sample period, or with PROF_EV_FREQ the frequency */
	uint32_t flags;  /* PROF_EV_* */
};

/* A stack: ips[off .. off+nk) are kernel frames leaf first, then
 * ips[off+nk .. off+nk+nu) user frames leaf first. */
struct prof_stack {
	uint32_t off;
	uint16_t nk, nu;
};

enum prof_blob_kind {
	PROF_BLOB_KALLSYMS = 1, /* /proc/kallsyms lines (those the kernel frames need) */
	PROF_BLOB_MODULES = 2,  /* /proc/modules text */
	PROF_BLOB_PERFMAP = 3,  /* a piece of /tmp/perf-PID.map of process pid: the pieces
				   of a pid, in order, are the map */
	PROF_BLOB_KERNEL_BUILD_ID = 4, /* raw build-id bytes of vmlinux */
	PROF_BLOB_JITDUMP = 5,  /* a piece of the jit-PID.dump of process pid (perf's JIT
				   interface): the pieces, joined in order, are the file */
	/* tracepoint formats, to print raw records (zt-data(5)): */
	PROF_BLOB_TRACE_HEADER = 6, /* tracefs events/header_page text */
	PROF_BLOB_TRACE_FORMAT = 7, /* "SYSTEM", a NUL, then the text of tracefs
				       events/SYSTEM/NAME/format */
	PROF_BLOB_TRACE_PRINTK = 8, /* tracefs printk_formats text (perf.data's) */
};

/* The largest blob a recording holds (zt.data's writer refuses more), and
 * so the largest file read to become one: a perf map or jitdump is refused
 * past it (procfile.h), not stored in pieces. In MiB, for messages. */
#define PROF_BLOB_MAX_MIB 128
#define PROF_BLOB_MAX	  ((size_t)PROF_BLOB_MAX_MIB << 20)

struct prof_blob {
	uint32_t kind, pid;
	uint64_t ts;
	uint8_t *data; /* owned */
	size_t len;
};

/*
 * A user-stack snapshot of one sample (--call-graph dwarf): the user
 * registers when the sample was taken and a copy of the user stack from the
 * stack pointer up, for unwinding offline with the binaries' CFI.
 * Registers are x86-64's in DWARF numbering (the order libdw and perf's
 * unwinders use): rax rdx rcx rbx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14
 * r15 rip. Readers hand snapshots to a callback in a second pass over the
 * file (they are too large to keep: 8 KiB a sample by default).
 */
#define PROF_UREGS 17
#define PROF_UREG_BP 6
#define PROF_UREG_SP 7
#define PROF_UREG_IP 16
#define PROF_USTACK_MAX 65528 /* perf's largest --call-graph dwarf,SIZE */

struct prof_ustack {
	size_t sample;            /* index into the profile's samples, or with launch
				     into its GPU launches (p->gpu->launches) */
	uint32_t launch;          /* 1: the snapshot of a GPU launch's stack, not a sample's */
	uint32_t regs_mask;       /* bit i: regs[i] was recorded (others read as 0) */
	uint64_t regs[PROF_UREGS];
	const uint8_t *data;      /* len bytes of stack from regs[PROF_UREG_SP] up;
				     borrowed for the duration of the callback */
	size_t len;
};

/* Called once per snapshot, in sample order. A nonzero return stops the
 * pass and is returned by the reader. */
typedef int (*prof_ustack_fn)(void *arg, const struct prof_ustack *u);

/*
 * Python frames (zt record's walk of CPython's frame chain): a user
 * "address" in x86-64's non-canonical range, which no mapping covers and
 * no real address has: PROF_PY_TAG, the index of the code object in the
 * profile's pycodes (bits 28-59) and the instruction in it (the code
 * unit's index, bits 0-27; PROF_PY_NO_LASTI when unknown).
 */
#define PROF_PY_TAG 0x7000000000000000ull
#define PROF_PY_NO_LASTI 0xfffffffu
static inline int prof_is_py(uint64_t ip)
{
	return (ip >> 60) == 7;
}
static inline uint64_t prof_py_ip(uint32_t code, uint32_t lasti)
{
	return PROF_PY_TAG | (uint64_t)code << 28 | (lasti > PROF_PY_NO_LASTI ? PROF_PY_NO_LASTI : lasti);
}
static inline uint32_t prof_py_code(uint64_t ip)
{
	return (uint32_t)(ip >> 28);
}
static inline uint32_t prof_py_lasti(uint64_t ip)
{
	return (uint32_t)ip & PROF_PY_NO_LASTI;
}

/* A Python code object, read from the process's memory at record time:
 * what the report names a Python frame with. */
#define PROF_PYCODE_UNREAD 1u /* it could not be read (the names are empty) */
struct prof_pycode {
	uint64_t ts;	      /* when it was read */
	uint64_t addr;	      /* its address in the process */
	uint32_t pid;
	uint16_t minor;	      /* Python 3.minor: the line table's format */
	uint16_t flags;	      /* PROF_PYCODE_* */
	int32_t firstlineno;
	char *qualname, *filename; /* owned */
	uint8_t *linetable;	   /* co_linetable's bytes, owned */
	uint32_t linetable_len;
};

struct prof_meta {
	char *key, *value; /* owned */
};

struct profile {
	struct prof_meta *meta;
	size_t nr_meta, cap_meta;
	struct prof_task *tasks;
	size_t nr_tasks, cap_tasks;
	struct prof_mmap *mmaps;
	size_t nr_mmaps, cap_mmaps;
	struct prof_sample *samples;
	size_t nr_samples, cap_samples;
	struct prof_stack *stacks;
	size_t nr_stacks, cap_stacks;
	uint64_t *ips;
	size_t nr_ips, cap_ips;
	struct prof_blob *blobs;
	size_t nr_blobs, cap_blobs;
	struct prof_event *events; /* samples' event field indexes this */
	size_t nr_events, cap_events;
	struct prof_raw *raws;     /* samples' raw field indexes this (- 1) */
	size_t nr_raws, cap_raws;
	uint8_t *raw_bytes;        /* the raws' bytes, one after the other */
	size_t nr_raw_bytes, cap_raw_bytes;
	struct zt_htab stack_hash; /* stack -> its id */
	int hash_stale;            /* stacks were appended without it: rebuild before use */
	uint64_t lost_samples; /* samples the kernel or the sampler dropped */
	uint64_t lost_events;  /* side-band records dropped */
	struct prof_pycode *pycodes; /* Python code objects (prof_is_py() frames index it) */
	size_t nr_pycodes, cap_pycodes;
	struct prof_gpu *gpu;  /* GPU records (libprof/gpu.h), NULL when there are none;
				  owned: profile_release() frees it */
};

void profile_init(struct profile *p);
void profile_release(struct profile *p);

/* Meta data are key/value strings: "hostname", "os_release", "cmdline",
 * "event", "freq", "period", "nr_cpus", "time_start", "time_end", ...
 * Setting an existing key replaces its value. */
int profile_set_meta(struct profile *p, const char *key, const char *value);
const char *profile_get_meta(const struct profile *p, const char *key);

int profile_add_task(struct profile *p, const struct prof_task *t);
/* Copies m and m->path (NULL path is stored as ""). */
int profile_add_mmap(struct profile *p, const struct prof_mmap *m);
int profile_add_sample(struct profile *p, const struct prof_sample *s);
int profile_add_blob(struct profile *p, uint32_t kind, uint32_t pid, uint64_t ts,
		     const void *data, size_t len);
/* Copy a raw record of len (at most PROF_RAW_MAX) bytes: the value for a
 * sample's raw field in *ref. 0, -E2BIG or -ENOMEM. */
int profile_add_raw(struct profile *p, const void *data, size_t len, uint32_t *ref);
/* The raw record of sample s (its bytes in *len), or NULL when it has none. */
static inline const uint8_t *profile_sample_raw(const struct profile *p,
						const struct prof_sample *s, size_t *len)
{
	const struct prof_raw *r;

	if (!s->raw || s->raw > p->nr_raws)
		return NULL;
	r = &p->raws[s->raw - 1];
	*len = r->len;
	return p->raw_bytes + r->off;
}

/* The words of a raw record (8-byte aligned, little-endian) that may be
 * kernel code addresses (x86-64's kernel image and modules, from
 * 0xffffffff80000000): a tracepoint's function pointers (%ps fields), whose
 * symbols a recording keeps with those of its samples. fn is called for
 * each. */
#define PROF_KTEXT_LO 0xffffffff80000000ull
static inline void prof_raw_kernel_words(const uint8_t *raw, size_t len,
					 void (*fn)(void *ctx, uint64_t v), void *ctx)
{
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t v = 0;
		unsigned b;

		for (b = 0; b < 8; b++)
			v |= (uint64_t)raw[i + b] << (8 * b);
		if (v >= PROF_KTEXT_LO && v < 0xffffffffff000000ull)
			fn(ctx, v);
	}
}

/* Intern a stack (kernel frames then user frames, leaf first in each part):
 * an identical stack gets the same id. nk and nu are each at most
 * ZT_MAX_FRAMES. Returns 0 and sets *id, or a negative errno. */
/* Append a stack known to be new (a reader of stacks its writer already
 * made unique): no lookup; a duplicate would only be a second id for the
 * same frames. The same limits and returns as profile_intern_stack(). */
int profile_append_stack(struct profile *p, const uint64_t *ips, unsigned nk, unsigned nu,
			 uint32_t *id);
int profile_intern_stack(struct profile *p, const uint64_t *ips, unsigned nk, unsigned nu,
			 uint32_t *id);
/* The same for a stack of user addresses alone, of a format whose stacks
 * have no kernel part (pprof): up to 2 * ZT_MAX_FRAMES of them, the most
 * a stack of both parts has. */
int profile_intern_ustack(struct profile *p, const uint64_t *ips, unsigned nu, uint32_t *id);
static inline const uint64_t *profile_stack_ips(const struct profile *p, uint32_t id)
{
	return p->ips + p->stacks[id].off;
}

/* Whether the recording has call graphs (meta "callchain", else stacks of
 * more than one frame): perf shows Children columns only then. */
int profile_has_callchains(const struct profile *p);

/* Why the kernel unwinder's walks of user stacks ended (zt record -g with
 * the BPF sampler): meta "unwind_stops" (zt-data(5)), the values of
 * bpf/kunwind.h's ZT_UW_STOP_*. */
enum prof_uw_stop {
	PROF_UW_NONE,	     /* not walked (no user stack: a kernel thread) */
	PROF_UW_END,	     /* complete: the outermost frame, by its CFI */
	PROF_UW_FP_END,	     /* complete: a null frame pointer or return address */
	PROF_UW_NO_TABLE,    /* early: code without a table, the frame pointer led nowhere */
	PROF_UW_NOT_READY,   /* early: the table was still being built */
	PROF_UW_UNSUPPORTED, /* early: a rule the tables cannot express */
	PROF_UW_FAULT,	     /* early: the stack could not be read, or went the wrong way */
	PROF_UW_DEPTH,	     /* early: the frame limit */
	PROF_UW_NR
};
/* Its name in the meta ("end", "no_table" ...). */
const char *prof_uw_stop_name(unsigned i);
/* The counts of meta "unwind_stops" into c (unknown names ignored): 1 when
 * the recording has them, else 0 (c zeroed). */
int profile_unwind_stops(const struct profile *p, uint64_t c[PROF_UW_NR]);

/* Append a Python code object (c's strings and line table copied; NULL
 * strings stored as ""): its index in *idx (may be NULL). 0, -E2BIG (past
 * 2^32 code objects or a line table over 1 MiB) or -ENOMEM. */
#define PROF_PY_LINETABLE_MAX (1u << 20)
int profile_add_pycode(struct profile *p, const struct prof_pycode *c, uint32_t *idx);

/* Append an event (e->name copied; NULL is stored as ""): its index in
 * *idx (may be NULL). 0 or -ENOMEM. */
int profile_add_event(struct profile *p, const struct prof_event *e, uint32_t *idx);
/* The name of event idx: its table entry's, or for a profile without a
 * table, meta "event" for index 0; NULL when unknown. */
const char *profile_event_name(const struct profile *p, uint32_t idx);
/* The events' names for a message, "cpu-clock, page-faults" ("?" for one
 * without a name), cut to fit buf (size n > 0). */
void profile_event_list(const struct profile *p, char *buf, size_t n);
/* The number of events the samples may name: nr_events, or 1 without a table. */
static inline size_t profile_nr_events(const struct profile *p)
{
	return p->nr_events ? p->nr_events : 1;
}
/* Keep only the samples of event idx (in order), renumbered as event 0
 * of a table of that event alone. */
void profile_keep_event(struct profile *p, uint32_t idx);
/* The samples of event idx, in order, copied into out (room for
 * p->nr_samples; NULL: only counted). Returns how many there are (0 for
 * an idx past the table). With one event or none (profile_nr_events() 1),
 * every sample is event 0's. */
size_t profile_event_samples(const struct profile *p, uint32_t idx, struct prof_sample *out);
/* The samples' time span (what --time's percents are of): the first and
 * last sample times, 0 and 0 without samples. */
void profile_time_span(const struct profile *p, uint64_t *first, uint64_t *last);

/* The first blob of a kind (and pid, or any pid when pid == UINT32_MAX). */
const struct prof_blob *profile_find_blob(const struct profile *p, uint32_t kind, uint32_t pid);

/* Hex form of a build id into out (at least 2*ZT_BUILD_ID_MAX+1 bytes). */
char *prof_build_id_hex(const struct prof_build_id *b, char *out);
/* A build id from its n hex digits at hex (2 to 2*ZT_BUILD_ID_MAX, even).
 * 0 or -EINVAL (b unchanged). */
int prof_build_id_from_hex(const char *hex, size_t n, struct prof_build_id *b);

/* Printable copy of text from a profiled process: control characters
 * become '?'. out has size n. */
void prof_sanitize(char *out, size_t n, const char *in);

/* The name a thread is shown by: comm, or without one ":PID" (the kernel's
 * idle threads, pid 0: "swapper"), made in buf of size n. */
const char *prof_comm_or_pid(const char *comm, uint32_t pid, char *buf, size_t n);

#endif
