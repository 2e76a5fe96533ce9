/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The GPU file writer and its frame builder (see zgw.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zlib.h>

#include "cupti/zgw.h"
#include "libprof/hash.h"

#define HDR	   sizeof(struct zg_frame_hdr)
#define PIDX_SLOTS 8192u /* pool strings per frame: at most half of it */

void zgw_init(struct zgw *w)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}

/* iov (len bytes in all) by one writev(2): 0, or -errno with a
 * part-written frame cut off again, so that the file stays a run of
 * complete frames */
static int write_whole(struct zgw *w, const struct iovec *iov, int niov, size_t len)
{
	ssize_t n;
	int err;

	do
		n = writev(w->fd, iov, niov);
	while (n < 0 && errno == EINTR);
	if (n >= 0 && (size_t)n == len) {
		w->size += len;
		return 0;
	}
	err = n < 0 ? errno : ENOSPC; /* short: the disk is full */
	if (n > 0 && ftruncate(w->fd, (off_t)w->size) != 0)
		err = errno;
	w->err = err;
	return -err;
}

int zgw_open(struct zgw *w, const char *dir, uint32_t pid, uint64_t start_ns)
{
	struct zg_file_hdr h;
	int dfd, fd, ret;

	zgw_init(w);
	snprintf(w->name, sizeof(w->name), "gpu-%u-%llu.zg", pid, (unsigned long long)start_ns);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	fd = openat(dfd, w->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_APPEND,
		    0600);
	ret = fd < 0 ? -errno : 0;
	close(dfd);
	if (ret)
		return ret;
	w->fd = fd;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, ZG_MAGIC, sizeof(h.magic));
	h.version = ZG_VERSION;
	h.hdr_size = sizeof(h);
	h.pid = pid;
	h.start_ns = start_ns;
	ret = write_whole(w, &(struct iovec){&h, sizeof(h)}, 1, sizeof(h));
	if (ret) {
		close(fd);
		w->fd = -1;
	}
	return ret;
}

void zgw_close(struct zgw *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

int zgw_write(struct zgw *w, uint32_t type, uint32_t count, void *buf, size_t len)
{
	struct zg_frame_hdr h;
	int ret;

	if (len > ZG_FRAME_MAX)
		return -EINVAL;
	if (w->fd < 0)
		return -EBADF;
	h.type = type;
	h.len = (uint32_t)len;
	h.crc = (uint32_t)crc32(0, (const Bytef *)buf + HDR, (uInt)len);
	h.count = count;
	memcpy(buf, &h, HDR);
	ret = write_whole(w, &(struct iovec){buf, HDR + len}, 1, HDR + len);
	if (ret)
		w->frames_lost++;
	else
		w->frames++;
	return ret;
}

int zgw_write2(struct zgw *w, uint32_t type, uint32_t count, const void *a, size_t alen,
	       const void *b, size_t blen)
{
	struct zg_frame_hdr h;
	struct iovec iov[3];
	uLong crc;
	int ret;

	if (alen > ZG_FRAME_MAX || blen > ZG_FRAME_MAX - alen)
		return -EINVAL;
	if (w->fd < 0)
		return -EBADF;
	crc = crc32(0, (const Bytef *)a, (uInt)alen);
	crc = crc32(crc, (const Bytef *)b, (uInt)blen);
	h.type = type;
	h.len = (uint32_t)(alen + blen);
	h.crc = (uint32_t)crc;
	h.count = count;
	iov[0] = (struct iovec){&h, HDR};
	iov[1] = (struct iovec){(void *)a, alen};
	iov[2] = (struct iovec){(void *)b, blen};
	ret = write_whole(w, iov, 3, HDR + alen + blen);
	if (ret)
		w->frames_lost++;
	else
		w->frames++;
	return ret;
}

static size_t frame_bytes(void)
{
	return HDR + ZGW_REC_MAX + ZGW_POOL_MAX + ZGW_POOL_MAX +
	       PIDX_SLOTS * sizeof(struct zgw_pstr);
}

int zgw_frame_init(struct zgw_frame *f, struct zc_mem *mem)
{
	memset(f, 0, sizeof(*f));
	f->mem = mem;
	if (!zc_mem_take(mem, frame_bytes()))
		return -ENOMEM;
	/* the pool is copied in after the records: room for both */
	f->buf = malloc(HDR + ZGW_REC_MAX + ZGW_POOL_MAX);
	f->pool = malloc(ZGW_POOL_MAX);
	f->pidx = calloc(PIDX_SLOTS, sizeof(*f->pidx));
	if (!f->buf || !f->pool || !f->pidx) {
		zgw_frame_release(f);
		return -ENOMEM;
	}
	f->ok = 1;
	return 0;
}

void zgw_frame_release(struct zgw_frame *f)
{
	struct zc_mem *mem = f->mem;

	free(f->buf);
	free(f->pool);
	free(f->pidx);
	if (mem)
		zc_mem_give(mem, frame_bytes());
	memset(f, 0, sizeof(*f));
}

void zgw_frame_begin(struct zgw_frame *f, uint32_t type)
{
	f->type = type;
	f->count = 0;
	f->rec_len = 0;
	f->pool_len = 0;
	if (f->pidx_nr) {
		memset(f->pidx, 0, PIDX_SLOTS * sizeof(*f->pidx));
		f->pidx_nr = 0;
	}
}

void *zgw_frame_rec(struct zgw_frame *f, size_t n)
{
	uint8_t *p;

	if (!f->ok || n > ZGW_REC_MAX - f->rec_len || f->count == UINT32_MAX)
		return NULL;
	p = f->buf + HDR + f->rec_len;
	memset(p, 0, n);
	f->rec_len += n;
	f->count++;
	return p;
}

void zgw_frame_unrec(struct zgw_frame *f, size_t n)
{
	f->rec_len -= n;
	f->count--;
}

int zgw_frame_str(struct zgw_frame *f, const char *s, uint32_t len, uint32_t *off)
{
	size_t j = (size_t)zt_hash_mix(0, (uintptr_t)s) & (PIDX_SLOTS - 1);

	for (; f->pidx[j].s; j = (j + 1) & (PIDX_SLOTS - 1))
		if (f->pidx[j].s == s) {
			*off = f->pidx[j].off;
			return 0;
		}
	if (len > ZGW_POOL_MAX - f->pool_len || f->pidx_nr >= PIDX_SLOTS / 2)
		return -ENOSPC;
	memcpy(f->pool + f->pool_len, s, len);
	f->pidx[j].s = s;
	f->pidx[j].off = (uint32_t)f->pool_len;
	f->pidx_nr++;
	*off = (uint32_t)f->pool_len;
	f->pool_len += len;
	return 0;
}

int zgw_frame_flush(struct zgw_frame *f, struct zgw *w)
{
	int ret = 0;

	if (f->count) {
		memcpy(f->buf + HDR + f->rec_len, f->pool, f->pool_len);
		ret = zgw_write(w, f->type, f->count, f->buf, f->rec_len + f->pool_len);
	}
	zgw_frame_begin(f, f->type);
	return ret;
}
