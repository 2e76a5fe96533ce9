/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small HTTP client over libcurl for the team server (zt push, symbol
 * upload): one base URL, a bearer token, timeouts, bodies from memory, and
 * retries with jittered exponential backoff on connection errors, 5xx and
 * 429 (Retry-After honoured, capped), a bounded number of tries.
 *
 * Never prints: errors come back as a negative errno and a sentence in the
 * caller's buffer. The token goes into an Authorization header only: never
 * into a URL, a message or a log line; redirects are not followed (they
 * would carry it elsewhere). The same holds for the keys of a client that
 * signs its requests with AWS Signature Version 4 (S3) instead.
 *
 * Bodies come from memory or stream from a file; answers go to memory (a
 * capped buffer) or, when successful, stream into a file.
 *
 * An https server's certificate is always verified: against the CA
 * certificates the options name, else those the environment names as the
 * curl tool reads it (zt_http_ca_env(): libcurl itself reads none of
 * these variables), else libcurl's own (the system's).
 */
#ifndef ZT_NET_CLIENT_H
#define ZT_NET_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/zbuf.h"

struct zt_http_opts {
	const char *base_url;	 /* "http://host:port" (a trailing '/' is dropped); copied */
	const char *token;	 /* bearer token, or NULL; copied, wiped at zt_http_free() */
	long connect_timeout_ms; /* 0: 10 s */
	long timeout_ms;	 /* a whole request; 0: none (large uploads) */
	long low_speed_s;	 /* abort after this many seconds under 1 byte/s; 0: 60 */
	int tries;		 /* attempts of one request, at least 1; 0: 6 */
	int no_retry_timeout;	 /* an attempt that timed out is not retried */
	unsigned backoff_ms;	 /* first delay between attempts; 0: 500 ms */
	unsigned max_delay_ms;	 /* cap on a delay, a Retry-After too; 0: 30 s */
	/* upload progress of each attempt (sent, total bytes of the body), or NULL */
	void (*progress)(void *ctx, uint64_t sent, uint64_t total);
	void *progress_ctx;
	/* told before each retry: the attempt that failed (1...), the delay and
	 * why ("503 Service Unavailable", "connection refused"); or NULL */
	void (*on_retry)(void *ctx, int attempt, unsigned delay_ms, const char *why);
	void *retry_ctx;
	/* AWS Signature Version 4 instead of a token: libcurl's
	 * CURLOPT_AWS_SIGV4 string ("aws:amz:REGION:s3") and the key pair
	 * (access key id, secret key), all copied, the secret wiped at
	 * zt_http_free(); NULL: no signing. The caller sets the
	 * x-amz-content-sha256 header of each request: libcurl 7.88 hashes
	 * only in-memory bodies and signs every header given, an empty one
	 * too (so no "Expect:" line is added to a signed request). */
	const char *aws_sigv4;
	const char *aws_key_id;
	const char *aws_secret;
	/* The CA certificates that verify an https server: a PEM file of them
	 * (CURLOPT_CAINFO) and a directory of hashed ones (CURLOPT_CAPATH),
	 * copied. Both NULL: those of zt_http_ca_env(), else libcurl's. */
	const char *cainfo;
	const char *capath;
};

/*
 * The CA certificates the environment names, as the curl tool reads it:
 * $CURL_CA_BUNDLE (a file), else $SSL_CERT_FILE (a file) and $SSL_CERT_DIR
 * (a directory); an empty variable is not set. *file and *dir (NULL when
 * not named) point into the environment; *var (may be NULL) gets the name
 * of the variable of *file, else of *dir, else NULL. Returns whether one
 * is named.
 */
int zt_http_ca_env(const char **file, const char **dir, const char **var);

/* A request body streamed from a file, or where a successful answer goes. */
struct zt_http_file {
	int fd;	      /* borrowed */
	uint64_t len; /* an upload: its size (read with pread() from offset 0) */
};

