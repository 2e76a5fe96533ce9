/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A fake frame source and profile builders for the model tests. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/fakesrc.h"

/* Stable strings: the models may key on their pointers. */
static const char A_SO[] = "a.so", B_SO[] = "b.so", PROG[] = "prog", KERNEL[] = "[kernel.kallsyms]",
		  UNKNOWN[] = "[unknown]";
static const char F1_C[] = "/src/a/f1.c", F2_C[] = "f2.c", SRC_A[] = "/src/a",
		  MAIN_C[] = "/src/main.c", INL_H[] = "/src/inl.h", B_C[] = "/src/b.c";

void fakesrc_init(struct fakesrc *s)
{
	memset(s, 0, sizeof(*s));
}

/* A function's frame at addr, its own position its srcline too. */
static struct zt_frame named(const char *sym, const char *module, const char *dir, const char *file,
			     uint32_t line, uint64_t addr, const struct prof_mmap *map)
{
	uint64_t base = addr & ~0xfffull;

	return (struct zt_frame){.sym = sym,
				 .module = module,
				 .map = map,
				 .offset = addr - base,
				 .addr = base,
				 .dir = dir,
				 .file = file,
				 .line = line,
				 .sline = line,
				 .sfile = file,
				 .quality = ZT_FRAME_FULL};
}

static int resolve(void *ctx, struct frametab *ft, uint32_t pid, uint64_t ts, uint64_t addr,
		   int kernel)
{
	struct fakesrc *s = ctx;
	const struct prof_mmap *map = NULL;
	uint64_t base = addr & ~0xfffull;
	uint32_t sub = (uint32_t)(addr & 0xfff) >> 8;
	struct zt_frame f = {.addr = base, .offset = addr - base, .quality = ZT_FRAME_FULL};
	int ret;

	s->resolves++;
	s->last_pid = pid;
	s->last_addr = addr;
	s->last_ts = ts;
	s->last_kernel = kernel;
	if (addr == FAKE_ADDR_EIO)
		return -EIO;
	if (addr == FAKE_ADDR_EMPTY)
		return 0;
	if (s->pt)
		map = proctree_map(s->pt, kernel ? ZT_PID_KERNEL : pid, ts, addr);
	f.map = map;
	if (kernel) {
		f.sym = addr & 0x1000 ? "kfunc2" : "kfunc";
		f.module = KERNEL;
		f.kernel = 1;
		f.quality = ZT_FRAME_BASIC;
		return frametab_push(ft, &f);
	}
	switch ((addr & 0xffff) >> 12) {
	case 1:
		f = named("f1", A_SO, NULL, F1_C, 10 + sub, addr, map);
		break;
	case 2:
		f = named("f2", A_SO, SRC_A, F2_C, 20 + sub, addr, map);
		break;
	case 3:
		f = named("main", PROG, NULL, MAIN_C, 30 + sub, addr, map);
		break;
	case 4:
		/* inline frames innermost first, then the function; the
		 * srcline of each is the address's innermost position */
		f = named("leafy", B_SO, NULL, INL_H, 40 + sub, addr, map);
		f.inlined = 1;
		ret = frametab_push(ft, &f);
		f.sym = "middle";
		f.line = 50;
		if (!ret)
			ret = frametab_push(ft, &f);
		f = named("outer", B_SO, NULL, B_C, 60, addr, map);
		f.sline = 40 + sub;
		f.sfile = INL_H;
		return ret ? ret : frametab_push(ft, &f);
	case 5:
		f.sym = NULL;
		f.module = B_SO;
		f.offset = map ? addr - map->start + map->pgoff : addr;
		f.addr = addr;
		f.quality = ZT_FRAME_NONE;
		break;
	default:
		f.sym = NULL;
		f.module = UNKNOWN;
		f.offset = f.addr = addr;
		f.quality = ZT_FRAME_NONE;
		break;
	}
	return frametab_push(ft, &f);
}

static int time_sensitive(void *ctx, uint32_t pid)
{
	const struct fakesrc *s = ctx;

	return s->time_pid && pid == s->time_pid;
}

static int follow(void *ctx, const struct profile *p, const struct proctree *pt)
{
	struct fakesrc *s = ctx;

	if (p)
		s->follows++;
	else
		s->follow_nulls++;
	s->pt = pt;
	return 0;
}

struct frametab_source fakesrc_source(struct fakesrc *s, int with_follow)
{
	return (struct frametab_source){resolve, time_sensitive, with_follow ? follow : NULL, s};
}

int fake_task(struct profile *p, uint32_t kind, uint64_t ts, uint32_t pid, uint32_t tid,
	      const char *comm)
{
	struct prof_task t = {.ts = ts, .kind = kind, .pid = pid, .tid = tid};

	if (comm)
		snprintf(t.comm, sizeof(t.comm), "%s", comm);
	return profile_add_task(p, &t);
}

int fake_mmap(struct profile *p, uint32_t pid, uint64_t ts, uint64_t start, uint64_t len,
	      uint64_t pgoff, const char *path, const char *bid)
{
	struct prof_mmap m = {.ts = ts,
			      .pid = pid,
			      .tid = pid,
			      .start = start,
			      .len = len,
			      .pgoff = pgoff,
			      .prot = 5,
			      .path = (char *)path};

	if (bid) {
		size_t n = strlen(bid);

		m.build_id.len = (uint8_t)(n < ZT_BUILD_ID_MAX ? n : ZT_BUILD_ID_MAX);
		memcpy(m.build_id.data, bid, m.build_id.len);
	}
	return profile_add_mmap(p, &m);
}

int fake_sample(struct profile *p, uint64_t ts, uint64_t weight, uint32_t pid, uint32_t tid,
		uint32_t cpu, const uint64_t *ips, unsigned nk, unsigned nu)
{
	struct prof_sample s = {.ts = ts, .weight = weight, .pid = pid, .tid = tid, .cpu = cpu};
	int ret = profile_intern_stack(p, ips, nk, nu, &s.stack);

	return ret ? ret : profile_add_sample(p, &s);
}

char *fake_rows_text(const struct hist *h, const struct hist_entry *const *rows, size_t n,
		     char *buf, size_t len)
{
	size_t i, at = 0;
	unsigned k;

	buf[0] = 0;
	for (i = 0; i < n && at < len; i++) {
		const struct hist_entry *e = rows[i];
		char kb[256];

		for (k = 0; k < h->nr_keys && at < len; k++)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", k ? " " : "",
					       hist_key_text(h, e, h->keys[k], kb, sizeof(kb)));
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, ": %llu/%llu %llu/%llu\n",
					       (unsigned long long)e->self,
					       (unsigned long long)e->self_nr,
					       (unsigned long long)e->children,
					       (unsigned long long)e->children_nr);
	}
	return buf;
}
