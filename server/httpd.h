/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt serve's HTTP daemon (libmicrohttpd): API v1 over a store, with a thread
 * pool, connection and memory limits, timeouts, bearer tokens checked from
 * the headers before any body is read, uploads streamed to the store's tmp
 * directory (Content-Encoding zstd or gzip decoded on the fly, sizes
 * capped), /healthz, /metrics, the web page at /, optional TLS, and a
 * clean stop. Symbol files (GSYM, debug files, executables, sources) are
 * uploaded on /api/v1/symbols/ and served there and on the debuginfod
 * protocol's /buildid/ routes, streamed from their fd (ETag, 304). It
 * never prints: requests and errors go to the callbacks.
 */
#ifndef ZT_SERVER_HTTPD_H
#define ZT_SERVER_HTTPD_H

#include <stddef.h>
#include <stdint.h>

#include "server/store.h"

struct zh;

/* One answered request, for the access log. Strings borrowed for the call. */
struct zh_access {
	const char *client; /* "127.0.0.1:41234" */
	const char *method;
	const char *path;   /* the route's path ("/api/v1/profiles/ID"), never the query */
	unsigned code;	    /* 0: no answer was sent (connection closed, timeout) */
	const char *end;    /* "ok", "timeout", "closed by client", "error", "shutdown" */
	uint64_t bytes_in;  /* request body bytes received */
	uint64_t bytes_out; /* response body bytes */
	double ms;	    /* from the request line to the end */
	const char *error;  /* the JSON error's sentence, or NULL */
};

struct zh_opts {
	struct zs_store *store; /* borrowed; must outlive the daemon */
	const char *listen;	/* "127.0.0.1:7070" (route.h's zr_parse_listen) */
	int public_read;	/* reads need no token */
	/* PEM contents (not paths) of the TLS certificate chain and key; both
	 * NULL: plain HTTP */
	const char *tls_cert, *tls_key;
	uint64_t max_body;  /* largest upload, on the wire and decoded; 0: 512 MiB */
	unsigned threads;   /* queries and ingests at once (a thread each), 0: 2; at most 64 */
	unsigned max_conns; /* connections at once, a thread each; 0: 256 */
	unsigned max_conns_per_client; /* from one IP address; 0: 64 (at most max_conns) */
	unsigned timeout_s; /* idle connection timeout, and the longest wait for a query's
			     * turn; 0: 30 s */
	unsigned header_timeout_s; /* a request's line and headers within this, from the
				    * connection's start or its previous answer; also the
				    * grace before a body's rate counts; 0: 20 s */
	uint64_t min_body_rate;	   /* bytes a second a body must come at, on average after
				    * the grace; 0: 1024 */
	void (*access_log)(void *ctx, const struct zh_access *a); /* may be NULL */
	void (*error_log)(void *ctx, const char *msg);		  /* may be NULL */
	void *log_ctx;
};

/* Start serving. 0, or a negative errno with msg set (the address is in
 * use, TLS is not available, ...). */
int zh_start(const struct zh_opts *o, struct zh **out, char *msg, size_t msglen);
/* The port bound (useful with port 0). */
unsigned zh_port(const struct zh *h);
/* Stop: no new connections; requests that arrive on open connections get
 * 503; requests in flight (an ingest included) finish and are answered,
 * for at most grace_ms; then everything is closed and h freed. Returns
 * the number of requests still in flight when the grace ran out (0: a
 * clean stop). Accepts NULL. */
unsigned zh_stop(struct zh *h, unsigned grace_ms);

/* Counters, as /metrics shows them (for tests). */
struct zh_counters {
	uint64_t requests, bytes_in, bytes_out, ingested, ingest_errors, in_flight;
};
void zh_counters(struct zh *h, struct zh_counters *c);

/* The embedded web page (server/web/index.html, built into the binary). */
extern const unsigned char zt_web_index_html[];
extern const size_t zt_web_index_html_len;

#endif
