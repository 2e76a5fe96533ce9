/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zt serve's HTTP daemon over libmicrohttpd (see httpd.h). Never MHD_PostProcessor. */
#include "server/httpd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <malloc.h>
#include <microhttpd.h>
#include <pthread.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <openssl/evp.h>

#include "libprof/fileio.h"
#include "libprof/zbuf.h"
#include "server/query.h"
#include "server/route.h"
#include "server/symq.h"

/*
 * libmicrohttpd is loaded when a server starts (dlopen), not linked: with
 * GnuTLS and its eight libraries it added about 1 ms to the start-up of
 * every zt command (2.0 -> 3.1 ms, 'zt buildid').
 */
static struct {
	struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
					   MHD_AcceptPolicyCallback apc, void *apc_cls,
					   MHD_AccessHandlerCallback dh, void *dh_cls, ...);
	void (*stop_daemon)(struct MHD_Daemon *d);
	MHD_socket (*quiesce_daemon)(struct MHD_Daemon *d);
	const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *d,
							enum MHD_DaemonInfoType t, ...);
	const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *c,
								enum MHD_ConnectionInfoType t, ...);
	const char *(*lookup_connection_value)(struct MHD_Connection *c, enum MHD_ValueKind k,
					       const char *key);
	enum MHD_Result (*queue_response)(struct MHD_Connection *c, unsigned int status,
					  struct MHD_Response *r);
	void (*destroy_response)(struct MHD_Response *r);
	struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
							    enum MHD_ResponseMemoryMode mode);
	struct MHD_Response *(*create_response_from_fd64)(uint64_t size, int fd);
	enum MHD_Result (*add_response_header)(struct MHD_Response *r, const char *header,
					       const char *content);
	enum MHD_Result (*is_feature_supported)(enum MHD_FEATURE feature);
	int ok;
	char why[160];
} mh;
static pthread_once_t mh_once = PTHREAD_ONCE_INIT;

static void mh_load(void)
{
	void *h = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(mh.why, sizeof(mh.why),
			 "cannot load libmicrohttpd (libmicrohttpd.so.12): install the Debian "
			 "package 'libmicrohttpd12'");
		return;
	}
