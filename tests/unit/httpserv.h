/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small HTTP server for unit tests: in a thread, on a loopback port,
 * answering each connection from a script and recording the requests. */
#ifndef ZT_HTTPSERV_H
#define ZT_HTTPSERV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_SCRIPT 8

struct answer {
	int status;
	const char *headers; /* more header lines, each ending in \r\n, or NULL */
	const char *body;
	size_t body_len; /* 0: strlen(body) */
};

struct server {
	int fd, port;
	pthread_t thread;
	struct answer script[MAX_SCRIPT];
	int nr_script, served;
	/* what the requests held */
	char first_line[MAX_SCRIPT][256];
	char auth[MAX_SCRIPT][256];
	size_t body_len[MAX_SCRIPT];
	char body[MAX_SCRIPT][256];
	uint64_t at_ms[MAX_SCRIPT];
};

uint64_t now_ms(void);
/* A listening socket on 127.0.0.1 (an ephemeral port). */
int listen_loopback(int *port);
/* Serve script[0..n-1], one connection each, until server_stop(). */
void server_start(struct server *s, const struct answer *script, int n);
void server_stop(struct server *s);

#endif
