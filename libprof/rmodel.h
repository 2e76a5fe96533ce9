/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report model that zt report's text and TUI outputs (and zt flame)
 * share: a loaded profile resolved once per group of alike samples, then
 * filtered and aggregated into a histogram with call chains, rebuilt at
 * will with other sort keys, filters or call-chain settings (the TUI's
 * zoom and sort keys) without resolving again.
 */
#ifndef ZT_RMODEL_H
#define ZT_RMODEL_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "libprof/hist.h"
#include "libprof/profile.h"
#include "libprof/rfilter.h"
#include "libprof/rstacks.h"

struct rmodel_opts {
	enum hist_key keys[HIST_MAX_KEYS];
	unsigned nr_keys; /* 0: comm,dso,sym */
	int children;	  /* Children and Self (else Self only) */
	int sort_self; /* with children: still order by Self (perf's -F without overhead_children)
			*/
	enum hist_chain chain;
	double chain_min_pct; /* only entries of at least this share of the total get a chain
				 (none can show a branch below the display threshold); 0: all */
	int inline_frames;    /* inlined functions as frames of their own, "name (inlined)" */
	const struct rfilter *filter; /* borrowed; NULL: everything */
	unsigned max_stack;	      /* at most this many addresses of each stack (perf's
					 --max-stack; an address's inline frames with it); 0: all */
	int max_stack_outer;	      /* perf's caller order (--children's default, -g caller):
					 --max-stack keeps the outermost addresses as the chain,
					 the sample's own address as its entry */
	int hide_unresolved;	      /* perf's -U: leave out samples whose function is unresolved
					 and unresolved frames of call chains */
	const regex_t *parent;	      /* perf's -p: the parent of a sample (HIST_KEY_PARENT) is
					 the innermost function of its stack matching it */
	int exclude_other;	      /* perf's -x: hide the samples without a parent */
	const regex_t *ignore_callees; /* perf's --ignore-callees: a sample's Self goes to its
					  outermost function matching it; in callee order its
					  stack starts there, in caller order (caller_order) its
					  chain runs from there down to the leaf */
	int caller_order;	       /* perf's call-chain order is caller first */
	struct hist_sortspec sort;     /* the order of the entries (perf's sort list); nr 0:
					  Children (with children), Self, then the keys */
	int relative;		       /* perf's --percentage relative: percentages of the
					  samples the filters show, not of all */
};

/* A resolved group of samples: stack, process, thread, CPU alike. */
struct rgroup;

struct rmodel {
	const struct profile *prof;	/* borrowed: rs.prof */
	struct rstacks rs;		/* the stacks it resolved (a copy of the handle) */
	struct hist hist;		/* of the last rmodel_build() */
	struct rmodel_opts opts;	/* of the last rmodel_build() */
	uint64_t total, total_nr;	/* every sample of the event, before filters */
	uint64_t shown, shown_nr;	/* the samples the filters let through */
	uint64_t time_first, time_last; /* of the samples */
	const struct prof_sample
		*samples; /* the samples modelled: prof's, or rmodel_init_with()'s */
	size_t nr_samples;
	const char *const *trim; /* rmodel_input.trim */
	/* private */
	struct rgroup *groups;
	size_t nr_groups, cap_groups;
	size_t nr_addrs, nr_templates; /* addresses resolved, distinct frames they gave */
	void *priv;
};

typedef void (*rmodel_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* Group the samples of rs's profile and resolve every group's frames at
 * once through rs (what it names must outlive m; the caller may seal it
 * after: rstacks_seal()). progress, when not NULL, is called while frames
 * resolve. 0 or a negative errno. */
int rmodel_init(struct rmodel *m, const struct rstacks *rs, rmodel_progress_fn progress,
		void *ctx);
void rmodel_release(struct rmodel *m);

/*
 * Samples other than prof's own, for a model of something else with CPU
 * stacks (zt report --gpu: one sample per kernel, at its launch, weighing
 * its GPU time). samples[i].stack is a stack of rs's profile, or RMODEL_NO_STACK
 * (no frames but the leaf); leaf (or NULL) gives each sample a frame of rs
 * put below its stack, as its own function (a frame the caller pushed
 * with frametab_push(); its strings must outlive the model), or
 * RMODEL_NO_LEAF. samples and leaf are borrowed and must outlive m.
 */
#define RMODEL_NO_STACK UINT32_MAX
#define RMODEL_NO_LEAF	UINT32_MAX
struct rmodel_input {
	const struct prof_sample *samples;
	const uint32_t *leaf;
	size_t nr;
	/* NULL, or module-name prefixes (NULL-terminated) whose frames are
	 * left out at the inner end of each stack, up to the outermost one
	 * with what they called (the CUDA launch stacks' CUPTI callback and
	 * zt injection frames, above the API call) */
	const char *const *trim;
};
int rmodel_init_with(struct rmodel *m, const struct rstacks *rs, const struct rmodel_input *in,
		     rmodel_progress_fn progress, void *ctx);

/*
 * The model of one event's samples (prof_sample.event == ev) of rs's
 * profile with several (profile_nr_events()): rmodel_init() over a copy of them
 * that m owns; with one event, ev 0 is rmodel_init(). An event without
 * samples gives an empty model. 0 or a negative errno; m is released with
 * rmodel_release() either way.
 */
int rmodel_init_event(struct rmodel *m, const struct rstacks *rs, uint32_t ev,
		      rmodel_progress_fn progress, void *ctx);

/* (Re)build m->hist from the resolved samples with these options. The
 * entries to show come from hist_sort(&m->hist, ...). 0 or -ENOMEM. */
int rmodel_build(struct rmodel *m, const struct rmodel_opts *o);

/* The entries to show, best first: hist_sort() of m->hist in the order
 * the options ask. Borrowed until the next sort or build. 0 or -ENOMEM. */
int rmodel_sort(struct rmodel *m, double percent_limit, const struct hist_entry ***rows, size_t *n);

/* Whether entry e's own module and function are in the filter's --dso and
 * --symbols lists (a zoom into a module shows only its entries). */
int rmodel_entry_shown(const struct rmodel *m, const struct hist_entry *e);

/* The display name of a call-chain node's frame ("name" or "name (inlined)"). */
const char *rmodel_chain_name(const struct rmodel *m, const struct cc_node *n);

/* The source line where the function of a call-chain key (module and
 * name: hist_chain_key()) has most weight in the last build's samples, as
 * "file.c:42" (the file's base name) into buf. 0, -ENOENT without line
 * information, or -ENOMEM. */
int rmodel_func_line(struct rmodel *m, uint64_t key, char *buf, size_t n);

/* Source lines of the samples in entry e's function (its Self samples):
 * (file, line, weight, samples), most weight first. For annotation. */
struct rline {
	const char *file; /* borrowed from the model */
	uint32_t line;
	uint64_t weight, nr;
};
int rmodel_lines(struct rmodel *m, const struct hist_entry *e, struct rline **out, size_t *n);

#endif