#define MH(field)                                                                               \
	do {                                                                                    \
		*(void **)&mh.field = dlsym(h, "MHD_" #field);                                  \
		if (!mh.field) {                                                                \
			snprintf(mh.why, sizeof(mh.why), "libmicrohttpd.so.12 lacks MHD_%s: too old", \
				 #field);                                                       \
			return;                                                                 \
		}                                                                               \
	} while (0)
	MH(start_daemon);
	MH(stop_daemon);
	MH(quiesce_daemon);
	MH(get_daemon_info);
	MH(get_connection_info);
	MH(lookup_connection_value);
	MH(queue_response);
	MH(destroy_response);
	MH(create_response_from_buffer);
	MH(create_response_from_fd64);
	MH(add_response_header);
	MH(is_feature_supported);
#undef MH
	mh.ok = 1; /* the handle stays open for the process's life */
}

#define DEFAULT_MAX_BODY (512ull << 20)
#define SPILL_OVER	 (256u << 10) /* an answer larger than this goes out from a file */
#define DRAIN_MAX	 (4u << 20)   /* a refused upload this small is read before the answer */
#define MAX_DECODERS	 32	      /* compressed uploads decoded at once (8 MiB window each) */
#define MISSING_MAX_BODY (8u << 20) /* 100000 ids of 40 hex digits and a newline */
#define CONN_MEMORY	 (ZR_MAX_TARGET + (96u << 10)) /* the request line, headers, buffers */
#define MAX_CODE	 600

struct zh {
	struct MHD_Daemon *d;
	struct zs_store *store;
	struct zh_opts o;
	unsigned port;
	int shutting; /* atomic */
	/* counters (atomic) */
	uint64_t codes[MAX_CODE];
	uint64_t requests, bytes_in, bytes_out, ingested, ingest_errors, in_flight;
	uint64_t timeouts, cut_slow, heavy_busy;
	char start_err[256]; /* the logger's last message while starting */
	int starting;
	/* the connections, for the deadline watcher */
	pthread_mutex_t clock;
	struct zconn *conns;
	pthread_t watcher;
	int watching;
	pthread_cond_t wcond; /* the watcher's sleep, cut short by zh_stop */
	/* heavy work (queries, ingests): at most o.threads at once */
	pthread_mutex_t hlock;
	pthread_cond_t hcond;
	unsigned heavy;
	uint64_t heavy_end_ns; /* when heavy work last ended (atomic) */
	int trim_due;	       /* memory kept since (atomic): release_arenas() */
	uint64_t decoders; /* compressed uploads being decoded (atomic) */
};

/*
 * One open connection, known from its start to its close (the
 * NOTIFY_CONNECTION callback). The watcher closes it when its request head
 * takes longer than the header deadline, or its body comes slower than the
 * minimum rate. fd is our own duplicate of the socket: a shutdown() on it
 * reaches the connection, and it cannot be another connection's descriptor
 * however late the watcher looks.
 */
enum zconn_phase { ZC_HEAD, ZC_BODY, ZC_WORK };
struct zconn {
	struct zconn *prev, *next;
	int fd;
	int phase; /* enum zconn_phase, under clock */
	int cut;   /* shut down by the watcher */
	uint64_t since;	   /* ns: the start of the head, or of the body */
	uint64_t body_in;  /* body bytes so far (atomic) */
};

enum enc { ENC_NONE, ENC_GZIP, ENC_ZSTD };

struct zh_req {
	struct zh *h;
	uint64_t t0;
	char *uri;
	size_t uri_len;
	char method[8];
	int started, answered;
	int heavy_done; /* did heavy work: the arenas released at its end */
	unsigned code;
	uint64_t bytes_in, bytes_out;
	struct zr_request r;
	char err[256]; /* the JSON error's sentence */
	/* the body */
	int fd;
	char tmp[4096];
	enum enc enc;
	z_stream zs;
	int zs_init, z_end;
	ZSTD_DStream *zd;
	size_t zd_last; /* ZSTD_decompressStream's last return: 0 at a frame's end */
	uint64_t decoded, limit;
	/* the decoded bytes the upload may have (at most limit: a symbol
	 * file's may be fewer), and the zt serve option that sets that */
	uint64_t dlimit;
	const char *dlimit_opt;
	struct zbuf mem; /* symbols/missing: the body in memory */
	unsigned fail;	 /* an HTTP error found while reading the body */
	int drain;	 /* refused before the body: it is read and dropped (refuse()) */
	/* PUT of symbols */
	struct zs_symbol_meta meta;
	int only_new;	  /* If-None-Match: * (a GSYM: only when better than the stored one) */
	const char *kept; /* a refused GSYM: the quality of those kept (X-ZT-Symbol-Quality) */
	char project[ZS_PROJECT_MAX + 1]; /* the token's project ("": every project) */
	char desc[3 * ZR_MAX_DESCRIPTION + 1], file[3 * ZR_MAX_SYMBOL_FILE + 1];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void add(uint64_t *c, uint64_t v)
{
	__atomic_add_fetch(c, v, __ATOMIC_RELAXED);
}

static uint64_t get(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/* ---- connections: the head deadline, the body rate --------------------------------- */

static struct zconn *conn_of(struct MHD_Connection *con)
{
	const union MHD_ConnectionInfo *ci =
		mh.get_connection_info(con, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

static void conn_phase(struct zh *h, struct MHD_Connection *con, enum zconn_phase phase)
{
	struct zconn *c = conn_of(con);

	if (!c)
		return;
	pthread_mutex_lock(&h->clock);
	c->phase = phase;
	c->since = now_ns();
	__atomic_store_n(&c->body_in, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&h->clock);
}

static void on_connection(void *cls, struct MHD_Connection *con, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct zh *h = cls;
	struct zconn *c;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			mh.get_connection_info(con, MHD_CONNECTION_INFO_CONNECTION_FD);

		*socket_context = NULL;
		c = calloc(1, sizeof(*c));
		if (!c)
			return;
		c->fd = ci ? fcntl(ci->connect_fd, F_DUPFD_CLOEXEC, 3) : -1;
		if (c->fd < 0) { /* no watching for this one: its idle timeout still holds */
			free(c);
			return;
		}
		c->phase = ZC_HEAD;
		c->since = now_ns();
		pthread_mutex_lock(&h->clock);
		c->next = h->conns;
		if (h->conns)
			h->conns->prev = c;
		h->conns = c;
		pthread_mutex_unlock(&h->clock);
		*socket_context = c;
		return;
	}
	c = *socket_context;
	if (!c)
		return;
	*socket_context = NULL;
	pthread_mutex_lock(&h->clock);
	if (c->prev)
		c->prev->next = c->next;
	else
		h->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&h->clock);
	close(c->fd);
	free(c);
}

/* Whether c is over its deadline at now: the whole request head within
 * header_timeout of the connection's start or its previous answer; a body
 * at min_body_rate bytes a second at least, after header_timeout seconds
 * of grace (mod_reqtimeout's rule: each min_body_rate bytes buy a second). */
static int conn_late(const struct zh *h, const struct zconn *c, uint64_t now)
{
	uint64_t grace = (uint64_t)h->o.header_timeout_s * 1000000000ull, t;

	if (now < c->since)
		return 0;
	t = now - c->since;
	if (c->phase == ZC_HEAD)
		return t > grace;
	if (c->phase == ZC_BODY && h->o.min_body_rate && t > grace) {
		uint64_t secs = (t - grace) / 1000000000ull;

		return __atomic_load_n(&c->body_in, __ATOMIC_RELAXED) / h->o.min_body_rate < secs;
	}
	return 0;
}

static void release_idle(struct zh *h, uint64_t now);

static void *watch(void *arg)
{
	struct zh *h = arg;

	pthread_mutex_lock(&h->clock);
	while (h->watching) {
		struct timespec ts;
		uint64_t now = now_ns();
		struct zconn *c;

		for (c = h->conns; c; c = c->next) {
			if (c->cut || !conn_late(h, c, now))
				continue;
			/* the connection's thread sees the end of its stream and
			 * closes it: nothing is answered to a client this slow */
			shutdown(c->fd, SHUT_RDWR);
			c->cut = 1;
			add(&h->cut_slow, 1);
		}
		pthread_mutex_unlock(&h->clock); /* a trim takes milliseconds */
		release_idle(h, now);
		pthread_mutex_lock(&h->clock);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 250 * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&h->wcond, &h->clock, &ts);
	}
	pthread_mutex_unlock(&h->clock);
	return NULL;
}

/* ---- heavy work: queries and ingests, a few at a time ------------------------------- */

/* Wait for a slot, at most the idle timeout. 0, or -EBUSY. */
static int heavy_enter(struct zh *h)
{
	struct timespec ts;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += h->o.timeout_s;
	pthread_mutex_lock(&h->hlock);
	while (h->heavy >= h->o.threads && !rc)
		rc = pthread_cond_timedwait(&h->hcond, &h->hlock, &ts);
	if (h->heavy < h->o.threads) {
		h->heavy++;
		rc = 0;
	} else {
		rc = -EBUSY;
	}
	pthread_mutex_unlock(&h->hlock);
	if (rc)
		add(&h->heavy_busy, 1);
	return rc;
}

/* What the malloc arenas may keep free between heavy requests (the next
 * ingest or query reuses it instead of faulting fresh pages in), and for
 * how long the server must have been without heavy work before the
 * watcher gives it back. */
#define ZH_KEEP_FREE ((size_t)32 << 20)
#define ZH_KEEP_NS   (500 * 1000000ull)

/* A heavy request's memory back to the system, when its work is done and
 * again at its end (its answer freed too): each connection's thread may
 * have its own malloc arena, and an arena keeps what was freed in it, so
 * without this the server would keep the peak of the largest query once
 * per arena. Up to ZH_KEEP_FREE stays for the next request; the watcher
 * gives that back too once no heavy work has run for ZH_KEEP_NS. */
static void release_arenas(struct zh *h)
{
	__atomic_store_n(&h->heavy_end_ns, now_ns(), __ATOMIC_RELAXED);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
	if (mallinfo2().fordblks <= ZH_KEEP_FREE) {
		__atomic_store_n(&h->trim_due, 1, __ATOMIC_RELAXED);
		return;
	}
#endif
	malloc_trim(0);
}

/* For the watcher: what was kept, given back once the server has been
 * without heavy work for ZH_KEEP_NS. */
static void release_idle(struct zh *h, uint64_t now)
{
	unsigned busy;

	if (!__atomic_load_n(&h->trim_due, __ATOMIC_RELAXED) ||
	    now - __atomic_load_n(&h->heavy_end_ns, __ATOMIC_RELAXED) < ZH_KEEP_NS)
		return;
	pthread_mutex_lock(&h->hlock);
	busy = h->heavy;
	pthread_mutex_unlock(&h->hlock);
	if (busy)
		return;
	__atomic_store_n(&h->trim_due, 0, __ATOMIC_RELAXED);
	malloc_trim(0);
}

static void heavy_leave(struct zh *h)
{
	pthread_mutex_lock(&h->hlock);
	h->heavy--;
	pthread_cond_signal(&h->hcond);
	pthread_mutex_unlock(&h->hlock);
	release_arenas(h);
}

/* ---- responses ---------------------------------------------------------------- */

static void security_headers(struct MHD_Response *resp, const char *ctype)
{
	mh.add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	mh.add_response_header(resp, "X-Content-Type-Options", "nosniff");
	mh.add_response_header(resp, "Cache-Control", "no-store");
	/* nothing the server sends may load anything from elsewhere: the page
	 * and the flame graphs' own inline scripts, fetches to this server,
	 * frames of blob: documents it made */
	mh.add_response_header(
		resp, "Content-Security-Policy",
		"default-src 'none'; script-src 'unsafe-inline'; "
		"style-src 'unsafe-inline'; img-src 'self' data: blob:; "
		"connect-src 'self'; frame-src 'self' blob:; object-src 'self' blob:; "
		"base-uri 'none'; form-action 'none'; frame-ancestors 'self'");
	mh.add_response_header(resp, "Referrer-Policy", "no-referrer");
}

/* Queue resp (len bytes of body) with zt's headers, and destroy our reference. */
static enum MHD_Result queue_resp(struct zh_req *q, struct MHD_Connection *con, unsigned code,
				  const char *ctype, struct MHD_Response *resp, size_t len,
				  const char *etag)
{
	enum MHD_Result ret;

	security_headers(resp, ctype);
	if (__atomic_load_n(&q->h->shutting, __ATOMIC_RELAXED))
		mh.add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	if (etag)
		mh.add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
	q->code = code;
	q->bytes_out = q->r.head ? 0 : len;
	q->answered = 1;
	ret = mh.queue_response(con, code, resp);
	mh.destroy_response(resp);
	return ret;
}

/* Queue a response; data is taken over (freed by MHD) unless persistent. */
static enum MHD_Result send_resp(struct zh_req *q, struct MHD_Connection *con, unsigned code,
				 const char *ctype, void *data, size_t len, int persistent,
				 const char *etag)
{
	struct MHD_Response *resp = mh.create_response_from_buffer(
		len, data, persistent ? MHD_RESPMEM_PERSISTENT : MHD_RESPMEM_MUST_FREE);

	if (!resp) {
		if (!persistent)
			free(data);
		return MHD_NO;
	}
	return queue_resp(q, con, code, ctype, resp, len, etag);
}


/* An unlinked file in the store's tmp directory holding n bytes of d, at
 * offset 0; or -1. */
static int spill(struct zh *h, const void *d, size_t n)
{
	const char *dir = zs_store_tmpdir(h->store);
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/answer-XXXXXX", dir);
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
	}
	if (fd < 0)
		return -1;
	if (zt_write_all(fd, d, n)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Send b (taken over). An answer over SPILL_OVER bytes goes out from an
 * unlinked file: a client that reads slowly, or never, holds a descriptor
 * and the kernel's socket buffers, not the answer in the server's memory.
 */
static enum MHD_Result send_zbuf(struct zh_req *q, struct MHD_Connection *con, unsigned code,
				 const char *ctype, struct zbuf *b)
{
	void *d = b->data;
	size_t n = b->len;
	struct MHD_Response *resp;
	int fd;

	b->data = NULL;
	b->len = b->cap = 0;
	if (n <= SPILL_OVER || q->r.head || (fd = spill(q->h, d, n)) < 0)
		return send_resp(q, con, code, ctype, d, n, 0, NULL);
	free(d);
	resp = mh.create_response_from_fd64(n, fd); /* closes fd once sent */
	if (!resp) {
		close(fd);
		return MHD_NO;
	}
	return queue_resp(q, con, code, ctype, resp, n, NULL);
}

static enum MHD_Result send_error(struct zh_req *q, struct MHD_Connection *con, unsigned code,
				  const char *allow)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	struct zbuf b;

	if (!q->err[0])
		snprintf(q->err, sizeof(q->err), "error %u", code);
	zbuf_init(&b);
	zbuf_put(&b, "{\"error\":", 9);
	zbuf_put_json_str(&b, q->err);
	zbuf_put(&b, "}\n", 2);
	if (b.err) {
		zbuf_release(&b);
		return MHD_NO;
	}
	resp = mh.create_response_from_buffer(b.len, b.data, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		zbuf_release(&b);
		return MHD_NO;
	}
	security_headers(resp, "application/json");
	if (code == 401)
		mh.add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Bearer realm=\"zt\"");
	if (code == 405 && allow)
		mh.add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
	if (code == 412 && q->kept)
		mh.add_response_header(resp, "X-ZT-Symbol-Quality", q->kept);
	if (code == 503) {
		mh.add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "5");
		mh.add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	}
	/* a refused upload's body is not read: the connection cannot be reused */
	if (q->r.route && zr_has_body(q->r.route) && !q->fail)
		mh.add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	q->code = code;
	q->bytes_out = q->r.head ? 0 : b.len;
	q->answered = 1;
	ret = mh.queue_response(con, code, resp);
	mh.destroy_response(resp);
	return ret;
}

