// SPDX-License-Identifier: GPL-2.0-or-later
/* Recordings for the zt serve tests, written in memory. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <unistd.h>

#include <zlib.h>

#include "formats/ztdata.h"
#include "libprof/gpu.h"
#include "libprof/fileio.h"
#include "tests/unit/srvdata.h"

static const char ksyms[] = "ffffffff81000000 T _text\n"
			    "ffffffff81001000 T kfunc\n"
			    "ffffffff81002000 T _etext\n";

static int gpu_records(struct ztdata_writer *w)
{
	struct prof_gpu_kernel k = { .start = 1550000000, .end = 1550001000, .pid = 100, .corr = 7,
				     .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	struct prof_gpu_launch l = { .ts = 1549999000, .pid = 100, .tid = 100, .corr = 7 };
	struct prof_gpu_pcs s = { .cubin_crc = 42, .pc_offset = 16, .samples = 3, .pid = 100 };
	uint64_t ips[2] = { 0x400000 + 0x3000, 0x400000 + 0x4000 };
	struct prof_gpu *g = prof_gpu_new();
	int err;

	if (!g)
		return -ENOMEM;
	err = prof_gpu_intern(g, "_Z4kernv", 8, &k.name);
	s.function = k.name;
	err |= prof_gpu_add_kernel(g, &k);
	err |= prof_gpu_add_pcs(g, &s);
	err |= prof_gpu_add_cubin(g, 42, 100, 1, 1, "\x7f" "ELF", 4);
	err |= prof_gpu_add_info(g, 100, "warning", "test");
	err |= ztdata_write_gpu(w, g, NULL);
	err |= ztdata_write_gpu_launch(w, &l, ips, 0, 2);
	prof_gpu_free(g);
	return err;
}

static int records(struct ztdata_writer *w, const struct srv_rec_opts *o)
{
	static const struct prof_build_id dflt = { 20, { 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 1, 2, 3, 4, 5,
							 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 } };
	uint32_t pid = o->pid ? o->pid : 100;
	struct prof_task t = { .ts = 0, .kind = PROF_TASK_COMM, .pid = pid, .tid = pid };
	struct prof_mmap app = { .ts = 0, .pid = pid, .tid = pid, .start = 0x400000, .len = 0x100000,
				 .pgoff = 0, .prot = 5, .path = "/usr/bin/app" };
	struct prof_mmap lib = { .ts = 0, .pid = pid, .tid = pid, .start = 0x7f0000000000,
				 .len = 0x10000, .pgoff = 0x2000, .prot = 5,
				 .path = "/lib/libnobid.so" };
	char wall[32], tend[32];
	uint64_t a = o->off_a ? o->off_a : 0x1000, b = o->off_b ? o->off_b : 0x2000;
	uint64_t sa[3] = { 0xffffffff81001010ull, 0x400000 + a, 0x400000 + b };
	uint64_t sb[2] = { 0x7f0000000100ull, 0x7e0000000010ull };
	uint64_t w0 = 10 + o->variant;
	unsigned i;
	int err = 0;

	app.build_id = o->bid ? *o->bid : dflt;
	snprintf(t.comm, sizeof(t.comm), "%s", o->comm ? o->comm : "app");
	snprintf(wall, sizeof(wall), "%lld", (long long)(o->wall ? o->wall : 1700000000));
	err |= ztdata_write_meta(w, "hostname", "h1");
	err |= ztdata_write_meta(w, "cmdline", "zt record -g -- /usr/bin/app x y");
	err |= ztdata_write_meta(w, "event", o->event ? o->event : "cpu-clock");
	err |= ztdata_write_meta(w, "time_start", "1000000000");
	snprintf(tend, sizeof(tend), "%llu", 3000000000ull + o->later * 1000000000ull);
	err |= ztdata_write_meta(w, "time_end", tend);
	err |= ztdata_write_meta(w, "wallclock_start", wall);
	err |= ztdata_write_task(w, &t);
	err |= ztdata_write_mmap(w, &app);
	err |= ztdata_write_mmap(w, &lib);
	err |= ztdata_write_blob(w, PROF_BLOB_KALLSYMS, UINT32_MAX, 0, ksyms, strlen(ksyms));
	err |= ztdata_write_blob(w, PROF_BLOB_PERFMAP, pid, 0, "7e0000000000 100 jitfn\n", 23);
	for (i = 0; i < 3; i++)
		err |= ztdata_write_sample(w, 1500000000 + i, w0, pid, pid, 0, sa, 1, 2);
	for (i = 0; i < 2; i++)
		err |= ztdata_write_sample(w, 1600000000 + i + o->later * 1000000000ull, w0, pid,
					   pid, 0, sb, 0, 2);
	for (i = 0; i < o->extra_stacks; i++) {
		uint64_t ips[2] = { 0x400000 + 0x10000 + i, 0x400000 + b };

		err |= ztdata_write_sample(w, 1700000000 + i, w0, pid, pid, 0, ips, 0, 2);
	}
	if (o->gpu)
		err |= gpu_records(w);
	if (o->snapshot) {
		uint64_t regs[PROF_UREGS] = { 0 };
		char stack[64] = { 0 };

		err |= ztdata_write_ustack(w, 1, regs, stack, sizeof(stack));
	}
	return err ? -EIO : 0;
}

int srv_recording(struct zbuf *out, const struct srv_rec_opts *o)
{
	struct ztdata_writer *w;
	unsigned char *data = NULL;
	size_t len = 0;
	int fd = memfd_create("rec", 0), err;

	if (fd < 0)
		return -errno;
	w = ztdata_writer_new(fd);
	if (!w) {
		close(fd);
		return -ENOMEM;
	}
	err = records(w, o);
	if (!err)
		err = o->unfinished ? ztdata_writer_flush(w) : ztdata_writer_finish(w);
	ztdata_writer_free(w);
	if (!err && lseek(fd, 0, SEEK_SET) < 0)
		err = -errno;
	if (!err)
		err = zt_read_fd(fd, 1 << 30, &data, &len);
	close(fd);
	if (!err) {
		zbuf_put(out, data, len);
		err = out->err;
	}
	free(data);
	return err;
}

int srv_gzip(struct zbuf *out, const void *data, size_t len)
{
	uLongf zl = compressBound(len) + 32;
	z_stream z = { 0 };
	int ret;

	if (zbuf_reserve(out, zl) ||
	    deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	z.next_in = (Bytef *)data, z.avail_in = (uInt)len;
	z.next_out = out->data + out->len, z.avail_out = (uInt)zl;
	ret = deflate(&z, Z_FINISH);
	out->len += z.total_out;
	deflateEnd(&z);
	return ret == Z_STREAM_END ? 0 : -1;
}
