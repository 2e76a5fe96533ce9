// SPDX-License-Identifier: GPL-2.0-or-later
/* Work done with the sudo user's rights (see asuser.h). */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libprof/asuser.h"

/* A decimal id from the environment; false if absent or malformed. */
static bool env_id(const char *name, unsigned long *out)
{
	const char *s = getenv(name);
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return !errno && !*end && *out < (unsigned long)(uid_t)-1;
}

void zt_user_init(struct zt_user *u)
{
	unsigned long su, sg;

	memset(u, 0, sizeof(*u));
	if (geteuid() != 0 || !env_id("SUDO_UID", &su) || !env_id("SUDO_GID", &sg) || su == 0)
		return;
	u->uid = (uid_t)su;
	u->gid = (gid_t)sg;
	u->active = true;
}

/* Become u for good: groups first (they need the privilege), then gid, then uid. */
static int become(const struct zt_user *u)
{
	struct passwd pw, *res = NULL;
	gid_t groups[256];
	int ng = 256;
	char buf[16384];

	if (getpwuid_r(u->uid, &pw, buf, sizeof(buf), &res) || !res ||
	    getgrouplist(res->pw_name, u->gid, groups, &ng) < 0) {
		groups[0] = u->gid;
		ng = 1;
	}
	if (setgroups((size_t)ng, groups) || setresgid(u->gid, u->gid, u->gid) ||
	    setresuid(u->uid, u->uid, u->uid))
		return -errno;
	/* never trust that it worked */
	if (geteuid() != u->uid || getegid() != u->gid)
		return -EPERM;
	return 0;
}

int zt_user_run(const struct zt_user *u, int (*fn)(void *arg), void *arg)
{
	int status, ret;
	pid_t pid;

	if (!u || !u->active)
		return fn(arg);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		ret = become(u);
		if (!ret)
			ret = fn(arg);
		/* no atexit handlers or stdio flushes of the parent's */
		_exit(ret >= 0 ? 0 : -ret < 256 ? -ret : EIO);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status))
		return -WEXITSTATUS(status);
	return -ECHILD;
}

bool zt_may_read(const struct stat *st)
{
	uid_t uid = getuid();
	gid_t groups[256];
	int n, i;

	if (uid == 0)
		return true;
	if (st->st_uid == uid)
		return st->st_mode & S_IRUSR;
	if (st->st_gid == getgid())
		return st->st_mode & S_IRGRP;
	n = getgroups(256, groups);
	for (i = 0; i < n; i++)
		if (groups[i] == st->st_gid)
			return st->st_mode & S_IRGRP;
	return st->st_mode & S_IROTH;
}