static enum MHD_Result fail(struct zh_req *q, struct MHD_Connection *con, unsigned code,
			    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static enum MHD_Result fail(struct zh_req *q, struct MHD_Connection *con, unsigned code,
			    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(q->err, sizeof(q->err), fmt, ap);
	va_end(ap);
	return send_error(q, con, code, NULL);
}

/* ---- GET routes ------------------------------------------------------------------ */

static enum MHD_Result store_error(struct zh_req *q, struct MHD_Connection *con, int rc,
				   const char *what)
{
	if (rc == -ENOENT)
		return fail(q, con, 404, "no such %s", what);
	if (rc == -EINVAL)
		return fail(q, con, 400, "bad request for %s", what);
	if (rc == -EDOM) /* a selection of several profile types */
		return fail(q, con, 400, "%s", zs_store_error());
	if (rc == -ENOMEM)
		return fail(q, con, 503, "out of memory: try a smaller selection");
	if (rc == -EAGAIN || rc == -ECONNREFUSED) /* ClickHouse down or busy */
		return fail(q, con, 503, "the store cannot answer now, try again: %s",
			    zs_store_error());
	if (zs_store_error()[0])
		return fail(q, con, 500, "the store failed: %s", zs_store_error());
	return fail(q, con, 500, "the store failed (%s): see the server's log", strerror(-rc));
}

/* One Prometheus metric: its HELP and TYPE lines and its value. */
static void metric(struct zbuf *b, const char *name, const char *type, const char *help,
		   uint64_t v)
{
	char line[512];
	int n = snprintf(line, sizeof(line), "# HELP %s %s\n# TYPE %s %s\n%s %" PRIu64 "\n", name,
			 help, name, type, name, v);

	if (n > 0)
		zbuf_put(b, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

static void metrics_text(struct zh *h, struct zbuf *b)
{
	struct zs_store_stats st;
	char line[96];
	int n;
	unsigned c;
	static const char req_head[] = "# HELP zt_requests_total HTTP requests answered, by status "
				       "code.\n# TYPE zt_requests_total counter\n";

	memset(&st, 0, sizeof(st));
	zs_store_stats(h->store, &st);
	zbuf_put(b, req_head, sizeof(req_head) - 1);
	for (c = 100; c < MAX_CODE; c++) {
		if (!get(&h->codes[c]))
			continue;
		n = snprintf(line, sizeof(line), "zt_requests_total{code=\"%u\"} %" PRIu64 "\n", c,
			     get(&h->codes[c]));
		if (n > 0 && (size_t)n < sizeof(line))
			zbuf_put(b, line, (size_t)n);
	}
	metric(b, "zt_request_bytes_total", "counter", "Request body bytes received.",
	       get(&h->bytes_in));
	metric(b, "zt_response_bytes_total", "counter", "Response body bytes sent.",
	       get(&h->bytes_out));
	metric(b, "zt_requests_in_flight", "gauge", "Requests being served.", get(&h->in_flight));
	metric(b, "zt_timeouts_total", "counter", "Connections closed for inactivity.",
	       get(&h->timeouts));
	metric(b, "zt_slow_clients_cut_total", "counter",
	       "Connections closed for a request head over --header-timeout or a body under "
	       "--min-body-rate.",
	       get(&h->cut_slow));
	metric(b, "zt_busy_total", "counter",
	       "Queries and ingests refused (503) after waiting --timeout for one of --threads.",
	       get(&h->heavy_busy));
	metric(b, "zt_ingested_total", "counter", "Profiles stored by this process (new ones).",
	       get(&h->ingested));
	metric(b, "zt_ingest_errors_total", "counter", "Uploads refused or failed (this process).",
	       get(&h->ingest_errors) + st.ingest_errors);
	metric(b, "zt_profiles", "gauge", "Profiles in the store.", st.profiles);
	metric(b, "zt_samples_total", "gauge", "Samples of the stored profiles.", st.samples);
	metric(b, "zt_stored_bytes", "gauge", "Bytes of the stored recordings.", st.bytes);
	metric(b, "zt_symbols", "gauge", "Build ids with symbols in the store.", st.symbols);
	metric(b, "zt_symbolized_frames_total", "counter", "Frames symbolized for queries.",
	       st.symbolized_frames);
	metric(b, "zt_frame_cache_hits_total", "counter", "Symbolized frames found in the cache.",
	       st.frame_cache_hits);
}

/* ---- symbol files -------------------------------------------------------------- */

/* Whether an If-None-Match header names etag (quoted) or is "*". */
static int etag_matches(const char *inm, const char *etag)
{
	size_t n = strlen(etag);

	while (inm && *inm) {
		const char *e;
		size_t len;

		inm += strspn(inm, " \t,");
		if (!strncmp(inm, "W/", 2))
			inm += 2;
		e = strchr(inm, ',');
		len = e ? (size_t)(e - inm) : strlen(inm);
		while (len && (inm[len - 1] == ' ' || inm[len - 1] == '\t'))
			len--;
		if ((len == 1 && *inm == '*') ||
		    (len == n + 2 && inm[0] == '"' && !strncmp(inm + 1, etag, n) && inm[n + 1] == '"'))
			return 1;
		inm = e;
	}
	return 0;
}

static void gsym_headers(struct zh_req *q, struct MHD_Response *resp, const struct zs_symfile *f)
{
	char load[16 * 52 + 1] = "", has[64] = "";
	unsigned i, bits = zs_symfile_has(q->h->store, q->r.id);
	size_t n = 0;

	mh.add_response_header(
		resp, "X-ZT-Symbol-Quality",
		zs_quality_name(f->meta.quality >= ZS_Q_NONE && f->meta.quality <= ZS_Q_FULL
					? f->meta.quality
					: ZS_Q_NONE));
	for (i = 0; i < f->meta.nr_segs; i++)
		n += (size_t)snprintf(load + n, sizeof(load) - n, "%s%" PRIx64 ":%" PRIx64 ":%" PRIx64,
				      i ? "," : "", f->meta.segs[i].off, f->meta.segs[i].vaddr,
				      f->meta.segs[i].size);
	if (load[0])
		mh.add_response_header(resp, "X-ZT-Symbol-Load", load);
	if (f->meta.description && *f->meta.description)
		mh.add_response_header(resp, "X-ZT-Description", f->meta.description);
	for (i = 0, n = 0; i <= ZS_KIND_EXECUTABLE; i++)
		if (bits & (1u << i))
			n += (size_t)snprintf(has + n, sizeof(has) - n, "%s%s", n ? "," : "",
					      zs_kind_name((enum zs_kind)i));
	mh.add_response_header(resp, "X-ZT-Has", has);
}

/* Answer with an open symbol file, streamed from its fd (taken over). */
static enum MHD_Result send_file(struct zh_req *q, struct MHD_Connection *con,
				 struct zs_symfile *f)
{
	const char *inm = mh.lookup_connection_value(con, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_IF_NONE_MATCH);
	char etag[70], size[24];
	struct MHD_Response *resp;
	enum MHD_Result ret;
	unsigned code = 200;

	snprintf(etag, sizeof(etag), "\"%s\"", f->etag);
	snprintf(size, sizeof(size), "%" PRIu64, f->size);
	if (inm && etag_matches(inm, f->etag)) {
		code = 304;
		zs_symfile_close(f);
		resp = mh.create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	} else if (!f->size) {
		zs_symfile_close(f);
		resp = mh.create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	} else {
		resp = mh.create_response_from_fd64(f->size, f->fd);
		if (resp)
			f->fd = -1; /* closed by libmicrohttpd */
	}
	if (!resp) {
		zs_symfile_close(f);
		return MHD_NO;
	}
	security_headers(resp, "application/octet-stream");
	mh.add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
	if (q->r.route == ZR_BUILDID)
		mh.add_response_header(resp, "X-DEBUGINFOD-SIZE", size);
	if (q->r.route == ZR_SYMBOL_HEAD || q->r.route == ZR_SYMBOL_GET)
		gsym_headers(q, resp, f);
	if (__atomic_load_n(&q->h->shutting, __ATOMIC_RELAXED))
		mh.add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	q->code = code;
	q->bytes_out = q->r.head || code == 304 ? 0 : f->size;
	q->answered = 1;
	ret = mh.queue_response(con, code, resp);
	mh.destroy_response(resp);
	return ret;
}

static enum MHD_Result symfile_error(struct zh_req *q, struct MHD_Connection *con, int rc)
{
	if (rc == -ENOENT)
		return fail(q, con, 404, "no %s for %s in the store%s", zs_kind_name(q->r.kind),
			    q->r.id,
			    q->r.kind == ZS_KIND_GSYM
				    ? ": upload them with zt push or zt symbols upload"
				    : "");
	if (rc == -EREMOTEIO)
		return fail(q, con, 503, "the remote symbol store failed: try again later");
	if (rc == -EINVAL)
		return fail(q, con, 400, "bad symbol id or path");
	return fail(q, con, 500, "the store failed (%s): see the server's log", strerror(-rc));
}

/* HEAD and GET /api/v1/symbols/ID[/KIND[/PATH]] */
static enum MHD_Result do_symfile(struct zh_req *q, struct MHD_Connection *con)
{
	struct zs_symfile f;
	int rc = zs_symfile_open(q->h->store, q->r.id, q->r.kind, q->r.src, &f);

	if (rc)
		return symfile_error(q, con, rc);
	return send_file(q, con, &f);
}

/* GET and HEAD /buildid/ID/KIND[/PATH]: the debuginfod protocol. A miss
 * asks the upstreams (stored, then served). */
static enum MHD_Result do_buildid(struct zh_req *q, struct MHD_Connection *con)
{
	struct zs_store *st = q->h->store;
	struct zs_symfile f;
	int rc = zs_symfile_open(st, q->r.id, q->r.kind, q->r.src, &f);

	if (rc == -ENOENT && q->r.kind == ZS_KIND_DEBUGINFO) {
		/* an executable that has DWARF is its own debug file */
		rc = zs_symfile_open(st, q->r.id, ZS_KIND_EXECUTABLE, NULL, &f);
		if (!rc && !f.dwarf) {
			zs_symfile_close(&f);
			rc = -ENOENT;
		}
	}
	if (rc == -ENOENT && !zs_symfile_upstream(st, q->r.id, q->r.kind, q->r.src))
		rc = zs_symfile_open(st, q->r.id, q->r.kind, q->r.src, &f);
	if (rc)
		return symfile_error(q, con, rc);
	return send_file(q, con, &f);
}

/* The project a selection stays in: the token's (a project= naming
 * another is 403), else the one project= names (NULL: every project). 0
 * or an HTTP status with q->err. */
static unsigned sel_project(struct zh_req *q, struct zs_selection *sel)
{
	if (!q->project[0])
		return 0;
	if (sel->project && strcmp(sel->project, q->project)) {
		snprintf(q->err, sizeof(q->err), "this token's project is %s, not %s", q->project,
			 sel->project);
		return 403;
	}
	sel->project = q->project;
	return 0;
}

#define MAX_MATCH 8 /* match[] of one discovery request */

/* /api/v1/labels and /api/v1/label/NAME/values, as Prometheus answers them. */
static enum MHD_Result do_discovery(struct zh_req *q, struct MHD_Connection *con)
{
	struct zs_selection *sel = calloc(MAX_MATCH, sizeof(*sel));
	struct zbuf out;
	size_t n = 0, i;
	unsigned code;
	int rc = 0;

	if (!sel)
		return fail(q, con, 503, "out of memory");
	zbuf_init(&out);
	code = (unsigned)zr_discovery(&q->r, sel, MAX_MATCH, &n, q->err, sizeof(q->err));
	for (i = 0; !code && i < n; i++)
		code = sel_project(q, &sel[i]);
	if (!code)
		rc = q->r.route == ZR_LABELS ? zs_query_label_names(q->h->store, sel, n, &out)
					     : zs_query_label_values(q->h->store, sel, n, q->r.id, &out);
	for (i = 0; i < MAX_MATCH; i++)
		zs_selection_release(&sel[i]);
	free(sel);
	if (code) {
		zbuf_release(&out);
		return send_error(q, con, code, NULL);
	}
	if (rc) {
		zbuf_release(&out);
		return store_error(q, con, rc, "labels");
	}
	if (out.err) {
		zbuf_release(&out);
		return fail(q, con, 503, "out of memory: try a smaller selection");
	}
	return send_zbuf(q, con, 200, "application/json", &out);
}

static enum MHD_Result do_get(struct zh_req *q, struct MHD_Connection *con)
{
	struct zh *h = q->h;
	struct zs_selection *sel = NULL, *selb = NULL;
	struct zs_flame_opts fo;
	struct zbuf out;
	int rc = 0, heavy = 0;
	unsigned code;
	const char *ctype = "application/json";

	zbuf_init(&out);
	switch (q->r.route) {
	case ZR_PAGE:
		return send_resp(q, con, 200, "text/html; charset=utf-8", (void *)zt_web_index_html,
				 zt_web_index_html_len, 1, NULL);
	case ZR_HEALTHZ:
		return send_resp(q, con, 200, "text/plain; charset=utf-8", (void *)"ok\n", 3, 1,
				 NULL);
	case ZR_METRICS:
		if (q->project[0])
			return fail(q, con, 403,
				    "the server's numbers are for tokens of every project: this "
				    "one's is %s",
				    q->project);
		metrics_text(h, &out);
		ctype = "text/plain; version=0.0.4; charset=utf-8";
		break;
	case ZR_PROJECTS: {
		/* a token's own project, or the one project= names */
		const char *pj = zr_param(&q->r, "project");

		if (pj && !zs_project_name_ok(pj))
			return fail(q, con, 400,
				    "bad project: 1 to %d lowercase letters, digits, '-' and '_'",
				    ZS_PROJECT_MAX);
		if (q->project[0] && pj && strcmp(pj, q->project))
			return fail(q, con, 403, "this token's project is %s, not %s", q->project, pj);
		rc = zs_projects_json(h->store, q->project[0] ? q->project : pj, &out);
		if (rc)
			goto store_err;
		break;
	}
	case ZR_PROFILE_GET:
		rc = q->project[0] ? zs_profile_in_project(h->store, q->r.id, q->project) : 0;
		if (!rc)
			rc = zs_profile_json(h->store, q->r.id, &out);
		if (rc)
			goto store_err;
		break;
	case ZR_PROFILE_DELETE:
		rc = q->project[0] ? zs_profile_in_project(h->store, q->r.id, q->project) : 0;
		if (!rc && q->project[0] && zs_profile_projects(h->store, q->r.id) > 1)
			return fail(q, con, 409,
				    "the profile is in other projects too: a token of every "
				    "project deletes it");
		if (!rc)
			rc = zs_profile_delete(h->store, q->r.id);
		if (rc)
			goto store_err;
		return send_resp(q, con, 204, "application/json", NULL, 0, 1, NULL);
	case ZR_SYMBOL_HEAD:
	case ZR_SYMBOL_GET:
	case ZR_SYMFILE_HEAD:
	case ZR_SYMFILE_GET:
		return do_symfile(q, con);
	case ZR_BUILDID:
		return do_buildid(q, con);
	default:
		break;
	}
	if (q->r.route == ZR_METRICS || q->r.route == ZR_PROFILE_GET || q->r.route == ZR_PROJECTS)
		goto send;

	if (q->r.route == ZR_LABELS || q->r.route == ZR_LABEL_VALUES)
		return do_discovery(q, con);
	sel = calloc(1, sizeof(*sel));
	if (!sel)
		return fail(q, con, 503, "out of memory");
	if (q->r.route == ZR_DIFF) {
		selb = calloc(1, sizeof(*selb));
		if (!selb) {
			free(sel);
			return fail(q, con, 503, "out of memory");
		}
		code = (unsigned)zr_selection(&q->r, "a.", sel, q->err, sizeof(q->err));
		if (!code)
			code = (unsigned)zr_selection(&q->r, "b.", selb, q->err, sizeof(q->err));
	} else {
		code = (unsigned)zr_selection(&q->r, "", sel, q->err, sizeof(q->err));
	}
	if (!code && q->r.route == ZR_DIFF) {
		/* project= is the diff's, for both sides */
		sel->project = selb->project = zr_param(&q->r, "project");
		code = sel_project(q, selb);
	}
	if (!code)
		code = sel_project(q, sel);
	if (code)
		goto bad;
	/* everything but the list merges profiles: a few at a time, so that
	 * they cannot take every core, and never in the way of cheap requests
	 * (each connection has its own thread) */
	heavy = q->r.route != ZR_PROFILE_LIST;
	q->heavy_done = heavy;
	if (heavy && heavy_enter(h)) {
		snprintf(q->err, sizeof(q->err),
			 "the server is busy with %u other queries: try again in a few seconds",
			 h->o.threads);
		code = 503;
		goto bad;
	}
	switch (q->r.route) {
	case ZR_PROFILE_LIST:
		rc = zs_list_json(h->store, sel, &out);
		break;
	case ZR_TOP: {
		size_t limit;
		enum zs_sort sort;

		code = (unsigned)zr_top_params(&q->r, &limit, &sort, q->err, sizeof(q->err));
		if (code)
			goto bad;
		rc = zs_query_top(h->store, sel, limit, sort, &out);
		break;
	}
	case ZR_FOLDED:
		rc = zs_query_folded(h->store, sel, &out);
		ctype = "text/plain; charset=utf-8";
		break;
	case ZR_PPROF:
		rc = zs_query_pprof(h->store, sel, &out);
		ctype = "application/octet-stream";
		break;
	case ZR_FLAME:
	case ZR_DIFF:
		code = (unsigned)zr_flame_params(&q->r, &fo, q->err, sizeof(q->err));
		if (code)
			goto bad;
		rc = q->r.route == ZR_FLAME ? zs_query_flame(h->store, sel, &fo, &out)
					    : zs_query_diff(h->store, sel, selb, &fo, &out);
		ctype = "image/svg+xml";
		break;
	case ZR_TIMELINE: {
		int64_t step;

		code = (unsigned)zr_timeline_params(&q->r, &step, q->err, sizeof(q->err));
		if (code)
			goto bad;
		rc = zs_query_timeline(h->store, sel, step, &out);
		break;
	}
	case ZR_SOURCE: {
		const char *fn = zr_param(&q->r, "function");

		if (!fn || !*fn) {
			snprintf(q->err, sizeof(q->err), "give function=NAME");
			code = 400;
			goto bad;
		}
		rc = zs_query_source(h->store, sel, fn, &out);
		break;
	}
	default:
		rc = -EINVAL;
		break;
	}
	if (heavy)
		heavy_leave(h);
	heavy = 0;
	zs_selection_release(sel);
	free(sel);
	if (selb)
		zs_selection_release(selb);
	free(selb);
	if (rc)
		goto store_err;
send:
	if (out.err) {
		zbuf_release(&out);
		return fail(q, con, 503, "out of memory: try a smaller selection");
	}
	return send_zbuf(q, con, 200, ctype, &out);
bad:
	if (heavy)
		heavy_leave(h);
	if (sel)
		zs_selection_release(sel);
	if (selb)
		zs_selection_release(selb);
	free(sel);
	free(selb);
	zbuf_release(&out);
	return send_error(q, con, code, NULL);
store_err:
	zbuf_release(&out);
	return store_error(q, con, rc,
			   q->r.route == ZR_SYMBOL_GET || q->r.route == ZR_SYMBOL_HEAD
				   ? "symbols (upload them with zt push or zt symbols upload)"
			   : q->r.route == ZR_PROFILE_GET || q->r.route == ZR_PROFILE_DELETE
				   ? "profile"
				   : "query");
}

/* ---- uploads ------------------------------------------------------------------------ */


static void set_fail(struct zh_req *q, unsigned code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_fail(struct zh_req *q, unsigned code, const char *fmt, ...)
{
	va_list ap;

	if (q->fail)
		return;
	q->fail = code;
	va_start(ap, fmt);
	vsnprintf(q->err, sizeof(q->err), fmt, ap);
	va_end(ap);
}

static void too_large(struct zh_req *q)
{
	set_fail(q, 413, "body larger than %" PRIu64 " bytes%s", q->limit,
		 q->r.route == ZR_SYMBOLS_MISSING ? "" : " decoded: see zt serve --max-body");
}

/* past the decoded bytes it may have (q->dlimit) */
static void too_large_decoded(struct zh_req *q)
{
	if (q->dlimit == q->limit)
		too_large(q);
	else
		set_fail(q, 413, "body larger than %" PRIu64 " bytes decoded: see zt serve %s",
			 q->dlimit, q->dlimit_opt);
}

/* decoded bytes to the file or memory */
static void sink(struct zh_req *q, const void *p, size_t n)
{
	int rc;

	if (q->fail || !n)
		return;
	if (n > q->dlimit - q->decoded) {
		too_large_decoded(q);
		return;
	}
	q->decoded += n;
	if (q->fd < 0) {
		zbuf_put(&q->mem, p, n);
		if (q->mem.err)
			set_fail(q, 503, "out of memory");
		return;
	}
	rc = zt_write_all(q->fd, p, n);
	if (rc == -ENOSPC || rc == -EDQUOT)
		set_fail(q, 507, "the server's disk is full: try again later, or ask its operator");
	else if (rc)
		set_fail(q, 500, "cannot write the upload: %s", strerror(-rc));
}

static void consume(struct zh_req *q, const char *data, size_t n)
{
	unsigned char out[65536];

	if (q->fail)
		return;
	if (q->enc == ENC_NONE) {
		sink(q, data, n);
		return;
	}
	if (q->enc == ENC_GZIP) {
		q->zs.next_in = (unsigned char *)data;
		q->zs.avail_in = (uInt)n;
		while (q->zs.avail_in && !q->fail) {
			int zr;

			if (q->z_end) { /* concatenated gzip members */
				if (inflateReset(&q->zs) != Z_OK) {
					set_fail(q, 400, "bad gzip content-encoding");
					return;
				}
				q->z_end = 0;
			}
			q->zs.next_out = out;
			q->zs.avail_out = sizeof(out);
			zr = inflate(&q->zs, Z_NO_FLUSH);
			if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
				set_fail(q, 400, "bad gzip content-encoding: %s",
					 q->zs.msg ? q->zs.msg : "corrupt data");
				return;
			}
			sink(q, out, sizeof(out) - q->zs.avail_out);
			if (zr == Z_STREAM_END)
				q->z_end = 1;
			else if (zr == Z_BUF_ERROR && q->zs.avail_out)
				break;
		}
		return;
	}
	{
		ZSTD_inBuffer in = {data, n, 0};

		while (in.pos < in.size && !q->fail) {
			ZSTD_outBuffer ob = {out, sizeof(out), 0};
			size_t zr = ZSTD_decompressStream(q->zd, &ob, &in);

			if (ZSTD_isError(zr)) {
				if (ZSTD_getErrorCode(zr) == ZSTD_error_frameParameter_windowTooLarge)
					set_fail(q, 413, "zstd content-encoding with a window over "
							 "8 MiB: compress at level 19 or lower, "
							 "without --long");
				else
					set_fail(q, 400, "bad zstd content-encoding: %s",
						 ZSTD_getErrorName(zr));
				return;
			}
			q->zd_last = zr;
			sink(q, out, ob.pos);
		}
		/* flush what the decoder still holds */
		while (!q->fail && q->zd_last) {
			ZSTD_outBuffer ob = {out, sizeof(out), 0};
			size_t zr = ZSTD_decompressStream(q->zd, &ob, &in);

			if (ZSTD_isError(zr)) {
				set_fail(q, 400, "bad zstd content-encoding: %s",
					 ZSTD_getErrorName(zr));
				return;
			}
			q->zd_last = zr;
			sink(q, out, ob.pos);
			if (!ob.pos)
				break;
		}
	}
}

static void body_release(struct zh_req *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	if (q->tmp[0])
		unlink(q->tmp);
	q->tmp[0] = '\0';
	if (q->zs_init)
		inflateEnd(&q->zs);
	q->zs_init = 0;
	if (q->zd) {
		ZSTD_freeDStream(q->zd);
		q->zd = NULL;
		__atomic_sub_fetch(&q->h->decoders, 1, __ATOMIC_RELAXED);
	}
	zbuf_release(&q->mem);
}

/* A symbol file's upload before its body is read: the store takes it
 * (a debug file or source only for an id it has symbols or an executable
 * for, within its limits), and q->dlimit comes down to what it may have.
 * declared: Content-Length (0: none). 0 or an HTTP status (q->err set). */
static unsigned symbol_admit(struct zh_req *q, uint64_t declared)
{
	const char *opt = NULL;
	uint64_t limit = 0;
	int rc = zs_symfile_admit(q->h->store, q->r.id, q->r.kind, q->r.src, declared, &limit, &opt,
				  q->err, sizeof(q->err));

	switch (rc) {
	case 0:
		if (limit < q->dlimit) {
			q->dlimit = limit;
			q->dlimit_opt = opt;
		}
		return 0;
	case -ENOENT: /* upload what names the id first */
		return 409;
	case -EFBIG:
		return 413;
	case -EINVAL:
		return 400;
	default:
		snprintf(q->err, sizeof(q->err), "the store failed (%s): see the server's log",
			 strerror(-rc));
		return 500;
	}
}

/* Headers of an upload: sizes, encoding, the sink. 0 or an HTTP status (q->err set). */
static unsigned body_begin(struct zh_req *q, struct MHD_Connection *con)
{
	const char *cl =
		mh.lookup_connection_value(con, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *ce =
		mh.lookup_connection_value(con, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_ENCODING);
	struct zh *h = q->h;
	uint64_t declared = 0;
	unsigned code;

	q->limit = q->r.route == ZR_SYMBOLS_MISSING ? MISSING_MAX_BODY : h->o.max_body;
	q->dlimit = q->limit;
	q->dlimit_opt = "--max-body";
	if (cl) {
		uint64_t n;

		if (zr_parse_u64(cl, UINT64_MAX, &n)) {
			snprintf(q->err, sizeof(q->err), "bad Content-Length");
			return 400;
		}
		if (n > q->limit) {
			snprintf(q->err, sizeof(q->err),
				 "body of %" PRIu64 " bytes, larger than the %" PRIu64
				 " this server takes%s",
				 n, q->limit,
				 q->r.route == ZR_SYMBOLS_MISSING ? "" : " (zt serve --max-body)");
			return 413;
		}
		declared = n;
	}
	/* the body of a compressed upload is its encoded size: only the
	 * decoded bytes are held to the symbol store's limits */
	if ((q->r.route == ZR_SYMBOL_PUT || q->r.route == ZR_SYMFILE_PUT) &&
	    (code = symbol_admit(q, ce && *ce && strcasecmp(ce, "identity") ? 0 : declared)))
		return code;
	if (!ce || !*ce || !strcasecmp(ce, "identity")) {
		q->enc = ENC_NONE;
	} else if (!strcasecmp(ce, "gzip") || !strcasecmp(ce, "x-gzip")) {
		q->enc = ENC_GZIP;
		memset(&q->zs, 0, sizeof(q->zs));
		if (inflateInit2(&q->zs, 15 + 16) != Z_OK) {
			snprintf(q->err, sizeof(q->err), "out of memory");
			return 503;
		}
		q->zs_init = 1;
	} else if (!strcasecmp(ce, "zstd")) {
		q->enc = ENC_ZSTD;
		/* each decoder may hold an 8 MiB window: a bounded number at once */
		if (__atomic_add_fetch(&h->decoders, 1, __ATOMIC_RELAXED) > MAX_DECODERS) {
			__atomic_sub_fetch(&h->decoders, 1, __ATOMIC_RELAXED);
			snprintf(q->err, sizeof(q->err),
				 "%u zstd uploads are being decoded already: try again", MAX_DECODERS);
			return 503;
		}
		q->zd = ZSTD_createDStream();
		if (!q->zd || ZSTD_isError(ZSTD_initDStream(q->zd))) {
			__atomic_sub_fetch(&h->decoders, 1, __ATOMIC_RELAXED);
			ZSTD_freeDStream(q->zd);
			q->zd = NULL;
			snprintf(q->err, sizeof(q->err), "out of memory");
			return 503;
		}
		/* no window larger than 8 MiB (zstd -19's), whatever the frame asks for */
		ZSTD_DCtx_setParameter(q->zd, ZSTD_d_windowLogMax, 23);
	} else {
		snprintf(q->err, sizeof(q->err),
			 "unknown Content-Encoding: send the body as is, or zstd or gzip");
		return 415;
	}
	if (q->r.route == ZR_SYMBOLS_MISSING)
		return 0;
	snprintf(q->tmp, sizeof(q->tmp), "%s/upload-XXXXXX", zs_store_tmpdir(h->store));
	q->fd = mkostemp(q->tmp, O_CLOEXEC); /* O_CREAT | O_EXCL, 0600 */
	if (q->fd < 0) {
		int e = errno;

		q->tmp[0] = '\0';
		snprintf(q->err, sizeof(q->err), "cannot store the upload: %s", strerror(e));
		return e == ENOSPC || e == EDQUOT ? 507 : 500;
	}
	return 0;
}

static unsigned symbol_headers(struct zh_req *q, struct MHD_Connection *con)
{
	const char *ql = mh.lookup_connection_value(con, MHD_HEADER_KIND, "X-ZT-Symbol-Quality");
	const char *ld = mh.lookup_connection_value(con, MHD_HEADER_KIND, "X-ZT-Symbol-Load");
	const char *desc = mh.lookup_connection_value(con, MHD_HEADER_KIND, "X-ZT-Description");
	const char *file = mh.lookup_connection_value(con, MHD_HEADER_KIND, "X-ZT-Symbol-File");
	/* not said: what the image holds (server/symq.h) */
	int qv = ql ? zr_symbol_quality(ql) : -1;

	memset(&q->meta, 0, sizeof(q->meta));
	if (ql && qv < 0) {
		snprintf(q->err, sizeof(q->err), "bad X-ZT-Symbol-Quality: full, basic or none");
		return 400;
	}
	q->meta.quality = qv;
	if (desc && *desc) {
		if (zr_pct_text(desc, ZR_MAX_DESCRIPTION, 0, q->desc, sizeof(q->desc))) {
			snprintf(q->err, sizeof(q->err),
				 "bad X-ZT-Description: percent-escaped UTF-8, at most %d bytes, "
				 "no control characters",
				 ZR_MAX_DESCRIPTION);
			return 400;
		}
		q->meta.description = q->desc;
	}
	if (file && *file) {
		if (zr_pct_text(file, ZR_MAX_SYMBOL_FILE, 1, q->file, sizeof(q->file))) {
			snprintf(q->err, sizeof(q->err),
				 "bad X-ZT-Symbol-File: a percent-escaped file name, at most %d "
				 "bytes",
				 ZR_MAX_SYMBOL_FILE);
			return 400;
		}
		q->meta.file = q->file;
	}
	if (ld && *ld && zs_symbol_meta_parse_load(ld, &q->meta)) {
		snprintf(
			q->err, sizeof(q->err),
			"bad X-ZT-Symbol-Load: OFF:VADDR:SIZE in hex, comma-separated, at most 16");
		return 400;
	}
	return 0;
}

/* The answer to a stored upload: {"id":..,"created":..} and for a GSYM the
 * quality stored and, when it replaced symbols, theirs ("replaced"). */
static void put_answer(struct zbuf *out, const char *id, const struct zs_symbol_put *put, int gsym)
{
	zbuf_put(out, "{\"id\":", 6);
	zbuf_put_json_str(out, id);
	zbuf_put(out, put->created ? ",\"created\":true" : ",\"created\":false",
		 put->created ? 15 : 16);
	if (gsym) {
		zbuf_put(out, ",\"quality\":", 11);
		zbuf_put_json_str(out, zs_quality_name(put->quality));
		if (put->had >= 0) {
			zbuf_put(out, ",\"replaced\":", 12);
			zbuf_put_json_str(out, zs_quality_name(put->had));
		}
	}
	zbuf_put(out, "}\n", 2);
}

static enum MHD_Result body_end(struct zh_req *q, struct MHD_Connection *con)
{
	struct zh *h = q->h;
	struct zbuf out;
	char msg[256] = "";
	int rc;

	conn_phase(h, con, ZC_WORK);
	if (!q->fail && q->enc == ENC_GZIP && !q->z_end)
		set_fail(q, 400, "truncated gzip content-encoding");
	if (!q->fail && q->enc == ENC_ZSTD && q->zd_last)
		set_fail(q, 400, "truncated zstd content-encoding");
	if (!q->fail && q->fd >= 0) {
		if (close(q->fd)) {
			int e = errno;

			set_fail(q, e == ENOSPC || e == EDQUOT ? 507 : 500,
				 "cannot write the upload: %s", strerror(e));
		}
		q->fd = -1;
	}
	if (q->fail) {
		if (!q->drain) /* a refusal before the body counted already, or is no upload's */
			add(&h->ingest_errors, 1);
		body_release(q);
		return send_error(q, con, q->fail, NULL);
	}
	zbuf_init(&out);
	if (q->r.route == ZR_SYMBOLS_MISSING) {
		const char *want =
			mh.lookup_connection_value(con, MHD_HEADER_KIND, "X-ZT-Want-Quality");
		int wq = want ? zr_symbol_quality(want) : -1;

		if (want && wq < 0) {
			zbuf_release(&q->mem);
			return fail(q, con, 400, "bad X-ZT-Want-Quality: full, basic or none");
		}
		rc = zs_symbols_below(h->store, (const char *)q->mem.data, q->mem.len, wq, &out,
				      msg, sizeof(msg));
		zbuf_release(&q->mem);
		if (rc == -EINVAL || rc == -E2BIG)
			return fail(q, con, rc == -E2BIG ? 413 : 400, "%s",
				    msg[0] ? msg : "at most 100000 ids, one per line");
		if (rc)
			return store_error(q, con, rc, "symbols");
		return send_zbuf(q, con, 200, "text/plain; charset=utf-8", &out);
	}
	if (q->r.route == ZR_SYMBOL_PUT || q->r.route == ZR_SYMFILE_PUT) {
		struct zs_symbol_put put = {0, -1, -1};

		if (q->r.route == ZR_SYMBOL_PUT)
			rc = zs_symbol_put_file(h->store, q->r.id, q->tmp, &q->meta, q->only_new,
						&put, msg, sizeof(msg));
		else
			rc = zs_symfile_put(h->store, q->r.id, q->r.kind, q->r.src, q->tmp,
					    q->only_new, &put.created, msg, sizeof(msg));
		q->tmp[0] = '\0'; /* taken over */
		switch (rc) {
		case 0:
			put_answer(&out, q->r.id, &put, q->r.route == ZR_SYMBOL_PUT);
			return send_zbuf(q, con, put.created ? 201 : 200, "application/json", &out);
		case -EEXIST:
			if (q->r.route == ZR_SYMBOL_PUT && put.had >= 0) {
				q->kept = zs_quality_name(put.had);
				return fail(q, con, 412, "%s", msg);
			}
			return fail(q, con, 412, "the %s of %s is already stored",
				    zs_kind_name(q->r.kind), q->r.id);
		case -ENOENT: /* a debug file or source of an id the store has nothing for */
			return fail(q, con, 409, "%s",
				    msg[0] ? msg : "upload the symbols or executable first");
		case -EFBIG:
			return fail(q, con, 413, "%s",
				    msg[0] ? msg : "past a limit of the symbol store");
		case -EBADMSG:
		case -EINVAL:
			add(&h->ingest_errors, 1);
			return fail(q, con, 400, "%s",
				    msg[0] ? msg : "not a GSYM v1 image of this id");
		case -EREMOTEIO:
			return fail(q, con, 503, "%s",
				    msg[0] ? msg : "the remote symbol store failed: try again later");
		case -ENOSPC:
		case -EDQUOT:
			return fail(q, con, 507, "the server's disk is full: try again later");
		default:
			return store_error(q, con, rc, "symbols");
		}
	}
	/* POST a profile */
	{
		struct zs_label labels[ZS_SEL_MAX_LABELS + 1];
		struct zs_ingest_result res;
		size_t nl = 0;
		unsigned code;

		code = (unsigned)zr_labels(&q->r, labels, &nl, q->err, sizeof(q->err));
		if (!code) {
			const char *pj = zr_param(&q->r, "project");

			if (pj && !zs_project_name_ok(pj)) {
				snprintf(q->err, sizeof(q->err),
					 "bad project: 1 to %d lowercase letters, digits, '-' and '_'",
					 ZS_PROJECT_MAX);
				code = 400;
			} else if (q->project[0] && pj && strcmp(pj, q->project)) {
				snprintf(q->err, sizeof(q->err), "this token's project is %s, not %s",
					 q->project, pj);
				code = 403;
			} else {
				pj = q->project[0] ? q->project : pj ? pj : ZS_DEFAULT_PROJECT;
				if (!zs_project_known(h->store, pj)) {
					snprintf(q->err, sizeof(q->err),
						 "no project %s: create it with 'zt serve project "
						 "create %s'",
						 pj, pj);
					code = 404;
				} else {
					labels[nl].key = ZS_PROJECT_LABEL;
					labels[nl++].value = pj;
				}
			}
		}
		if (code) {
			body_release(q);
			return send_error(q, con, code, NULL);
		}
		memset(&res, 0, sizeof(res));
		q->heavy_done = 1;
		if (heavy_enter(h)) {
			body_release(q);
			return fail(q, con, 503,
				    "the server is busy with %u other ingests and queries: the "
				    "profile was not stored, try again", h->o.threads);
		}
		rc = zs_ingest_file(h->store, q->tmp, labels, nl, &res, msg, sizeof(msg));
		heavy_leave(h);
		q->tmp[0] = '\0'; /* taken over */
		switch (rc) {
		case 0: {
			char line[200];
			int n = res.stored ? snprintf(line, sizeof(line),
						      "{\"id\":\"%s\",\"stored\":true,\"samples\":"
						      "%" PRIu64 "}\n",
						      res.id, res.samples)
					   : snprintf(line, sizeof(line),
						      "{\"id\":\"%s\",\"stored\":false,\"samples\":"
						      "%" PRIu64 ",\"labels_added\":%u}\n",
						      res.id, res.samples, res.labels_added);

			if (res.stored)
				add(&h->ingested, 1);
			zbuf_put(&out, line, (size_t)n);
			return send_zbuf(q, con, res.stored ? 201 : 200, "application/json", &out);
		}
		case -EBADMSG:
		case -EPROTONOSUPPORT:
		case -EINVAL:
			add(&h->ingest_errors, 1);
			return fail(q, con, 400, "%s", msg[0] ? msg : "bad profile");
		case -EMEDIUMTYPE:
			add(&h->ingest_errors, 1);
			return fail(q, con, 415, "%s",
				    msg[0] ? msg : "not a zt.data or pprof profile");
		case -ENOSPC:
		case -EDQUOT:
			add(&h->ingest_errors, 1);
			return fail(q, con, 507, "the server's disk is full: try again later");
		case -EFBIG:
		case -E2BIG:
			add(&h->ingest_errors, 1);
			return fail(q, con, 413, "%s", msg[0] ? msg : "profile too large");
		case -EAGAIN:
		case -ECONNREFUSED: /* ClickHouse down or busy: nothing acknowledged */
			add(&h->ingest_errors, 1);
			return fail(q, con, 503, "the profile was not stored, try again: %s", msg);
		default:
			add(&h->ingest_errors, 1);
			return fail(q, con, 500, "cannot store the profile (%s)%s%s", strerror(-rc),
				    msg[0] ? ": " : "", msg);
		}
	}
}

/* ---- the access handler -------------------------------------------------------------- */

static unsigned check_auth(struct zh_req *q, struct MHD_Connection *con, int inm_star)
{
	struct zh *h = q->h;
	unsigned need = zr_scopes(q->r.route, h->o.public_read, inm_star), have;
	const char *a, *t;
	size_t n;

	if (!need)
		return 0;
	a = mh.lookup_connection_value(con, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	if (!a) {
		snprintf(q->err, sizeof(q->err),
			 "a token is needed: send 'Authorization: Bearer TOKEN' (zt serve token "
			 "create)");
		return 401;
	}
	if ((q->r.route == ZR_BUILDID || need == ZS_SCOPE_READ) && !strncasecmp(a, "Basic ", 6)) {
		/* clients that take the token from the URL (http://zt:TOKEN@host:port):
		 * debuginfod ones that cannot send a header (libdebuginfod
		 * before 0.189), go tool pprof; the token as the password, for
		 * reads only */
		unsigned char dec[400];
		const char *colon;
		int dl;

		for (t = a + 6; *t == ' '; t++)
			;
		n = strlen(t);
		dl = n && n <= 4 * 96 && n % 4 == 0
			     ? EVP_DecodeBlock(dec, (const unsigned char *)t, (int)n)
			     : -1;
		while (dl > 0 && t[n - 1] == '=' && n--)
			dl--;
		dec[dl > 0 ? dl : 0] = '\0';
		colon = dl > 0 ? memchr(dec, ':', (size_t)dl) : NULL;
		have = colon ? zs_token_check_in(h->store, colon + 1,
						 (size_t)dl - (size_t)(colon + 1 - (char *)dec),
						 q->project)
			     : 0;
		explicit_bzero(dec, sizeof(dec));
	} else if (strncasecmp(a, "Bearer ", 7)) {
		snprintf(q->err, sizeof(q->err), "send the token as 'Authorization: Bearer TOKEN'");
		return 401;
	} else {
		for (t = a + 7; *t == ' '; t++)
			;
		n = strlen(t);
		while (n && t[n - 1] == ' ')
			n--;
		have = n && n <= 256 ? zs_token_check_in(h->store, t, n, q->project) : 0;
	}
	if (!have) {
		snprintf(q->err, sizeof(q->err),
			 "unknown token: check it, or create one with "
			 "'zt serve token create'");
		return 401;
	}
	if (!zr_scope_ok(have, need)) {
		snprintf(q->err, sizeof(q->err),
			 "this token may not do this: it needs the %s scope",
			 need & ZS_SCOPE_READ ? "read"
			 : need & ZS_SCOPE_PUSH
				 ? (q->r.route == ZR_SYMBOL_PUT
					    ? "symbols (or push with If-None-Match: *)"
					    : "push")
			 : need & ZS_SCOPE_SYMBOLS ? "symbols"
						   : "admin");
		return 403;
	}
	return 0;
}

/*
 * Refuse a request before its body. An answer sent before the body is read
 * can be lost: the kernel resets a connection closed with unread data, and
 * the client's copy of the answer goes with it. So a body of at most
 * DRAIN_MAX bytes (or a chunked one, until it passes that) is read and
 * dropped, nothing of it kept, and the answer goes at its end; a larger one
 * is answered at once and the connection closed.
 */
static enum MHD_Result refuse(struct zh_req *q, struct MHD_Connection *con, unsigned code)
{
	const char *cl =
		mh.lookup_connection_value(con, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	uint64_t n = 0;

	body_release(q);
	if (!zr_has_body(q->r.route) || (cl && (zr_parse_u64(cl, UINT64_MAX, &n) || n > DRAIN_MAX)))
		return send_error(q, con, code, NULL);
	q->fail = code;
	q->drain = 1;
	q->limit = DRAIN_MAX;
	q->enc = ENC_NONE;
	conn_phase(q->h, con, ZC_BODY);
	return MHD_YES;
}

static enum MHD_Result begin(struct zh_req *q, struct MHD_Connection *con, const char *method)
{
	struct zh *h = q->h;
	const char *allow = NULL;
	unsigned code;
	int inm_star = 0;

	snprintf(q->method, sizeof(q->method), "%s", method);
	if (__atomic_load_n(&h->shutting, __ATOMIC_RELAXED)) {
		snprintf(q->err, sizeof(q->err), "the server is shutting down: try again");
		return send_error(q, con, 503, NULL);
	}
	if (!q->uri)
		return fail(q, con, 414, "request target too long");
	code = (unsigned)zr_parse(method, q->uri, q->uri_len, &q->r, &allow, q->err,
				  sizeof(q->err));
	if (code)
		return send_error(q, con, code, allow);
	if (q->r.route == ZR_SYMBOL_PUT || q->r.route == ZR_SYMFILE_PUT) {
		const char *inm = mh.lookup_connection_value(con, MHD_HEADER_KIND,
							      MHD_HTTP_HEADER_IF_NONE_MATCH);

		inm_star = inm && !strcmp(inm, "*");
		q->only_new = inm_star;
	}
	code = check_auth(q, con, inm_star);
	if (code)
		return refuse(q, con, code);
	conn_phase(h, con, zr_has_body(q->r.route) ? ZC_BODY : ZC_WORK);
	if (!zr_has_body(q->r.route))
		return do_get(q, con);
	if (q->r.route == ZR_SYMBOL_PUT) {
		code = symbol_headers(q, con);
		if (code)
			return refuse(q, con, code);
	}
	code = body_begin(q, con);
	if (code) {
		add(&h->ingest_errors, 1);
		return refuse(q, con, code);
	}
	return MHD_YES; /* read the body */
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *con, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct zh_req *q = *con_cls;

	(void)cls;
	(void)url;
	(void)version;
	if (!q)
		return MHD_NO;
	if (!q->started) {
		q->started = 1;
		return begin(q, con, method);
	}
	if (q->answered) { /* the body of a refused request: dropped */
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (*upload_data_size) {
		size_t n = *upload_data_size;

		q->bytes_in += n;
		*upload_data_size = 0;
		{
			struct zconn *c = conn_of(con);

			if (c)
				__atomic_add_fetch(&c->body_in, n, __ATOMIC_RELAXED);
		}
		if (q->bytes_in > q->limit) {
			/* more on the wire than any body may have (chunked, or a
			 * compressed stream): libmicrohttpd 0.9 cannot answer
			 * before the body is read, so the connection is closed */
			if (!q->fail)
				add(&q->h->ingest_errors, 1);
			too_large(q);
			body_release(q);
			q->code = 0;
			return MHD_NO;
		}
		/* after an error the rest is read and dropped (at most the
		 * limit): the answer goes out at the end */
		consume(q, upload_data, n);
		return MHD_YES;
	}
	return body_end(q, con);
}

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *con)
{
	struct zh *h = cls;
	struct zh_req *q = calloc(1, sizeof(*q));
	size_t n;

	(void)con;
	if (!q)
		return NULL;
	q->h = h;
	q->t0 = now_ns();
	q->fd = -1;
	zbuf_init(&q->mem);
	n = strnlen(uri, ZR_MAX_TARGET + 1);
	if (n <= ZR_MAX_TARGET) {
		q->uri = malloc(n + 1);
		if (q->uri) {
			memcpy(q->uri, uri, n);
			q->uri[n] = '\0';
			q->uri_len = n;
		}
	}
	add(&h->in_flight, 1);
	return q;
}

static void client_text(struct MHD_Connection *con, char *out, size_t len)
{
	const union MHD_ConnectionInfo *ci =
		mh.get_connection_info(con, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	char a[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (ci && ci->client_addr) {
		const struct sockaddr *sa = ci->client_addr;

		if (sa->sa_family == AF_INET) {
			const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

			inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
			port = ntohs(s4->sin_port);
		} else if (sa->sa_family == AF_INET6) {
			const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

			inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
			port = ntohs(s6->sin6_port);
		}
	}
	snprintf(out, len, "%s:%u", a, port);
}

static void on_completed(void *cls, struct MHD_Connection *con, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct zh *h = cls;
	struct zh_req *q = *con_cls;
	char client[80];
	const char *end;
	int heavy;

	if (!q)
		return;
	heavy = q->heavy_done;
	*con_cls = NULL;
	switch (toe) {
	case MHD_REQUEST_TERMINATED_COMPLETED_OK:
		end = "ok";
		break;
	case MHD_REQUEST_TERMINATED_TIMEOUT_REACHED:
		end = "timeout";
		add(&h->timeouts, 1);
		break;
	case MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN:
		end = "shutdown";
		break;
	case MHD_REQUEST_TERMINATED_CLIENT_ABORT:
		end = "closed by client";
		break;
	default:
		end = "error";
		break;
	}
	if (q->started) { /* a request line MHD refused on its own is not ours to log */
		add(&h->requests, 1);
		add(&h->bytes_in, q->bytes_in);
		if (q->code && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
			add(&h->bytes_out, q->bytes_out);
		if (q->code < MAX_CODE)
			add(&h->codes[q->code], 1);
		if (h->o.access_log) {
			struct zh_access a;

			client_text(con, client, sizeof(client));
			a.client = client;
			a.method = q->method[0] ? q->method : "-";
			a.path = q->r.path[0] ? q->r.path : "-";
			a.code = q->code;
			a.end = end;
			a.bytes_in = q->bytes_in;
			a.bytes_out = q->code && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK
					      ? q->bytes_out
					      : 0;
			a.ms = (double)(now_ns() - q->t0) / 1e6;
			a.error = q->code >= 400 && q->err[0] ? q->err : NULL;
			h->o.access_log(h->o.log_ctx, &a);
		}
	}
	body_release(q);
	zr_request_release(&q->r);
	free(q->uri);
	free(q);
	if (heavy)
		release_arenas(h);
	conn_phase(h, con, ZC_HEAD); /* the next request's head, on a kept-alive connection */
	__atomic_sub_fetch(&h->in_flight, 1, __ATOMIC_RELEASE);
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct zh *h = cls;
	char line[512];
	size_t n;

	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '.'))
		line[--n] = '\0';
	if (h->starting)
		snprintf(h->start_err, sizeof(h->start_err), "%s", line);
	if (h->o.error_log)
		h->o.error_log(h->o.log_ctx, line);
}

/* ---- lifecycle -------------------------------------------------------------------------- */

/* Stop the watcher and free h (the daemon stopped: no connection is left). */
static void zh_free(struct zh *h)
{
	if (h->watching) {
		pthread_mutex_lock(&h->clock);
		h->watching = 0;
		pthread_cond_signal(&h->wcond);
		pthread_mutex_unlock(&h->clock);
		pthread_join(h->watcher, NULL);
	}
	pthread_mutex_destroy(&h->clock);
	pthread_mutex_destroy(&h->hlock);
	pthread_cond_destroy(&h->wcond);
	pthread_cond_destroy(&h->hcond);
	free(h);
}

int zh_start(const struct zh_opts *o, struct zh **out, char *msg, size_t msglen)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct zh *h;
	struct MHD_OptionItem opts[16];
	/* a thread per connection: a cheap request never waits for another
	 * connection's work; heavy work is bounded apart (heavy_enter) */
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			 MHD_USE_POLL | MHD_USE_ITC | MHD_USE_ERROR_LOG;
	pthread_condattr_t ca;
	const union MHD_DaemonInfo *di;
	size_t n = 0;

	*out = NULL;
	if (!o->store || zr_parse_listen(o->listen, &ss, &sl)) {
		snprintf(msg, msglen,
			 "bad listen address '%s': give HOST:PORT with a numeric host "
			 "(127.0.0.1:7070, [::1]:7070)",
			 o->listen ? o->listen : "");
		return -EINVAL;
	}
#if defined(__GLIBC__)
	/* what a request frees stays in its arena for the next one, up to
	 * ZH_KEEP_FREE (release_arenas() and the watcher give it back):
	 * glibc's own trimming at each free, and blocks of 128 KiB and more
	 * mapped apart, would fault every query's memory in anew */
	mallopt(M_TRIM_THRESHOLD, (int)ZH_KEEP_FREE);
	mallopt(M_MMAP_THRESHOLD, (int)ZH_KEEP_FREE);
#endif
	if ((o->tls_cert != NULL) != (o->tls_key != NULL)) {
		snprintf(msg, msglen, "TLS needs both a certificate and a key");
		return -EINVAL;
	}
	pthread_once(&mh_once, mh_load);
	if (!mh.ok) {
		snprintf(msg, msglen, "%s", mh.why);
		return -ENOSYS;
	}
	if (o->tls_cert && mh.is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		snprintf(msg, msglen, "this libmicrohttpd has no TLS support: use a TLS proxy");
		return -ENOTSUP;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	h->o = *o;
	h->store = o->store;
	if (!h->o.max_body)
		h->o.max_body = DEFAULT_MAX_BODY;
	if (!h->o.threads)
		h->o.threads = 2;
	if (h->o.threads > 64)
		h->o.threads = 64;
	if (!h->o.max_conns)
		h->o.max_conns = 256;
	if (!h->o.timeout_s)
		h->o.timeout_s = 30;
	if (!h->o.header_timeout_s)
		h->o.header_timeout_s = 20;
	if (!h->o.min_body_rate)
		h->o.min_body_rate = 1024;
	if (!h->o.max_conns_per_client)
		h->o.max_conns_per_client = 64;
	if (h->o.max_conns_per_client > h->o.max_conns)
		h->o.max_conns_per_client = h->o.max_conns;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (o->tls_cert)
		flags |= MHD_USE_TLS;

	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, &ss};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, h->o.max_conns, NULL};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT,
					    h->o.max_conns_per_client, NULL};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, h};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, h->o.timeout_s, NULL};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONN_MEMORY, NULL};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, h};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)on_uri, h};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)on_mhd_log, h};
	if (o->tls_cert) {
		opts[n++] =
			(struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)o->tls_cert};
		opts[n++] =
			(struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)o->tls_key};
	}
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&h->clock, NULL);
	pthread_mutex_init(&h->hlock, NULL);
	pthread_cond_init(&h->wcond, &ca);
	pthread_cond_init(&h->hcond, &ca);
	pthread_condattr_destroy(&ca);
	h->watching = 1;
	if (pthread_create(&h->watcher, NULL, watch, h)) {
		snprintf(msg, msglen, "cannot start a thread");
		h->watching = 0;
		zh_free(h);
		return -EAGAIN;
	}
	h->starting = 1;
	h->d = mh.start_daemon(flags, 0, NULL, NULL, on_request, h, MHD_OPTION_ARRAY, opts,
				MHD_OPTION_END);
	h->starting = 0;
	if (!h->d) {
		snprintf(msg, msglen, "cannot serve on %s: %s", o->listen,
			 h->start_err[0] ? h->start_err : "libmicrohttpd refused to start");
		zh_free(h);
		return -EADDRNOTAVAIL;
	}
	di = mh.get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = di ? di->port : 0;
	*out = h;
	return 0;
}

