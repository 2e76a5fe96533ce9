/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The user zt works for when root runs it through sudo. Files zt makes for
 * that user (their cache, their copy of a recording) are made with that
 * user's own rights, never root's: in a child process that has become the
 * user, so that a link they planted, a directory they cannot write or a
 * SUDO_UID they set never makes root create, chown or copy what they could
 * not have themselves.
 */
#ifndef ZT_ASUSER_H
#define ZT_ASUSER_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

struct zt_user {
	uid_t uid;
	gid_t gid;
	bool active; /* root working for a sudo user: uid/gid are that user's */
};

/* From SUDO_UID and SUDO_GID when zt runs as root (effective uid 0) and
 * they name a user other than root; inactive otherwise. */
void zt_user_init(struct zt_user *u);

/* Run fn(arg) as u: in a child process with u's uid, gid and supplementary
 * groups (from the group database) when u is active, else directly here.
 * fn returns 0 or a negative errno; so does this, or a negative errno when
 * the child could not be made or could not become u. fn's effects on
 * memory are lost when it runs in a child: it reports through files and
 * descriptors only (those open here are open there). */
int zt_user_run(const struct zt_user *u, int (*fn)(void *arg), void *arg);

/* Whether the calling process, by its real uid, gid and groups, may read
 * a file with status st: for the checks an fn makes inside zt_user_run().
 * Root may read anything. */
bool zt_may_read(const struct stat *st);

#endif
