// SPDX-License-Identifier: GPL-2.0-or-later
/* zt record --push: the pieces of a recording read, queued and pushed to a zt serve by a thread. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libprof/array.h"
#include "net/agentq.h"
#include "net/client.h"
#include "net/push.h"
#include "record/agent.h"
#include "session/session.h"

#define DROP_REPORT_NS (60 * 1000000000ull) /* one drop line a minute at most */
#define RETRY_BASE_MS  1000
#define RETRY_MAX_MS   30000

/* A piece handed over, not read yet. */
struct raw {
	int fd;
	size_t bytes;
	uint64_t samples, t_start, t_end;
};

/* A module whose symbols the server has not been asked for yet. */
struct pending_mod {
	struct push_module m; /* m.path owned */
};

struct agent {
	struct agent_opts o;
	struct zt_http *h;
	char *url;

	/* shared with the caller's thread, under mu */
	pthread_mutex_t mu;
	pthread_cond_t cv;  /* the thread: a piece came, or the end */
	pthread_cond_t end; /* the caller: the thread is done */
	struct raw *inbox;
	size_t nr_in, cap_in;
	uint64_t in_bytes;
	bool stopping, done, started, fatal;
	uint64_t deadline; /* stopping: the last moment to try */
	struct agent_stats st;
	struct agentq_drop in_drop; /* pieces the inbox dropped, not said yet */
	pthread_t th;