unsigned zh_port(const struct zh *h)
{
	return h->port;
}

void zh_counters(struct zh *h, struct zh_counters *c)
{
	c->requests = get(&h->requests);
	c->bytes_in = get(&h->bytes_in);
	c->bytes_out = get(&h->bytes_out);
	c->ingested = get(&h->ingested);
	c->ingest_errors = get(&h->ingest_errors);
	c->in_flight = get(&h->in_flight);
}

unsigned zh_stop(struct zh *h, unsigned grace_ms)
{
	MHD_socket lfd;
	uint64_t deadline;
	unsigned left;

	if (!h)
		return 0;
	__atomic_store_n(&h->shutting, 1, __ATOMIC_RELEASE);
	lfd = mh.quiesce_daemon(h->d);
	deadline = now_ns() + (uint64_t)grace_ms * 1000000ull;
	while (__atomic_load_n(&h->in_flight, __ATOMIC_ACQUIRE) && now_ns() < deadline) {
		struct timespec ts = {0, 10 * 1000000};

		nanosleep(&ts, NULL);
	}
	left = (unsigned)__atomic_load_n(&h->in_flight, __ATOMIC_ACQUIRE);
	mh.stop_daemon(h->d);
	if (lfd != MHD_INVALID_SOCKET)
		close(lfd);
	zh_free(h);
	return left;
}
