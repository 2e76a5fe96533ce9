/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A histogram of stack frames by sort keys (perf's hists): each entry gets
 * Self (samples whose leaf frame it is) and Children (samples with it
 * anywhere on the stack, once per sample), as weights (periods) and
 * sample counts. Independent of the symbolizer: frames come in as ids of
 * strings interned here.
 */
#ifndef ZT_HIST_H
#define ZT_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/callchain.h"
#include "libprof/htab.h"
#include "libprof/strtab.h"

enum hist_key {
	HIST_KEY_COMM, /* thread name */
	HIST_KEY_PID,  /* process id, "tgid" (shown with the name: Tgid:Command) */
	HIST_KEY_DSO,  /* module */
	HIST_KEY_SYM,  /* function, with its kernel/user level; as perf, one function (dso, addr)
			  is one entry even when names are equal (overloads) */
	HIST_KEY_SRCLINE, /* file:line of the frame's address (perf's srcline) */
	HIST_KEY_SYMQ, /* how well the frame resolved: full, basic, none */
	HIST_KEY_TID,  /* thread id: perf's "pid" key, also "tid" (shown as perf's Pid:Command) */
	HIST_KEY_CPU,  /* the CPU the sample was taken on */
	HIST_KEY_PARENT, /* perf's parent: the innermost function of the sample's stack that
			    matches a pattern (hist_frame.parent), or "[other]" */
};
#define HIST_MAX_KEYS 9

/* One frame of a sample: string ids from hist_intern(). */
struct hist_frame {
	uint32_t comm, dso, sym;
	uint32_t srcline; /* string id */
	uint32_t parent;  /* string id of the sample's parent (HIST_KEY_PARENT) */
	uint8_t symq;     /* enum symq of the symbolizer: 0 none, 1 basic, 2 full */
	uint32_t pid, tid, cpu; /* of the sample */
	uint8_t kernel;  /* a kernel frame: [k] rather than [.] */
	uint8_t inlined; /* a function inlined into its caller (sym ends in " (inlined)") */
	uint8_t unmapped; /* an address in no mapping: sym is "0x7f12..." (perf's chain
			     name), the entry shows "0x00007f12..." as perf's does */
	uint8_t outside; /* the sample's own frame, outside its call chain (the first
			    frames only: perf's --max-stack in caller order keeps the
			    outermost frames as the chain, the sample's own as its entry) */
	uint64_t addr;   /* the function's start (the address when unresolved): orders
			    chain siblings of equal weight as perf does */
	uint64_t first;	 /* the time of the sample (perf reads samples in time order) ... */
	uint32_t first_tid; /* ... and its thread: an entry keeps its first sample's
			       (perf's hist_entry.thread, which ties of Children look at) */
};

struct hist_entry {
	struct hist_frame f;  /* fields that are not sort keys keep the first value seen */
	uint64_t self, children;         /* weights */
	uint64_t self_nr, children_nr;   /* samples */
	uint32_t depth; /* perf's callchain max_depth: the most frames of a chain from the
			   entry on in chain order (the whole chain for its own samples) */
	uint32_t chain; /* root of its call-chain tree in hist.cc, CC_NONE without call chains */
	uint64_t last;  /* private: the last sample counted in children */
};

/* Call chains kept per entry (perf report -g): none, or paths in either order. */
enum hist_chain {
	HIST_CHAIN_NONE,
	HIST_CHAIN_CALLER, /* outermost caller first (perf's default with --children) */
	HIST_CHAIN_CALLEE, /* the entry's own frame first, then its callers (perf's default without) */
};

struct hist_opts {
	int children;          /* count Children, and give every entry on a stack a chain */
	enum hist_chain chain; /* keep call chains, in this order */
	int lazy_chains;       /* chains only for the entries hist_want_chains() picks, added
				  by hist_add_chains() in a second pass over the samples */
};

struct hist {
	enum hist_key keys[HIST_MAX_KEYS];
	unsigned nr_keys;
	struct hist_entry *entries;
	size_t nr_entries, cap_entries;
	struct zt_htab ehash; /* frame -> entry index */
	struct zt_strtab strs; /* interned strings */
	uint64_t total, total_nr; /* weight and count of every sample added */
	uint64_t serial;
	const struct hist_entry **sorted; /* from hist_sort() */
	struct hist_opts opts;
	struct callchains cc; /* every entry's chain tree */
	uint64_t *ckeys, *corders; /* scratch: a sample's chain keys and their order values */
	size_t ckeys_cap, corders_cap;
	uint32_t *cidx;       /* scratch: their entries */
	size_t cidx_cap;
	/* perf's --group: the Self weights of the other events' entries alike,
	 * grp[i * grp_nr + j] for entry i and the event after the first j
	 * (borrowed; NULL: none). An entry with Self in any is shown, and
	 * entries of equal Self go by them in turn, as perf's __hpp__sort(). */
	const uint64_t *grp;
	unsigned grp_nr;
	/* The name the pid and tgid keys show (NULL, or it answers NULL: the
	 * entry's comm): as perf's, the thread's latest (for tgid its leader's),
	 * not the one its first sample had. Kept by hist_reset(). */
	const char *(*thread_name)(const void *ctx, uint32_t pid, uint32_t tid);
	const void *thread_ctx;
};

/* The key named name: "comm", "pid" (perf's: the thread; also "tid",
 * "thread"), "tgid" (the process), "dso", "sym" ("symbol"), "srcline",
 * "cpu", "symq". 0 or -EINVAL. */
int hist_key_parse(const char *name, enum hist_key *key);
const char *hist_key_name(enum hist_key key);

/* keys: the sort keys in column order (duplicates are dropped); nr_keys 0
 * means perf's default comm,dso,sym. Returns 0 or -EINVAL. */
int hist_init(struct hist *h, const enum hist_key *keys, unsigned nr_keys);
/* The same with options (o NULL: children counted, no call chains). */
int hist_init_opts(struct hist *h, const enum hist_key *keys, unsigned nr_keys,
		   const struct hist_opts *o);
void hist_release(struct hist *h);
/* Empty h for new keys and options, keeping its interned strings (their
 * ids stay valid). 0 or -EINVAL. */
int hist_reset(struct hist *h, const enum hist_key *keys, unsigned nr_keys,
	       const struct hist_opts *o);

/* Intern a string (copied): equal strings get the same id. 0 or -ENOMEM. */
int hist_intern(struct hist *h, const char *s, uint32_t *id);
/* Intern a printable copy of text from a profiled process (prof_sanitize():
 * control characters become '?', at most 1023 bytes kept). 0 or -ENOMEM. */
int hist_intern_clean(struct hist *h, const char *s, uint32_t *id);
/* The string of an id (borrowed until hist_release()). */
const char *hist_str(const struct hist *h, uint32_t id);
/* The thread name of e's key k (HIST_KEY_PID or HIST_KEY_TID): thread_name's
 * answer made printable in buf, or e's comm. */
const char *hist_thread_name(const struct hist *h, const struct hist_entry *e, enum hist_key k,
			     char *buf, size_t n);

/*
 * Add nr samples of total weight that share one stack: frames[0] is the
 * leaf (the first kernel frame if any, else the first user frame), then
 * callers up to the outermost frame. Self goes to frames[0]'s entry,
 * Children to each distinct entry on the stack once. n == 0 only counts
 * in the totals. Returns 0 or -ENOMEM.
 *
 * With call chains (perf's rules, with the stack in the chosen order):
 * the leaf's entry gets the whole stack; with children, every other entry
 * gets the stack from its first place on it to the end (caller order: its
 * callees down to the leaf; callee order: its callers up to the outermost
 * frame). A chain frame is keyed by (dso, sym): see hist_chain_key().
 */
int hist_add_sample(struct hist *h, const struct hist_frame *frames, size_t n,
		    uint64_t weight, uint64_t nr);

/*
 * The entries to show, best first: with children (1), by Children, then
 * callers above their callees, then Self; without (0), only entries with
 * Self, by Self; with HIST_SORT_SELF_ALL, every entry by Self; then by the
 * keys' values. Entries under percent_limit percent
 * of the total (of Children or Self, as sorted) are left out. *out is
 * borrowed until the next hist_sort() or hist_release(). 0 or -ENOMEM.
 */
#define HIST_SORT_SELF_ALL 2
int hist_sort(struct hist *h, int children, double percent_limit,
	      const struct hist_entry ***out, size_t *n);

/*
 * perf's sort list (perf_hpp_list.sorts): what entries are ordered by, in
 * turn. HIST_BY_CHILDREN is perf's overhead_children: Children, then, with
 * call chains kept (hist_opts.chain) and entries of one thread, the
 * caller above its callee (max_depth); HIST_BY_KEY + k a sort key as perf's
 * se_sort (names ascending, numbers ascending, unresolved functions and
 * "[other]" last). Entries equal in all come in the order of perf's entry
 * tree (by function address).
 */
enum hist_by {
	HIST_BY_CHILDREN,
	HIST_BY_SELF,
	HIST_BY_SAMPLES,
	HIST_BY_PERIOD,
	HIST_BY_KEY, /* + enum hist_key */
};
#define HIST_MAX_BY (HIST_MAX_KEYS + 4)
struct hist_sortspec {
	int by[HIST_MAX_BY];
	unsigned nr;
	int all;		/* every entry (Children counted), else only those with Self */
	int limit_children;	/* --percent-limit on Children, else on Self */
	const char *sym_filter; /* perf's --symbol-filter: only entries whose function's
				   name contains it (borrowed); NULL: all */
};
/* perf's sort list without -F: Children (with children), Self, the keys. */
void hist_sortspec_default(struct hist_sortspec *s, int children, const enum hist_key *keys,
			   unsigned nr_keys);
/* Whether entry e passes s's sym_filter. */
int hist_sortspec_shows(const struct hist *h, const struct hist_sortspec *s,
			const struct hist_entry *e);
int hist_sort_by(struct hist *h, const struct hist_sortspec *s, double percent_limit,
		 const struct hist_entry ***out, size_t *n);

/* Entries a and b by key k as perf's se_sort(): negative, 0 or positive
 * (names ascending, numbers ascending, no function or "[other]" last). */
int hist_key_cmp(const struct hist *h, enum hist_key k, const struct hist_entry *a,
		 const struct hist_entry *b);

/*
 * Lazy call chains (hist_opts.lazy_chains): after every sample went in
 * through hist_add_sample(), give a tree to each entry whose weight (its
 * Children with children, else its Self) is at least min_weight, then add
 * every sample again through hist_add_chains() (the same frames, weights
 * and order), which builds only those trees. Entries below a display
 * threshold cannot show a branch, so they need none. 0 or -ENOMEM.
 */
int hist_want_chains(struct hist *h, uint64_t min_weight);
int hist_add_chains(struct hist *h, const struct hist_frame *frames, size_t n,
		    uint64_t weight, uint64_t nr);
/* The same two passes without looking entries up twice: the first pass
 * writes each frame's entry index to eidx[0..n), the second reads them
 * (and skips stacks none of whose entries has a tree). */
int hist_add_sample_at(struct hist *h, const struct hist_frame *frames, size_t n,
		       uint64_t weight, uint64_t nr, uint32_t *eidx);
int hist_add_chains_at(struct hist *h, const struct hist_frame *frames, const uint32_t *eidx,
		       size_t n, uint64_t weight, uint64_t nr);

/* A key's column title as perf prints it: "Command", "Pid:Command" (the
 * thread, perf's pid key), "Tgid:Command", "Shared Object", "Symbol",
 * "Source:Line", "Symbols", "CPU". */
const char *hist_key_title(enum hist_key k);
/* Entry e's text in key k's column: the name, "tid:comm", "[k] sym" or
 * "[.] sym", "full"/"basic"/"none" (symq 2/1/0), the CPU as "%03u"; in buf
 * (of n bytes) or a borrowed string. */
const char *hist_key_text(const struct hist *h, const struct hist_entry *e, enum hist_key k,
			  char *buf, size_t n);

/* The width perf gives entry e's text of len bytes in key k's column
 * (hists__calc_col_len()): an entry without a function is as wide as
 * "[.] 0x" and an address's 16 digits, and widens the module column to the
 * 16 digits (not when a module filter is given: dso_list). */
int hist_key_width(const struct hist_entry *e, enum hist_key k, int len, int dso_list);

/* A chain node's key for a frame, and back. */
static inline uint64_t hist_chain_key(const struct hist_frame *f)
{
	return (uint64_t)f->dso << 32 | f->sym;
}
static inline uint32_t hist_chain_key_sym(uint64_t key)
{
	return (uint32_t)key;
}
static inline uint32_t hist_chain_key_dso(uint64_t key)
{
	return (uint32_t)(key >> 32);
}

#endif