	/* the thread's own */
	struct agentq q;
	bool contacted; /* the server answered a push (the token is good) */
	bool away;	/* the last try failed */
	int fails;	/* tries failed in a row */
	uint64_t away_since, next_try;
	struct agentq_drop rep; /* dropped and not said yet */
	uint64_t last_rep;	/* when the last drop line was said (0: none this outage) */
	uint64_t rnd;
	struct zbuf img, spooled;
	struct prof_build_id *asked; /* build ids asked for already (unsorted: a few hundred) */
	size_t nr_asked, cap_asked;
	struct pending_mod *pend;
	size_t nr_pend, cap_pend;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void tell(struct agent *a, struct agent_event *ev)
{
	ev->url = a->url;
	pthread_mutex_lock(&a->mu);
	ev->st = a->st;
	pthread_mutex_unlock(&a->mu);
	if (a->o.on_event)
		a->o.on_event(a->o.ctx, ev);
}

/* ---- symbols ------------------------------------------------------------ */

static bool same_id(const struct prof_build_id *x, const struct prof_build_id *y)
{
	return x->len == y->len && !memcmp(x->data, y->data, x->len);
}

/* The modules of a piece the server has not been asked about: pending. */
static int note_modules(struct agent *a, const struct session *ses)
{
	struct push_module *mods = NULL;
	size_t n = 0, i, k;
	int err = push_modules(session_stacks(ses), &mods, &n);

	for (i = 0; !err && i < n; i++) {
		bool known = false;

		for (k = 0; !known && k < a->nr_asked; k++)
			known = same_id(&a->asked[k], &mods[i].id);
		for (k = 0; !known && k < a->nr_pend; k++)
			known = same_id(&a->pend[k].m.id, &mods[i].id);
		if (known)
			continue;
		if (ZT_GROW(a->pend, a->cap_pend, a->nr_pend + 1)) {
			err = -ENOMEM;
			break;
		}
		a->pend[a->nr_pend].m.id = mods[i].id;
		a->pend[a->nr_pend].m.path = strdup(mods[i].path);
		if (!a->pend[a->nr_pend].m.path) {
			err = -ENOMEM;
			break;
		}
		a->nr_pend++;
	}
	free(mods);
	return err;
}

/* The first k pending modules asked: off the pending list, onto the asked. */
static void asked(struct agent *a, size_t k)
{
	size_t i;

	for (i = 0; i < k; i++) {
		if (!ZT_GROW(a->asked, a->cap_asked, a->nr_asked + 1))
			a->asked[a->nr_asked++] = a->pend[i].m.id;
		free((char *)a->pend[i].m.path);
	}
	memmove(a->pend, a->pend + k, (a->nr_pend - k) * sizeof(*a->pend));
	a->nr_pend -= k;
}

/* How a try went. */
enum outcome { GOT_THROUGH, FAILED, REFUSED };

/* A failed request: FAILED with why, the status and Retry-After kept. */
static enum outcome failed(const struct zt_http_resp *r, int err, const char *msg, long *status,
			   long *retry_after, char *why, size_t n)
{
	*status = err ? 0 : r->status;
	*retry_after = err ? -1 : r->retry_after;
	if (err)
		snprintf(why, n, "%s", msg);
	else
		push_answer_error(r, why, n);
	return FAILED;
}

/* The symbols of the pending modules: asked for, and those the server
 * lacks (or has worse) sent. GOT_THROUGH also when the server refused
 * them (said; the profile is still worth pushing), FAILED when it cannot
 * be reached (the rest stay pending), REFUSED when it refuses the token
 * before any request of this agent got through. */
static enum outcome send_symbols(struct agent *a, long *status, long *retry_after, char *why,
				 size_t whylen)
{
	struct zt_http_resp r;
	int8_t *have;
	size_t i, n = a->nr_pend;
	char msg[512];
	enum outcome ret = GOT_THROUGH;
	int err;

	if (!n)
		return GOT_THROUGH;
	have = calloc(n, sizeof(*have));
	if (!have) {
		snprintf(why, whylen, "out of memory");
		*status = 0;
		*retry_after = -1;
		return FAILED;
	}
	{
		struct push_module *mods = malloc(n * sizeof(*mods));

		if (!mods) {
			free(have);
			snprintf(why, whylen, "out of memory");
			*status = 0;
			*retry_after = -1;
			return FAILED;
		}
		for (i = 0; i < n; i++)
			mods[i] = a->pend[i].m;
		zt_http_resp_init(&r);
		err = push_missing(a->h, mods, n, have, &r, msg, sizeof(msg));
		free(mods);
	}
	if (err || zt_http_retryable(r.status)) {
		ret = failed(&r, err, msg, status, retry_after, why, whylen);
		goto out;
	}
	if ((r.status == 401 || r.status == 403) && !a->contacted) {
		/* the token, before any push: said as the pieces' refusal */
		*status = r.status;
		push_answer_error(&r, why, whylen);
		ret = REFUSED;
		goto out;
	}
	if (r.status != 200) {
		/* not asked again: the profiles still go */
		struct push_sent s = {.what = PUSH_REFUSED};
		struct agent_event ev = {.kind = AGENT_SYMBOLS, .sent = &s};

		push_answer_error(&r, s.why, sizeof(s.why));
		ev.status = r.status;
		tell(a, &ev);
		asked(a, n);
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct agent_event ev = {.kind = AGENT_SYMBOLS, .mod = &a->pend[i].m};
		struct push_sent s;

		zt_http_resp_release(&r);
		zt_http_resp_init(&r);
		err = push_send_module(a->h, a->o.so->mo, &a->pend[i].m, have[i], NULL, NULL, &s,
				       &r, msg, sizeof(msg));
		if (err == -ENOMEM || err == -EAGAIN || err) {
			if (err == -EAGAIN)
				err = 0;
			ret = failed(&r, err, msg, status, retry_after, why, whylen);
			asked(a, i); /* those before it are done */
			goto out;
		}
		ev.sent = &s;
		ev.status = r.status;
		tell(a, &ev);
		if (s.what == PUSH_SENT) {
			pthread_mutex_lock(&a->mu);
			a->st.symbols_sent++;
			pthread_mutex_unlock(&a->mu);
		}
	}
	asked(a, n);
out:
	zt_http_resp_release(&r);
	free(have);
	return ret;
}

/* ---- the pieces ----------------------------------------------------------- */

/* Count pieces gone (dropped from the queue or the inbox) for the next drop line. */
static void count_dropped(struct agent *a, const struct agentq_drop *d)
{
	if (!d->pieces)
		return;
	a->rep.pieces += d->pieces;
	a->rep.samples += d->samples;
	pthread_mutex_lock(&a->mu);
	a->st.dropped_pieces += d->pieces;
	a->st.dropped_samples += d->samples;
	pthread_mutex_unlock(&a->mu);
}

static void queue_state(struct agent *a, struct agent_event *ev)
{
	ev->queued_pieces = a->q.n;
	ev->queued_bytes = a->q.bytes;
	ev->queue_bytes = a->q.max_bytes;
}

/* The drop line: at the first drop of an outage, then at most once a
 * minute with what went since; force: now, whatever went (the end). */
static void say_drops(struct agent *a, bool force)
{
	struct agent_event ev = {.kind = AGENT_DROPPED};
	uint64_t t = now_ns();

	if (!a->rep.pieces || (!force && a->last_rep && t - a->last_rep < DROP_REPORT_NS))
		return;
	ev.dropped_pieces = a->rep.pieces;
	ev.dropped_samples = a->rep.samples;
	ev.away = a->away;
	queue_state(a, &ev);
	tell(a, &ev);
	memset(&a->rep, 0, sizeof(a->rep));
	a->last_rep = t;
}

static void drop_piece(struct agent *a, enum agent_event_kind kind, const struct raw *r,
		       uint64_t samples, const char *why)
{
	struct agent_event ev = {.kind = kind,
				 .samples = samples,
				 .t_start = r->t_start,
				 .t_end = r->t_end,
				 .bytes = r->bytes,
				 .why = why};

	tell(a, &ev);
	pthread_mutex_lock(&a->mu);
	a->st.dropped_pieces++;
	a->st.dropped_samples += samples;
	pthread_mutex_unlock(&a->mu);
}

/* A piece read back as a session (stacks unwound), turned into its push
 * image and queued; its modules noted for the symbols. */
static void take_piece(struct agent *a, struct raw *r)
{
	struct session ses;
	struct agentq_drop d;
	char path[64], why[128];
	uint64_t samples;
	int err;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", r->fd);
	if (session_open(&ses, path, a->o.so)) {
		/* the session said why */
		drop_piece(a, AGENT_BAD_PIECE, r, r->samples, "cannot read it back");
		close(r->fd);
		return;
	}
	close(r->fd);
	zbuf_reset(&a->img);
	samples = ses.prof.nr_samples;
	err = push_image(&ses.prof, &a->img);
	if (!err && !a->o.no_symbols)
		err = note_modules(a, &ses);
	session_close(&ses);
	if (err) {
		snprintf(why, sizeof(why), "cannot write its push image: %s", strerror(-err));
		drop_piece(a, AGENT_BAD_PIECE, r, samples, why);
		return;
	}
	err = agentq_add(&a->q, a->img.data, a->img.len, samples, r->t_start, r->t_end, &d);
	count_dropped(a, &d);
	if (err == -E2BIG) {
		struct raw big = *r;

		big.bytes = a->img.len;
		drop_piece(a, AGENT_TOO_BIG, &big, samples, NULL);
	} else if (err) {
		snprintf(why, sizeof(why), "cannot queue it: %s", strerror(-err));
		drop_piece(a, AGENT_BAD_PIECE, r, samples, why);
	}
	/* the image buffer is kept for the next piece, unless a large one grew it */
	if (a->img.cap > (16u << 20))
		zbuf_release(&a->img);
	say_drops(a, false);
}

/* Push the oldest queued piece (the pending symbols first). */
static enum outcome push_head(struct agent *a, long *status, long *retry_after, char *why,
			      size_t whylen)
{
	const struct agentq_item *it = agentq_head(&a->q);
	struct agent_event ev = {.kind = AGENT_PUSHED};
	struct zt_http_resp r;
	struct push_result res;
	const void *data;
	size_t len;
	char msg[512];
	enum outcome ret;
	int err;

	ret = send_symbols(a, status, retry_after, why, whylen);
	if (ret != GOT_THROUGH)
		return ret;
	ev.seq = it->seq;
	ev.samples = it->samples;
	ev.t_start = it->t_start;
	ev.t_end = it->t_end;
	ev.bytes = it->len;
	err = agentq_head_image(&a->q, &a->spooled, &data, &len);
	if (err) {
		struct raw bad = {-1, it->len, it->samples, it->t_start, it->t_end};

		snprintf(msg, sizeof(msg), "cannot read it from the spool: %s", strerror(-err));
		drop_piece(a, AGENT_BAD_PIECE, &bad, it->samples, msg);
		agentq_pop(&a->q);
		return GOT_THROUGH;
	}
	zt_http_resp_init(&r);
	err = push_profile(a->h, data, len, a->o.labels, a->o.nr_labels, &res, &r, msg,
			   sizeof(msg));
	if (a->spooled.cap > (16u << 20))
		zbuf_release(&a->spooled);
	if (!err && (r.status == 200 || r.status == 201)) {
		ev.id = res.id;
		ev.stored = res.stored;
		queue_state(a, &ev);
		ev.queued_pieces--;
		ev.queued_bytes -= it->len;
		pthread_mutex_lock(&a->mu);
		a->st.pushed_pieces++;
		a->st.pushed_samples += it->samples;
		pthread_mutex_unlock(&a->mu);
		a->contacted = true;
		tell(a, &ev);
		agentq_pop(&a->q);
		ret = GOT_THROUGH;
	} else if (err == -ENOMEM || err || zt_http_retryable(r.status)) {
		/* -EBADMSG (an answer without an id: not a zt serve?) too */
		ret = failed(&r, err, msg, status, retry_after, why, whylen);
	} else {
		ret = REFUSED;
		*status = r.status;
		push_answer_error(&r, why, whylen);
	}
	zt_http_resp_release(&r);
	return ret;
}

/* One try at the oldest piece, and what follows from it. */
static void try_push(struct agent *a)
{
	const struct agentq_item *it = agentq_head(&a->q);
	long status = 0, retry_after = -1;
	uint64_t seq = it->seq, samples = it->samples, t0 = it->t_start, t1 = it->t_end;
	size_t len = it->len;
	char why[512] = "";
	enum outcome o = push_head(a, &status, &retry_after, why, sizeof(why));
	uint64_t t = now_ns();

	if (o == FAILED) {
		struct agent_event ev = {.kind = AGENT_AWAY, .status = status, .why = why};
		unsigned cap = a->o.interval_ms < 2000 ? 2000 : a->o.interval_ms;

		if (cap > RETRY_MAX_MS)
			cap = RETRY_MAX_MS;
		a->fails++;
		a->rnd = a->rnd * 6364136223846793005ull + 1442695040888963407ull;
		ev.delay_ms =
			zt_http_backoff(RETRY_BASE_MS, cap, a->fails, retry_after, a->rnd >> 11);
		a->next_try = t + ev.delay_ms * 1000000ull;
		if (!a->away) {
			a->away = true;
			a->away_since = t;
			a->last_rep = 0; /* the first drop of this outage is said at once */
			queue_state(a, &ev);
			tell(a, &ev);
		}
		return;
	}
	if (a->away) {
		struct agent_event ev = {.kind = AGENT_BACK,
					 .away_ms = (t - a->away_since) / 1000000};

		say_drops(a, true);
		a->away = false;
		tell(a, &ev);
	}
	a->fails = 0;
	a->next_try = 0;
	if (o == REFUSED) {
		struct agent_event ev = {.kind = AGENT_REFUSED,
					 .seq = seq,
					 .samples = samples,
					 .t_start = t0,
					 .t_end = t1,
					 .bytes = len,
					 .status = status,
					 .why = why};

		if (!a->contacted && (status == 401 || status == 403)) {
			/* the token is not taken: no piece would be */
			ev.kind = AGENT_FATAL;
			tell(a, &ev);
			pthread_mutex_lock(&a->mu);
			a->fatal = true;
			pthread_mutex_unlock(&a->mu);
			return;
		}
		tell(a, &ev);
		pthread_mutex_lock(&a->mu);
		a->st.refused_pieces++;
		a->st.refused_samples += samples;
		pthread_mutex_unlock(&a->mu);
		agentq_pop(&a->q);
	}
}

/* The thread: read the pieces handed over, push the queue in order. */
static void *run(void *arg)
{
	struct agent *a = arg;

	pthread_setname_np(pthread_self(), "zt-agent");
	pthread_setname_np(pthread_self(), "zt-agent");
	pthread_mutex_lock(&a->mu);
	for (;;) {
		uint64_t t;

		if (a->in_drop.pieces) {
			struct agentq_drop d = a->in_drop;

			memset(&a->in_drop, 0, sizeof(a->in_drop));
			pthread_mutex_unlock(&a->mu);
			a->rep.pieces += d.pieces; /* counted in st by agent_put() */
			a->rep.samples += d.samples;
			say_drops(a, false);
			pthread_mutex_lock(&a->mu);
			continue;
		}
		if (a->nr_in) {
			struct raw r = a->inbox[0];

			memmove(a->inbox, a->inbox + 1, --a->nr_in * sizeof(*a->inbox));
			a->in_bytes -= r.bytes;
			pthread_mutex_unlock(&a->mu);
			take_piece(a, &r);
			pthread_mutex_lock(&a->mu);
			continue;
		}
		if (a->fatal)
			break;
		t = now_ns();
		if (a->stopping && (!a->q.n || t >= a->deadline))
			break;
		if (!a->q.n) {
			pthread_cond_wait(&a->cv, &a->mu);
			continue;
		}
		if (t < a->next_try) {
			uint64_t until = a->next_try;
			struct timespec ts;

			if (a->stopping && a->deadline < until)
				until = a->deadline;
			/* the condition variable runs on CLOCK_MONOTONIC (agent_new) */
			ts.tv_sec = (time_t)(until / 1000000000ull);
			ts.tv_nsec = (long)(until % 1000000000ull);
			pthread_cond_timedwait(&a->cv, &a->mu, &ts);
			continue;
		}
		pthread_mutex_unlock(&a->mu);
		try_push(a);
		pthread_mutex_lock(&a->mu);
	}
	pthread_mutex_unlock(&a->mu);
	say_drops(a, true);
	pthread_mutex_lock(&a->mu);
	a->done = true;
	pthread_cond_broadcast(&a->end);
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* ---- the caller's side ------------------------------------------------------ */

int agent_new(const struct agent_opts *o, struct agent **out, char *msg, size_t msglen)
{
	struct zt_http_opts ho = {0};
	struct agentq_drop d;
	pthread_condattr_t ca;
	struct agent *a;
	int err;

	*out = NULL;
	a = calloc(1, sizeof(*a));
	if (!a) {
		if (o->spool_fd >= 0)
			close(o->spool_fd);
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	a->o = *o;
	a->q.dirfd = -1;
	zbuf_init(&a->img);
	zbuf_init(&a->spooled);
	pthread_mutex_init(&a->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&a->cv, &ca);
	pthread_cond_init(&a->end, &ca);
	pthread_condattr_destroy(&ca);
	a->rnd = now_ns() ^ ((uint64_t)getpid() << 32);
	err = agentq_init(&a->q, o->queue_bytes, o->spool_fd, &d);
	if (err) {
		snprintf(msg, msglen, "cannot read the spool directory: %s", strerror(-err));
		goto fail;
	}
	/* a spool's pieces of an earlier run: counted as recorded by this one */
	for (size_t i = 0; i < a->q.n; i++) {
		a->st.spooled_pieces++;
		a->st.spooled_samples += a->q.items[a->q.head + i].samples;
	}
	a->st.recorded_pieces = a->st.spooled_pieces + d.pieces;
	a->st.recorded_samples = a->st.spooled_samples + d.samples;
	a->st.dropped_pieces = d.pieces;
	a->st.dropped_samples = d.samples;
	a->rep = d;
	/* one try a request: the agent retries itself, with its own backoff,
	 * reading pieces meanwhile; bounded so that the end is not held up */
	ho.base_url = o->url;
	ho.token = o->token;
	ho.cainfo = o->cainfo;
	ho.capath = o->capath;
	ho.connect_timeout_ms = 5000;
	ho.low_speed_s = 15;
	ho.tries = 1;
	err = zt_http_new(&ho, &a->h, msg, msglen);
	if (err)
		goto fail;
	a->url = strdup(zt_http_base(a->h));
	if (!a->url) {
		err = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto fail;
	}
	*out = a;
	return 0;
fail:
	agent_free(a);
	return err;
}

int agent_check(struct agent *a, long *status, char *msg, size_t msglen)
{
	struct zt_http_resp r;
	int8_t none = 0;
	int err;

	*status = 0;
	zt_http_resp_init(&r);
	/* symbols/missing of no module: the push scope's cheapest request */
	err = push_missing(a->h, NULL, 0, &none, &r, msg, msglen);
	if (!err) {
		*status = r.status;
		if (zt_http_retryable(r.status)) {
			push_answer_error(&r, msg, msglen);
			err = -EAGAIN;
		} else if (r.status != 200) {
			push_answer_error(&r, msg, msglen);
			err = -EACCES;
		}
	}
	zt_http_resp_release(&r);
	if (err && err != -EACCES) {
		/* said by the caller: the first failed push is not said again */
		a->away = true;
		a->away_since = now_ns();
	}
	return err;
}

int agent_start(struct agent *a)
{
	int err = pthread_create(&a->th, NULL, run, a);

	if (err)
		return -err;
	a->started = true;
	return 0;
}

int agent_put(struct agent *a, int fd, size_t bytes, uint64_t samples, uint64_t t_start,
	      uint64_t t_end)
{
	struct raw r = {fd, bytes, samples, t_start, t_end};
	int err = 0;

	pthread_mutex_lock(&a->mu);
	a->st.recorded_pieces++;
	a->st.recorded_samples += samples;
	/* pieces not read yet count against the bound too (the thread reads
	 * them between requests, so only a slow request lets them pile up) */
	while (a->nr_in && a->in_bytes + bytes > a->o.queue_bytes) {
		close(a->inbox[0].fd);
		a->in_drop.pieces++;
		a->in_drop.samples += a->inbox[0].samples;
		a->st.dropped_pieces++;
		a->st.dropped_samples += a->inbox[0].samples;
		a->in_bytes -= a->inbox[0].bytes;
		memmove(a->inbox, a->inbox + 1, --a->nr_in * sizeof(*a->inbox));
	}
	if (ZT_GROW(a->inbox, a->cap_in, a->nr_in + 1)) {
		close(fd);
		a->st.dropped_pieces++;
		a->st.dropped_samples += samples;
		err = -ENOMEM;
	} else {
		a->inbox[a->nr_in++] = r;
		a->in_bytes += bytes;
	}
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
	return err;
}

bool agent_fatal(struct agent *a)
{
	bool f;

	pthread_mutex_lock(&a->mu);
	f = a->fatal;
	pthread_mutex_unlock(&a->mu);
	return f;
}

void agent_finish(struct agent *a, unsigned wait_ms, const volatile sig_atomic_t *cut)
{
	if (!a->started)
		return;
	pthread_mutex_lock(&a->mu);
	a->stopping = true;
	a->deadline = now_ns() + (uint64_t)wait_ms * 1000000ull;
	pthread_cond_signal(&a->cv);
	while (!a->done) {
		uint64_t until = now_ns() + 100000000ull;
		struct timespec ts = {(time_t)(until / 1000000000ull),
				      (long)(until % 1000000000ull)};

		/* end runs on CLOCK_MONOTONIC too */
		pthread_cond_timedwait(&a->end, &a->mu, &ts);
		if (cut && *cut && a->deadline > now_ns()) {
			a->deadline = now_ns();
			pthread_cond_signal(&a->cv);
		}
	}
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->th, NULL);
	a->started = false;
	/* what the thread did not get to */
	for (size_t i = 0; i < a->q.n; i++) {
		a->st.left_pieces++;
		a->st.left_samples += a->q.items[a->q.head + i].samples;
	}
	for (size_t i = 0; i < a->nr_in; i++) {
		a->st.left_pieces++;
		a->st.left_samples += a->inbox[i].samples;
	}
}

void agent_stats(struct agent *a, struct agent_stats *st)
{
	pthread_mutex_lock(&a->mu);
	*st = a->st;
	pthread_mutex_unlock(&a->mu);
	if (!a->started) {
		st->queued_pieces = a->q.n;
		st->queued_bytes = a->q.bytes;
	}
}

void agent_free(struct agent *a)
{
	size_t i;

	if (!a)
		return;
	if (a->started)
		agent_finish(a, 0, NULL);
	for (i = 0; i < a->nr_in; i++)
		close(a->inbox[i].fd);
	free(a->inbox);
	for (i = 0; i < a->nr_pend; i++)
		free((char *)a->pend[i].m.path);
	free(a->pend);
	free(a->asked);
	agentq_release(&a->q);
	zbuf_release(&a->img);
	zbuf_release(&a->spooled);
	zt_http_free(a->h);
	free(a->url);
	pthread_cond_destroy(&a->cv);
	pthread_cond_destroy(&a->end);
	pthread_mutex_destroy(&a->mu);
	free(a);
}
