// SPDX-License-Identifier: GPL-2.0-or-later
/* The agent's queue of pieces waiting for the server: bounded in bytes, in memory or spooled. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libprof/array.h"
#include "net/agentq.h"

#define NAME_MAX_LEN 80

static void piece_name(char *out, size_t n, uint64_t seq, uint64_t samples)
{
	snprintf(out, n, "piece-%020" PRIu64 "-%" PRIu64 ".zt", seq, samples);
}

/* "piece-SEQ-SAMPLES.zt" (as piece_name() writes it) into seq, samples: 0 or -1. */
static int parse_name(const char *s, uint64_t *seq, uint64_t *samples)
{
	unsigned long long a, b;
	int end = -1, i;

	if (strncmp(s, "piece-", 6))
		return -1;
	for (i = 6; i < 26; i++)
		if (s[i] < '0' || s[i] > '9')
			return -1;
	if (s[26] != '-' || s[27] < '0' || s[27] > '9' ||
	    sscanf(s, "piece-%20llu-%llu.zt%n", &a, &b, &end) != 2 || end < 0 || s[end] || !a)
		return -1;
	*seq = a;
	*samples = b;
	return 0;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct agentq_item *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct agentq_item *item_at(const struct agentq *q, size_t i)
{
	return &q->items[q->head + i];
}

/* The oldest piece out: its memory freed, its spool file removed. */
static void drop_head(struct agentq *q)
{
	struct agentq_item *it = item_at(q, 0);
	char name[NAME_MAX_LEN];

	if (q->dirfd >= 0) {
		piece_name(name, sizeof(name), it->seq, it->samples);
		unlinkat(q->dirfd, name, 0);
	}
	free(it->data);
	q->bytes -= it->len;
	q->head++;
	if (!--q->n)
		q->head = 0;
}

/* The oldest pieces out until room more bytes fit. */
static void make_room(struct agentq *q, uint64_t room, struct agentq_drop *d)
{
	while (q->n && q->bytes + room > q->max_bytes) {
		const struct agentq_item *it = item_at(q, 0);

		d->pieces++;
		d->samples += it->samples;
		d->bytes += it->len;
		drop_head(q);
	}
}

/* Room for one more item at the end (the array compacted when its head is far in). */
static int grow(struct agentq *q)
{
	if (q->head && q->head + q->n == q->cap) {
		memmove(q->items, q->items + q->head, q->n * sizeof(*q->items));
		q->head = 0;
	}
	return ZT_GROW(q->items, q->cap, q->head + q->n + 1);
}

/* The pieces a spool holds (a previous run's), oldest first. */
static int load_spool(struct agentq *q, struct agentq_drop *d)
{
	struct dirent *e;
	DIR *dir;
	int fd = dup(q->dirfd), ret = 0;

	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		ret = -errno;
		close(fd);
		return ret;
	}
	rewinddir(dir);
	while ((e = readdir(dir))) {
		struct agentq_item it = {0};
		struct stat st;

		if (!strncmp(e->d_name, ".tmp-piece-", 11)) {
			unlinkat(q->dirfd, e->d_name, 0); /* a piece cut short by a crash */
			continue;
		}
		if (parse_name(e->d_name, &it.seq, &it.samples) ||
		    fstatat(q->dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_size <= 0)
			continue;
		if (grow(q)) {
			ret = -ENOMEM;
			break;
		}
		it.len = (size_t)st.st_size;
		q->items[q->n++] = it;
		q->bytes += it.len;
	}
	closedir(dir);
	if (ret)
		return ret;
	if (q->n)
		qsort(q->items, q->n, sizeof(*q->items), cmp_seq);
	if (q->n)
		q->next_seq = q->items[q->n - 1].seq + 1;
	make_room(q, 0, d);
	return 0;
}

int agentq_init(struct agentq *q, uint64_t max_bytes, int dirfd, struct agentq_drop *dropped)
{
	memset(q, 0, sizeof(*q));
	memset(dropped, 0, sizeof(*dropped));
	q->max_bytes = max_bytes ? max_bytes : 1;
	q->dirfd = dirfd;
	q->next_seq = 1;
	return dirfd >= 0 ? load_spool(q, dropped) : 0;
}

void agentq_release(struct agentq *q)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		free(item_at(q, i)->data);
	free(q->items);
	if (q->dirfd >= 0)
		close(q->dirfd);
	memset(q, 0, sizeof(*q));
	q->dirfd = -1;
}