struct zt_http_req {
	const char *method;	    /* "GET", "POST", "PUT", "HEAD", "DELETE" */
	const char *path;	    /* "/api/v1/..." with its query, appended to the base URL */
	const char *const *headers; /* more "Name: value" lines, NULL-terminated, or NULL */
	const void *body;	    /* borrowed, may be NULL */
	size_t len;
	size_t max_answer; /* cap on the answer's body kept; 0: 16 MiB */
	/* the body read from this file instead of body/len (again from its
	 * start at each attempt), or NULL; the method is PUT unless said */
	const struct zt_http_file *upload;
	/* a 2xx answer's body written to this file instead of resp->body (it
	 * is truncated at each attempt), or NULL; other answers' bodies still
	 * go to resp->body, capped */
	const struct zt_http_file *save;
};

struct zt_http_resp {
	long status;	  /* the HTTP status of the last answer */
	struct zbuf body; /* its body (at most max_answer bytes) */
	char etag[130];	  /* its ETag header, "" if none */
	long retry_after; /* its Retry-After in seconds, -1 if none */
	int64_t length;	  /* its Content-Length, -1 if none (a HEAD answer's too) */
	uint64_t saved;	  /* bytes written to req->save */
	int tries;	  /* attempts made */
	struct zbuf headers; /* its header lines as received (at most 64 KiB): zt_http_header() */
};

struct zt_http;

/* A client. Returns 0, -EINVAL (no or a bad base URL: msg says why), -ENOMEM. */
int zt_http_new(const struct zt_http_opts *o, struct zt_http **out, char *msg, size_t msglen);
void zt_http_free(struct zt_http *h); /* accepts NULL */

/* The base URL (without a trailing '/'). */
const char *zt_http_base(const struct zt_http *h);

void zt_http_resp_init(struct zt_http_resp *r);
void zt_http_resp_release(struct zt_http_resp *r);

/*
 * Send r, retrying as the options say. Returns 0 when an answer came (any
 * status: after the tries, the last 5xx or 429 answer is what resp holds),
 * else a negative errno with msg saying what happened on the last attempt
 * (libcurl's words):
 *   -ECONNREFUSED, -EHOSTUNREACH, -ETIMEDOUT, -ECONNRESET, -EIO  (retried)
 *   -EINVAL (bad URL), -ENOMEM                                   (not retried)
 *   -EPROTO       TLS could not be set up (a handshake failed)   (not retried)
 *   -EKEYREJECTED the server's certificate was not verified: not
 *                 signed by a CA trusted here, or not for this host,
 *                 or expired                                     (not retried)
 *   -ENOKEY       the CA certificates cannot be used: a file or
 *                 directory missing, unreadable, or with none    (not retried)
 *   the errno of reading req->upload or writing req->save         (not retried)
 */
int zt_http_request(struct zt_http *h, const struct zt_http_req *r, struct zt_http_resp *resp,
		    char *msg, size_t msglen);

/* The value of the last answer's header name (case-insensitive, blanks
 * around it trimmed) into out, cut to n - 1 bytes. 0, or -ENOENT. */
int zt_http_header(const struct zt_http_resp *r, const char *name, char *out, size_t n);

/* Whether a status is retried: 5xx and 429. */
int zt_http_retryable(long status);

/* s %-escaped for a URL, appended to out: RFC 3986's unreserved characters
 * and those in keep (may be NULL; "/+" for a path) kept, the rest as %XX. */
void zt_http_escape(struct zbuf *out, const char *s, const char *keep);

/*
 * The delay before attempt n+1 after n failed attempts (n >= 1): base * 2^(n-1),
 * capped at max, then jittered into [d/2, d] with rnd (any 64-bit random value).
 * A Retry-After (seconds, >= 0; -1: none) replaces it, capped at max.
 */
unsigned zt_http_backoff(unsigned base_ms, unsigned max_ms, int n, long retry_after, uint64_t rnd);

#endif
