// SPDX-License-Identifier: GPL-2.0-or-later
/* A scripted HTTP server on loopback for the unit tests of the clients. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tests/unit/httpserv.h"

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static const char *reason(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 201:
		return "Created";
	case 400:
		return "Bad Request";
	case 401:
		return "Unauthorized";
	case 404:
		return "Not Found";
	case 429:
		return "Too Many Requests";
	case 503:
		return "Service Unavailable";
	default:
		return "Whatever";
	}
}

/* One request on c: its head, then Content-Length bytes of body. */
static void serve_one(struct server *s, int c, int i)
{
	const struct answer *a = &s->script[i];
	char buf[65536], out[2048];
	size_t blen = a->body ? (a->body_len ? a->body_len : strlen(a->body)) : 0;
	size_t n = 0, clen = 0, have;
	char *end = NULL, *l;
	ssize_t k;
	int m;

	while (n < sizeof(buf) - 1 && !end) {
		k = read(c, buf + n, sizeof(buf) - 1 - n);
		if (k <= 0)
			return;
		n += (size_t)k;
		buf[n] = 0;
		end = strstr(buf, "\r\n\r\n");
	}
	if (!end)
		return;
	s->at_ms[i] = now_ms();
	snprintf(s->first_line[i], sizeof(s->first_line[i]), "%.*s", (int)strcspn(buf, "\r\n"),
		 buf);
	for (l = buf; l && l < end; l = strstr(l, "\r\n") ? strstr(l, "\r\n") + 2 : NULL) {
		if (!strncasecmp(l, "Content-Length:", 15))
			clen = strtoul(l + 15, NULL, 10);
		if (!strncasecmp(l, "Authorization:", 14))
			snprintf(s->auth[i], sizeof(s->auth[i]), "%.*s",
				 (int)strcspn(l + 15, "\r\n"), l + 15);
	}
	have = n - (size_t)(end + 4 - buf);
	memmove(buf, end + 4, have);
	while (have < clen && have < sizeof(buf) - 1) {
		k = read(c, buf + have, sizeof(buf) - 1 - have);
		if (k <= 0)
			break;
		have += (size_t)k;
	}
	s->body_len[i] = have;
	snprintf(s->body[i], sizeof(s->body[i]), "%.*s", (int)have, buf);
	m = snprintf(out, sizeof(out),
		     "HTTP/1.1 %d %s\r\nContent-Length: %zu\r\nConnection: close\r\n%s\r\n",
		     a->status, reason(a->status), blen, a->headers ? a->headers : "");
	if (write(c, out, (size_t)m) != m)
		return;
	for (n = 0; n < blen; n += (size_t)k) {
		k = write(c, a->body + n, blen - n);
		if (k <= 0)
			return;
	}
}

static void *serve(void *arg)
{
	struct server *s = arg;
	int i;

	for (i = 0; i < s->nr_script; i++) {
		int c = accept(s->fd, NULL, NULL);

		if (c < 0)
			break;
		serve_one(s, c, i);
		s->served = i + 1;
		shutdown(c, SHUT_WR);
		close(c);
	}
	return NULL;
}

int listen_loopback(int *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 16), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

void server_start(struct server *s, const struct answer *script, int n)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->script, script, (size_t)n * sizeof(*script));
	s->nr_script = n;
	s->fd = listen_loopback(&s->port);
	assert_int_equal(pthread_create(&s->thread, NULL, serve, s), 0);
}

void server_stop(struct server *s)
{
	/* unblock accept() when the client made fewer requests than scripted */
	shutdown(s->fd, SHUT_RDWR);
	pthread_join(s->thread, NULL);
	close(s->fd);
}
