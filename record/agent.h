/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt record's agent mode (--push URL): the recording goes on without end,
 * cut into pieces every interval by the command (the file switch of
 * --switch-output: recorder_end_file(), recorder_new_file()), and each
 * piece, a complete zt.data in an anonymous file, is handed to the agent,
 * whose own thread turns it into the push image (net/push.h: opened as a
 * session, stacks unwound), queues it (net/agentq.h: bounded in bytes,
 * in memory or a spool directory, the oldest dropped first when full),
 * sends the symbols of build ids the server lacks (each build id asked
 * once per agent), and pushes the pieces in order to the zt serve, with
 * backoff while the server is away. The recorder never waits for the
 * network: agent_put() only takes a lock the thread never holds across
 * I/O.
 *
 * What happens is told through a callback (struct agent_event), for the
 * command to say; nothing here prints.
 *
 * Lifecycle: agent_new(), agent_check() (optional: the token, before the
 * recording starts), agent_start(), agent_put() for each piece,
 * agent_finish() (the last pieces pushed within a bounded wait), then
 * agent_stats() and agent_free().
 */
#ifndef ZT_RECORD_AGENT_H
#define ZT_RECORD_AGENT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct session_opts;

/* The counts of an agent, pieces and their samples. recorded = pushed +
 * dropped + refused + left, once agent_finish() has returned. */
struct agent_stats {
	uint64_t recorded_pieces, recorded_samples; /* handed over by agent_put() */
	uint64_t pushed_pieces, pushed_samples;	    /* stored on the server */
	uint64_t dropped_pieces, dropped_samples;   /* queue full, too big, unreadable */
	uint64_t refused_pieces, refused_samples;   /* 4xx answers */
	uint64_t left_pieces, left_samples;	    /* still queued when the agent stopped */
	uint64_t spooled_pieces, spooled_samples;   /* a spool's pieces from an earlier run */
	uint64_t symbols_sent;			    /* modules whose symbols were uploaded */
	size_t queued_pieces;			    /* queued now */
	uint64_t queued_bytes;
};

enum agent_event_kind {
	AGENT_PUSHED,  /* a piece stored (or already stored) on the server */
	AGENT_AWAY,    /* the server cannot be reached, or fails: pieces are kept, retried */
	AGENT_BACK,    /* the server answers again after being away */
	AGENT_DROPPED, /* pieces dropped, the oldest first, the queue being full (a burst's counts)
			*/
	AGENT_TOO_BIG, /* a piece larger than the whole queue: dropped */
	AGENT_REFUSED, /* the server refused a piece (4xx): dropped, not retried */
	AGENT_FATAL,   /* the server refused the token before any push: the agent stops */
	AGENT_BAD_PIECE, /* a piece could not be read back or written out: dropped */
	AGENT_SYMBOLS,	 /* the symbols of a module: sent, or why not (sent: the push_sent) */
};

struct push_sent;
struct push_module;

struct agent_event {
	enum agent_event_kind kind;
	const char *url; /* the server */
	/* PUSHED, REFUSED, TOO_BIG, BAD_PIECE: the piece */
	uint64_t seq, samples, t_start, t_end; /* t_*: the recording's clock (ns) */
	size_t bytes;
	const char *id; /* PUSHED: the profile's id on the server */
	int stored;	/* PUSHED: new on the server (else it had it already) */
	/* AWAY, REFUSED, FATAL, BAD_PIECE: the HTTP status (0: none came) and why */
	long status;
	const char *why;
	/* AWAY: the delay before the next try (ms); BACK: how long it was away */
	uint64_t delay_ms, away_ms;
	/* DROPPED: what went since the last such event */
	uint64_t dropped_pieces, dropped_samples;
	bool away; /* ... while the server was away (else it was too slow) */
	/* DROPPED, AWAY: what the queue holds now, and its bound */
	size_t queued_pieces;
	uint64_t queued_bytes, queue_bytes;
	/* SYMBOLS: the module (NULL: the request for missing symbols was
	 * refused, sent->why says why; none are sent) */
	const struct push_module *mod;
	const struct push_sent *sent;
	struct agent_stats st; /* the counts after it */
};

struct agent_opts {
	const char *url;   /* the zt serve (copied) */
	const char *token; /* its push token, or NULL (copied, wiped at agent_free()) */
	/* the CA certificates of an https server (a PEM file, a directory),
	 * or NULL: net/client.h's default */
	const char *cainfo, *capath;
	const char *const *labels; /* "key=value" each, checked by the caller; borrowed */
	size_t nr_labels;
	unsigned interval_ms; /* the pieces' length: the cap on a retry's delay follows it */
	uint64_t queue_bytes; /* the queue's bound (bytes of pieces held) */
	int spool_fd;	      /* agentq_open_spool()'s descriptor (the agent's from
				 agent_new() on, even when it fails), or -1: in memory */
	const struct session_opts *so; /* how pieces are opened (borrowed): symbol sources
					  for --call-graph dwarf and for the uploads */
	bool no_symbols;	       /* send no symbols */
	/* told what happens, from the agent's thread (or the caller's, in
	 * agent_new() and agent_put()); must not call back into the agent */
	void (*on_event)(void *ctx, const struct agent_event *ev);
	void *ctx;
};

struct agent;

/*
 * An agent for o (its strings copied where said); its queue loaded from
 * the spool (a previous run's pieces, told in agent_stats()). Returns 0,
 * or a negative errno with msg saying why (-EINVAL: a bad URL; -ENOMEM;
 * reading the spool).
 */
int agent_new(const struct agent_opts *o, struct agent **out, char *msg, size_t msglen);
void agent_free(struct agent *a); /* accepts NULL; after agent_finish() when started */

/*
 * Ask the server once (no retry) whether it takes this agent's token,
 * before the recording starts: 0 (yes), -EACCES (refused: *status is
 * the answer's, 401 or 403 or another 4xx, msg the server's reason),
 * -EAGAIN (it answered a 5xx or 429), or zt_http_request()'s error when it
 * cannot be reached (msg says why; the agent goes on and keeps its pieces
 * until it can).
 */
int agent_check(struct agent *a, long *status, char *msg, size_t msglen);

/* Start the agent's thread. 0, or a negative errno. */
int agent_start(struct agent *a);

/*
 * A finished piece: fd, a complete zt.data (an anonymous file, the
 * agent's from here on, even when it fails), recorded from t_start to
 * t_end with samples samples. Never waits for the network. 0, or -ENOMEM
 * (the piece is dropped and counted).
 */
int agent_put(struct agent *a, int fd, size_t bytes, uint64_t samples, uint64_t t_start,
	      uint64_t t_end);

/* Whether the server refused the token (AGENT_FATAL): the recording should stop. */
bool agent_fatal(struct agent *a);

/*
 * No more pieces: the ones handed over are read and pushed, trying for
 * up to wait_ms, or until *cut is set (a second Ctrl-C; cut may be NULL;
 * looked at every 100 ms); then what is left stays in the spool, or is
 * lost from memory, and is counted as left, and the thread ends. A
 * request under way at the deadline ends first (its timeouts bound it).
 */
void agent_finish(struct agent *a, unsigned wait_ms, const volatile sig_atomic_t *cut);

void agent_stats(struct agent *a, struct agent_stats *st);

#endif