int agentq_open_spool(const char *path, char *msg, size_t msglen)
{
	struct stat st;
	int fd, err;

	if (mkdir(path, 0700) && errno != EEXIST) {
		err = -errno;
		snprintf(msg, msglen, "cannot make the spool directory '%s': %s", path,
			 strerror(errno));
		return err;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
			snprintf(msg, msglen,
				 "the spool directory '%s' is a symbolic link: give "
				 "the directory itself",
				 path);
			return -ELOOP;
		}
		snprintf(msg, msglen, "cannot open the spool directory '%s': %s", path,
			 strerror(-err));
		return err;
	}
	err = 0;
	if (fstat(fd, &st))
		err = -errno;
	else if (!S_ISDIR(st.st_mode))
		err = -ENOTDIR;
	if (err) {
		snprintf(msg, msglen, "cannot use the spool directory '%s': %s", path,
			 strerror(-err));
		goto fail;
	}
	if (st.st_uid != geteuid()) {
		snprintf(msg, msglen,
			 "the spool directory '%s' belongs to uid %u, not to this "
			 "user (uid %u): give a directory of its own",
			 path, (unsigned)st.st_uid, (unsigned)geteuid());
		err = -EPERM;
		goto fail;
	}
	if (st.st_mode & 022) {
		snprintf(msg, msglen,
			 "others may write in the spool directory '%s' (mode %03o): "
			 "run 'chmod 700 %s'",
			 path, (unsigned)(st.st_mode & 0777), path);
		err = -EPERM;
		goto fail;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		snprintf(msg, msglen, "the spool directory '%s' is %s", path,
			 err == -EBUSY ? "in use by another zt record" : strerror(-err));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return err;
}

/* The image into the spool: a temporary name, then the piece's. */
static int spool_write(struct agentq *q, const struct agentq_item *it, const void *img)
{
	char tmp[NAME_MAX_LEN + 8], name[NAME_MAX_LEN];
	const uint8_t *p = img;
	size_t left = it->len;
	int fd, err = 0;

	piece_name(name, sizeof(name), it->seq, it->samples);
	snprintf(tmp, sizeof(tmp), ".tmp-%s", name);
	fd = openat(q->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (left) {
		ssize_t k = write(fd, p, left);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			err = k < 0 ? -errno : -EIO;
			break;
		}
		p += k;
		left -= (size_t)k;
	}
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(q->dirfd, tmp, q->dirfd, name))
		err = -errno;
	if (err)
		unlinkat(q->dirfd, tmp, 0);
	return err;
}

int agentq_add(struct agentq *q, const void *img, size_t len, uint64_t samples, uint64_t t_start,
	       uint64_t t_end, struct agentq_drop *dropped)
{
	struct agentq_item it = {q->next_seq, samples, t_start, t_end, len, NULL};
	int err;

	memset(dropped, 0, sizeof(*dropped));
	if (len > q->max_bytes)
		return -E2BIG;
	if (q->dirfd < 0) {
		it.data = malloc(len ? len : 1);
		if (!it.data)
			return -ENOMEM;
		memcpy(it.data, img, len);
	}
	if (grow(q)) {
		free(it.data);
		return -ENOMEM;
	}
	make_room(q, len, dropped);
	if (q->dirfd >= 0 && (err = spool_write(q, &it, img)))
		return err;
	q->next_seq++;
	q->items[q->head + q->n++] = it;
	q->bytes += len;
	return 0;
}

const struct agentq_item *agentq_head(const struct agentq *q)
{
	return q->n ? item_at(q, 0) : NULL;
}

int agentq_head_image(struct agentq *q, struct zbuf *buf, const void **data, size_t *len)
{
	const struct agentq_item *it = agentq_head(q);
	char name[NAME_MAX_LEN];
	struct stat st;
	int fd, err = 0;

	if (!it)
		return -ENOENT;
	if (it->data) {
		*data = it->data;
		*len = it->len;
		return 0;
	}
	piece_name(name, sizeof(name), it->seq, it->samples);
	fd = openat(q->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP || errno == ENOENT ? -EBADMSG : -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (uint64_t)st.st_size != it->len) {
		close(fd);
		return -EBADMSG;
	}
	zbuf_reset(buf);
	if (zbuf_reserve(buf, it->len)) {
		close(fd);
		return -ENOMEM;
	}
	while (buf->len < it->len) {
		ssize_t k = read(fd, buf->data + buf->len, it->len - buf->len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			err = k < 0 ? -errno : -EBADMSG;
			break;
		}
		buf->len += (size_t)k;
	}
	close(fd);
	if (err)
		return err;
	*data = buf->data;
	*len = buf->len;
	return 0;
}

void agentq_pop(struct agentq *q)
{
	if (q->n)
		drop_head(q);
}
