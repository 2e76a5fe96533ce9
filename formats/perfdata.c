// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf.data reader (layout: tools/perf/util/header.c, session.c, evsel.c
 * evsel__parse_sample, include/uapi/linux/perf_event.h). Every length is
 * checked against the bytes left before it is used: the input is untrusted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <zstd.h>

#include "formats/perfdata.h"
#include "formats/perftrace.h"
#include "libprof/fileio.h"
#include "libprof/hash.h"
#include "libprof/zbuf.h"

#define HDR_SIZE 104
#define PIPE_HDR_SIZE 16 /* pipe mode: magic and size only; the rest comes as records */
#define MAGIC2 0x32454c4946524550ull /* "PERFILE2" read on a little-endian host */
#define MAGIC1 0x454c494646524550ull /* "PERFFILE": version 1 */
#define NR_FEAT_BITS 256

/* header.h feature bits */
enum {
	FEAT_TRACING_DATA = 1, FEAT_BUILD_ID = 2, FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4, FEAT_VERSION = 5,
	FEAT_ARCH = 6, FEAT_NRCPUS = 7, FEAT_CPUDESC = 8, FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12, FEAT_SAMPLE_TIME = 21, FEAT_COMPRESSED = 27,
	FEAT_CPUID = 9, FEAT_TOTAL_MEM = 10,
};

/* record types perf writes itself (tools/lib/perf/include/perf/event.h) */
#define REC_HEADER_ATTR 64         /* pipe mode: an event's attr and ids */
#define REC_HEADER_TRACING_DATA 66 /* pipe mode: u32 size; that many bytes follow (8-aligned) */
#define REC_HEADER_BUILD_ID 67     /* pipe mode: one build-id feature entry */
#define REC_FINISHED_ROUND 68
#define REC_AUXTRACE 71            /* u64 size; that many bytes of AUX data follow */
#define REC_EVENT_UPDATE 78        /* pipe mode: u64 type, u64 id, then the name, ... */
#define REC_HEADER_FEATURE 80      /* pipe mode: u64 feature bit, then its section */
#define EVENT_UPDATE_NAME 2
#define REC_COMPRESSED 81
#define REC_COMPRESSED2 83
#define REC_LAST_KNOWN 86 /* SCHEDSTAT_DOMAIN; higher ones count as unknown */

#define MISC_CPUMODE_MASK 7
#define MISC_COMM_EXEC (1u << 13)
#define MISC_MMAP_DATA (1u << 13)
#define MISC_MMAP_BUILD_ID (1u << 14)
#define MISC_BUILD_ID_SIZE (1u << 15) /* in the build-id feature's records */

#define CTX_USER_DEFERRED ((uint64_t)-640) /* the user part comes in a later record */
#define CTX_MAX ((uint64_t)-4095)           /* values from here up are markers */

#ifndef PERF_SAMPLE_BRANCH_HW_INDEX
#define PERF_SAMPLE_BRANCH_HW_INDEX (1u << 17)
#endif
#define BRANCH_COUNTERS (1ull << 19) /* PERF_SAMPLE_BRANCH_COUNTERS, Linux 6.8 */

#define PROT_X 4 /* PROT_EXEC, without sys/mman.h's meaning in a file */

struct pd_event {
	struct perf_event_attr attr;
	char name[128];
	int dummy;       /* perf's side-band carrier: no samples of its own */
};

struct pd_id {
	uint64_t id;
	uint32_t ev;
};

struct pd_bid {
	char *path;
	struct prof_build_id b;
	int kernel;
	size_t seq; /* its place in the file's table */
};

struct rd {
	const uint8_t *d;
	size_t len;
	struct profile *p;
	struct perfdata_info *info;
	struct pd_event *evs;
	unsigned nr_evs;
	struct pd_id *ids;
	size_t nr_ids;
	int id_pos, is_pos; /* where the id sits in a sample / trailer, in u64s; -1: none */
	unsigned sel;
	uint32_t *evmap;   /* file event -> profile event, UINT32_MAX: not read */
	struct pd_bid *bids;
	size_t nr_bids, cap_bids;
	char arch[64];
	int have_time;   /* HEADER_SAMPLE_TIME */
	uint64_t ts_first, ts_last;
	ZSTD_DStream *zd;
	uint8_t *zbuf;
	size_t zlen, zcap;
	uint64_t zmax;   /* cap on the total decompressed */
	uint64_t ips[2 * ZT_MAX_FRAMES], uips[ZT_MAX_FRAMES];
	char why[160];
	uint64_t by_type[128]; /* records by type (perf report --stats) */
	prof_ustack_fn ufn; /* the snapshot pass: samples go to it, not to p */
	void *uarg;
	int ustop;          /* ufn's nonzero return */
};

/* perf's x86-64 user register numbers (PERF_REG_X86_*) in DWARF order,
 * -1 for those the unwinder has no use for (flags, segments) */
static const signed char perf_to_dwarf[24] = {
	0, 3, 2, 1, 4, 5, 6, 7, 16, -1, -1, -1, -1, -1, -1, -1,
	8, 9, 10, 11, 12, 13, 14, 15,
};

static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint16_t ld16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

__attribute__((format(printf, 2, 3)))
static int bad(struct rd *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* A message into info->msg: errors replace it, warnings only fill it. */
__attribute__((format(printf, 3, 4)))
static void note(struct perfdata_info *info, int error, const char *fmt, ...)
{
	va_list ap;

	if (!error && info->msg[0])
		return;
	va_start(ap, fmt);
	vsnprintf(info->msg, sizeof(info->msg), fmt, ap);
	va_end(ap);
}

/* [off, off+n) lies within [0, len) */
static int in_file(uint64_t off, uint64_t n, uint64_t len)
{
	return off <= len && n <= len - off;
}

/* ---- events and ids ---------------------------------------------------- */

static int id_cmp(const void *a, const void *b)
{
	const struct pd_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The event of an id, or -1. */
static int id_event(const struct rd *r, uint64_t id)
{
	size_t lo = 0, hi = r->nr_ids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nr_ids && r->ids[lo].id == id ? (int)r->ids[lo].ev : -1;
}

/* evsel.c __evsel__calc_id_pos / __evsel__calc_is_pos */
static int calc_id_pos(uint64_t st)
{
	int idx = 0;

	if (st & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	idx += !!(st & PERF_SAMPLE_IP);
	idx += !!(st & PERF_SAMPLE_TID);
	idx += !!(st & PERF_SAMPLE_TIME);
	idx += !!(st & PERF_SAMPLE_ADDR);
	return idx;
}

static int calc_is_pos(uint64_t st)
{
	int idx = 1;

	if (st & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	idx += !!(st & PERF_SAMPLE_CPU);
	idx += !!(st & PERF_SAMPLE_STREAM_ID);
	return idx;
}

static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};
static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};

/* A name for an event the file does not name (no HEADER_EVENT_DESC). */
static void default_name(struct pd_event *e)
{
	const struct perf_event_attr *a = &e->attr;

	if (a->type == PERF_TYPE_SOFTWARE && a->config < sizeof(sw_names) / sizeof(*sw_names))
		snprintf(e->name, sizeof(e->name), "%s", sw_names[a->config]);
	else if (a->type == PERF_TYPE_HARDWARE &&
		 a->config < sizeof(hw_names) / sizeof(*hw_names))
		snprintf(e->name, sizeof(e->name), "%s", hw_names[a->config]);
	else if (a->type == PERF_TYPE_RAW)
		snprintf(e->name, sizeof(e->name), "r%llx", (unsigned long long)a->config);
	else
		snprintf(e->name, sizeof(e->name), "%u:0x%llx", a->type,
			 (unsigned long long)a->config);
}

/* The attrs section: {attr, {offset, size} of its ids} each attr_size bytes. */
static int read_attrs(struct rd *r, uint64_t attr_size, uint64_t off, uint64_t size)
{
	uint64_t nr, i, total = 0;

	if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > 4096)
		return bad(r, "attr size %llu in the file header is not valid",
			   (unsigned long long)attr_size);
	if (!in_file(off, size, r->len) || size % attr_size)
		return bad(r, "the attrs section (offset %llu, size %llu) does not fit the file",
			   (unsigned long long)off, (unsigned long long)size);
	nr = size / attr_size;
	if (!nr)
		return bad(r, "the file has no event attrs (offset %llu)", (unsigned long long)off);
	r->evs = calloc(nr, sizeof(*r->evs));
	if (!r->evs)
		return -ENOMEM;
	r->nr_evs = (unsigned)nr;
	/* first pass: the attrs, and the number of ids */
	for (i = 0; i < nr; i++) {
		const uint8_t *a = r->d + off + i * attr_size;
		uint64_t asz = ld32(a + 4), ioff = ld64(a + attr_size - 16), isz = ld64(a + attr_size - 8);
		struct pd_event *e = &r->evs[i];

		if (!asz)
			asz = PERF_ATTR_SIZE_VER0;
		if (asz > attr_size - 16)
			asz = attr_size - 16;
		if (asz > sizeof(e->attr))
			asz = sizeof(e->attr);
		memcpy(&e->attr, a, asz);
		e->attr.size = (uint32_t)asz;
		e->dummy = e->attr.type == PERF_TYPE_SOFTWARE &&
			   e->attr.config == PERF_COUNT_SW_DUMMY;
		default_name(e);
		if (!in_file(ioff, isz, r->len) || isz % 8)
			return bad(r, "the ids of event %llu (offset %llu, size %llu) do not fit the file",
				   (unsigned long long)i, (unsigned long long)ioff,
				   (unsigned long long)isz);
		total += isz / 8;
	}
	if (total) {
		size_t n = 0;

		r->ids = malloc(total * sizeof(*r->ids));
		if (!r->ids)
			return -ENOMEM;
		for (i = 0; i < nr; i++) {
			const uint8_t *a = r->d + off + i * attr_size;
			uint64_t ioff = ld64(a + attr_size - 16), isz = ld64(a + attr_size - 8), j;

			for (j = 0; j < isz / 8; j++)
				r->ids[n++] = (struct pd_id){ ld64(r->d + ioff + j * 8), (uint32_t)i };
		}
		/* stable order for equal ids: the first event keeps it */
		qsort(r->ids, n, sizeof(*r->ids), id_cmp);
		r->nr_ids = n;
	}
	r->id_pos = calc_id_pos(r->evs[0].attr.sample_type);
	r->is_pos = calc_is_pos(r->evs[0].attr.sample_type);
	return 0;
}

/* ---- header features --------------------------------------------------- */

struct cur {
	const uint8_t *p, *end;
};

static int cur_u32(struct cur *c, uint32_t *v)
{
	if (c->end - c->p < 4)
		return -1;
	*v = ld32(c->p);
	c->p += 4;
	return 0;
}

static int cur_u64(struct cur *c, uint64_t *v)
{
	if (c->end - c->p < 8)
		return -1;
	*v = ld64(c->p);
	c->p += 8;
	return 0;
}

/* header.c do_read_string: u32 len, then len bytes NUL-padded. */
static int cur_str(struct cur *c, char *out, size_t n)
{
	uint32_t len;
	size_t l;

	if (cur_u32(c, &len) || (size_t)(c->end - c->p) < len)
		return -1;
	l = strnlen((const char *)c->p, len);
	if (l >= n)
		l = n - 1;
	memcpy(out, c->p, l);
	out[l] = 0;
	c->p += len;
	return 0;
}

static int meta_str(struct rd *r, const char *key, struct cur *c)
{
	char s[1024], t[1024];

	if (cur_str(c, s, sizeof(s)))
		return -EBADMSG;
	prof_sanitize(t, sizeof(t), s);
	return profile_set_meta(r->p, key, t);
}

static int feat_cmdline(struct rd *r, struct cur *c)
{
	char s[4096], out[4096], t[4096];
	uint32_t nr, i;
	size_t n = 0;

	if (cur_u32(c, &nr))
		return -EBADMSG;
	out[0] = 0;
	for (i = 0; i < nr; i++) {
		if (cur_str(c, s, sizeof(s)))
			return -EBADMSG;
		if (n < sizeof(out) - 1)
			n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%s", i ? " " : "", s);
	}
	prof_sanitize(t, sizeof(t), out);
	return profile_set_meta(r->p, "cmdline", t);
}

/* u32 nr, u32 attr_size, then per event: attr, u32 nr_ids, string name, u64 ids[] */
static int feat_event_desc(struct rd *r, struct cur *c)
{
	uint32_t nr, asz, i;

	if (cur_u32(c, &nr) || cur_u32(c, &asz) || asz < PERF_ATTR_SIZE_VER0)
		return -EBADMSG;
	for (i = 0; i < nr; i++) {
		uint32_t nids;
		uint64_t id0 = 0;
		char name[128];
		int ev = -1;

		if ((size_t)(c->end - c->p) < asz)
			return -EBADMSG;
		c->p += asz;
		if (cur_u32(c, &nids) || cur_str(c, name, sizeof(name)) ||
		    (size_t)(c->end - c->p) / 8 < nids)
			return -EBADMSG;
		if (nids) {
			id0 = ld64(c->p);
			ev = id_event(r, id0);
		}
		c->p += (size_t)nids * 8;
		if (ev < 0 && i < r->nr_evs)
			ev = (int)i;
		if (ev >= 0 && name[0])
			prof_sanitize(r->evs[ev].name, sizeof(r->evs[ev].name), name);
	}
	return 0;
}

static int bid_cmp(const void *a, const void *b)
{
	const struct pd_bid *x = a, *y = b;

	return strcmp(x->path, y->path);
}

/* A sequence of {header, i32 pid, u8 build_id[24], filename} records. */
static int feat_build_id(struct rd *r, struct cur *c)
{
	while (c->end - c->p >= 8) {
		uint16_t misc = ld16(c->p + 4), size = ld16(c->p + 6);
		unsigned mode = misc & MISC_CPUMODE_MASK;
		const uint8_t *b = c->p + 12;
		struct pd_bid *e;
		size_t l;

		if (size < 36 || size > c->end - c->p)
			return -EBADMSG;
		c->p += size;
		if (mode == PERF_RECORD_MISC_GUEST_KERNEL || mode == PERF_RECORD_MISC_GUEST_USER)
			continue;
		if (r->nr_bids == r->cap_bids) {
			size_t cap = r->cap_bids ? r->cap_bids * 2 : 16;
			struct pd_bid *nb = realloc(r->bids, cap * sizeof(*nb));

			if (!nb)
				return -ENOMEM;
			r->bids = nb;
			r->cap_bids = cap;
		}
		e = &r->bids[r->nr_bids];
		memset(e, 0, sizeof(*e));
		e->b.len = misc & MISC_BUILD_ID_SIZE ? b[20] : 20;
		if (e->b.len > ZT_BUILD_ID_MAX)
			e->b.len = ZT_BUILD_ID_MAX;
		memcpy(e->b.data, b, e->b.len);
		e->kernel = mode == PERF_RECORD_MISC_KERNEL;
		e->seq = r->nr_bids;
		l = strnlen((const char *)b + 24, size - 36u);
		e->path = strndup((const char *)b + 24, l);
		if (!e->path)
			return -ENOMEM;
		r->nr_bids++;
	}
	if (r->nr_bids)
		qsort(r->bids, r->nr_bids, sizeof(*r->bids), bid_cmp);
	return 0;
}

static int bid_seq_cmp(const void *a, const void *b)
{
	const struct pd_bid *x = *(const struct pd_bid *const *)a, *y = *(const struct pd_bid *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* perf's build-id table as it stands in the file (perf buildid-list
 * prints it so): meta "build_ids", a line "HEX PATH" per entry. */
static int bid_table_meta(struct rd *r)
{
	const struct pd_bid **o;
	char *text = NULL, hex[2 * ZT_BUILD_ID_MAX + 1];
	size_t len = 0, i;
	FILE *f;
	int ret = -ENOMEM;

	if (!r->nr_bids)
		return 0;
	o = malloc(r->nr_bids * sizeof(*o));
	if (!o)
		return -ENOMEM;
	for (i = 0; i < r->nr_bids; i++)
		o[i] = &r->bids[i];
	qsort(o, r->nr_bids, sizeof(*o), bid_seq_cmp);
	f = open_memstream(&text, &len);
	if (!f)
		goto out;
	for (i = 0; i < r->nr_bids; i++) {
		const char *c;

		fprintf(f, "%s ", prof_build_id_hex(&o[i]->b, hex));
		for (c = o[i]->path; *c; c++)
			fputc(*c == '\n' ? '?' : *c, f);
		fputc('\n', f);
	}
	if (fclose(f))
		goto out;
	ret = profile_set_meta(r->p, "build_ids", text);
out:
	free(text);
	free(o);
	return ret;
}

static const struct prof_build_id *find_bid(const struct rd *r, const char *path)
{
	size_t lo = 0, hi = r->nr_bids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(r->bids[mid].path, path);

		if (!c)
			return &r->bids[mid].b;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The tracepoint formats (formats/perftrace.h), once: a pipe may repeat them. */
static int tracing_data(struct rd *r, const uint8_t *d, size_t n)
{
	int ret;

	if (r->ufn || profile_find_blob(r->p, PROF_BLOB_TRACE_FORMAT, UINT32_MAX))
		return 0;
	ret = perftrace_parse(d, n, r->p);
	if (ret == -EPROTONOSUPPORT) {
		note(r->info, 0, "the tracing data is of a big-endian or 32-bit machine: "
				 "tracepoint fields are not shown");
		return 0;
	}
	return ret;
}

static int feature(struct rd *r, unsigned bit, struct cur *c)
{
	char num[48];
	uint32_t a, b;
	uint64_t x, y;

	switch (bit) {
	case FEAT_HOSTNAME:
		return meta_str(r, "hostname", c);
	case FEAT_OSRELEASE:
		return meta_str(r, "os_release", c);
	case FEAT_VERSION:
		return meta_str(r, "perf_version", c);
	case FEAT_CPUDESC:
		return meta_str(r, "cpudesc", c);
	case FEAT_ARCH:
		if (cur_str(c, r->arch, sizeof(r->arch)))
			return -EBADMSG;
		return 0; /* checked, then set, by the caller */
	case FEAT_NRCPUS: /* u32 available, u32 online */
		if (cur_u32(c, &a) || cur_u32(c, &b))
			return -EBADMSG;
		snprintf(num, sizeof(num), "%u", a);
		if (profile_set_meta(r->p, "nr_cpus_avail", num))
			return -ENOMEM;
		snprintf(num, sizeof(num), "%u", b);
		return profile_set_meta(r->p, "nr_cpus", num);
	case FEAT_CPUID:
		return meta_str(r, "cpuid", c);
	case FEAT_TOTAL_MEM: /* u64 kB */
		if (cur_u64(c, &x))
			return -EBADMSG;
		snprintf(num, sizeof(num), "%llu", (unsigned long long)x);
		return profile_set_meta(r->p, "total_mem_kb", num);
	case FEAT_CMDLINE:
		return feat_cmdline(r, c);
	case FEAT_EVENT_DESC:
		return feat_event_desc(r, c);
	case FEAT_BUILD_ID:
		return feat_build_id(r, c);
	case FEAT_TRACING_DATA:
		return tracing_data(r, c->p, (size_t)(c->end - c->p));
	case FEAT_SAMPLE_TIME:
		if (cur_u64(c, &x) || cur_u64(c, &y))
			return -EBADMSG;
		r->have_time = 1;
		r->ts_first = x;
		r->ts_last = y;
		return 0;
	case FEAT_COMPRESSED: /* u32 version, type, level, ratio, mmap_len */
		if (cur_u32(c, &a) || cur_u32(c, &b))
			return -EBADMSG;
		return profile_set_meta(r->p, "compression", b == 1 ? "zstd" : "unknown");
	}
	return 0;
}

static const char *feat_name(unsigned bit)
{
	static const char *const n[] = {
		[FEAT_TRACING_DATA] = "tracing_data",
		[FEAT_BUILD_ID] = "build_id", [FEAT_HOSTNAME] = "hostname",
		[FEAT_OSRELEASE] = "osrelease", [FEAT_VERSION] = "version", [FEAT_ARCH] = "arch",
		[FEAT_NRCPUS] = "nrcpus", [FEAT_CPUDESC] = "cpudesc", [FEAT_CMDLINE] = "cmdline",
		[FEAT_EVENT_DESC] = "event_desc", [FEAT_SAMPLE_TIME] = "sample_time",
		[FEAT_COMPRESSED] = "compressed",
	};

	return bit < sizeof(n) / sizeof(*n) && n[bit] ? n[bit] : "?";
}

/* The feature sections: a {offset, size} per set bit, after the data. */
static int read_features(struct rd *r, const uint8_t *bitmap, uint64_t table)
{
	struct perfdata_info *info = r->info;
	uint64_t nr = 0, i = 0;
	unsigned bit;
	int ret;

	for (bit = 0; bit < NR_FEAT_BITS; bit++)
		nr += (bitmap[bit / 8] >> (bit % 8)) & 1;
	if (!nr)
		return 0;
	if (!in_file(table, nr * 16, r->len)) {
		info->truncated = 1;
		note(info, 0, "the header's feature sections (offset %llu) are cut off: no "
			      "host, event names or build ids", (unsigned long long)table);
		return 0;
	}
	for (bit = 0; bit < NR_FEAT_BITS; bit++) {
		const uint8_t *t;
		uint64_t off, size;
		struct cur c;

		if (!((bitmap[bit / 8] >> (bit % 8)) & 1))
			continue;
		t = r->d + table + 16 * i++;
		off = ld64(t);
		size = ld64(t + 8);
		if (!in_file(off, size, r->len)) {
			info->truncated = 1;
			note(info, 0, "feature section %u (%s) at offset %llu is cut off", bit,
			     feat_name(bit), (unsigned long long)off);
			continue;
		}
		c = (struct cur){ r->d + off, r->d + off + size };
		ret = feature(r, bit, &c);
		if (ret == -ENOMEM)
			return ret;
		if (ret) {
			info->bad_features++;
			note(info, 0, "feature section %u (%s) at offset %llu is malformed: skipped",
			     bit, feat_name(bit), (unsigned long long)off);
		}
	}
	return 0;
}

/* ---- data records ------------------------------------------------------ */

/* The event of a non-sample record, and the size and time of its
 * sample_id_all trailer (perf_evsel__parse_id_sample: from the end). */
static int trailer(struct rd *r, const uint8_t *e, size_t n, size_t *tsize, uint64_t *ts)
{
	const struct perf_event_attr *a;
	const uint8_t *q = e + n;
	unsigned ev = 0;
	uint64_t st;
	size_t k;

	*tsize = 0;
	*ts = 0;
	if (r->nr_evs > 1 && r->is_pos > 0 && (size_t)r->is_pos * 8 <= n - 8) {
		int x = id_event(r, ld64(e + n - (size_t)r->is_pos * 8));

		if (x >= 0)
			ev = (unsigned)x;
	}
	a = &r->evs[ev].attr;
	if (!a->sample_id_all)
		return 0;
	st = a->sample_type;
	k = 8 * (!!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ID) +
		 !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
		 !!(st & PERF_SAMPLE_IDENTIFIER));
	if (k > n - 8)
		return bad(r, "record of %zu bytes too short for its %zu-byte sample id", n, k);
	*tsize = k;
	if (st & PERF_SAMPLE_TIME) {
		q -= 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_CPU) +
			  !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_ID) + 1);
		*ts = ld64(q);
	}
	return 0;
}

static void copy_name(char *out, size_t n, const uint8_t *s, size_t max)
{
	size_t l = strnlen((const char *)s, max);

	if (l >= n)
		l = n - 1;
	memcpy(out, s, l);
	out[l] = 0;
}

static int rec_mmap(struct rd *r, const uint8_t *e, size_t n, uint16_t misc, int v2)
{
	size_t fixed = v2 ? 8 + 64 : 8 + 32, tsize;
	unsigned mode = misc & MISC_CPUMODE_MASK;
	struct prof_mmap m = { 0 };
	char path[4096];
	int ret;

	if ((ret = trailer(r, e, n, &tsize, &m.ts)))
		return ret;
	if (n - tsize < fixed)
		return bad(r, "MMAP%s record of %zu bytes is too short", v2 ? "2" : "", n);
	if (mode == PERF_RECORD_MISC_GUEST_KERNEL || mode == PERF_RECORD_MISC_GUEST_USER)
		return 0;
	m.pid = ld32(e + 8);
	m.tid = ld32(e + 12);
	m.start = ld64(e + 16);
	m.len = ld64(e + 24);
	m.pgoff = ld64(e + 32);
	if (v2) {
		m.prot = ld32(e + 64);
		m.flags = ld32(e + 68);
		if (!(m.prot & PROT_X))
			return 0;
		/* a size over 20 is no build id (kernels have flagged device and
		 * inode numbers as one): keep none rather than 20 wrong bytes */
		if ((misc & MISC_MMAP_BUILD_ID) && e[40] <= ZT_BUILD_ID_MAX) {
			m.build_id.len = e[40];
			memcpy(m.build_id.data, e + 44, m.build_id.len);
		}
	} else {
		if (misc & MISC_MMAP_DATA)
			return 0;
		m.prot = 5; /* PROT_READ | PROT_EXEC */
	}
	copy_name(path, sizeof(path), e + fixed, n - tsize - fixed);
	if (m.pid == UINT32_MAX || mode == PERF_RECORD_MISC_KERNEL) {
		/* the kernel and its modules */
		if (m.pid == UINT32_MAX)
			m.pid = ZT_PID_KERNEL;
		if (!strncmp(path, "[kernel.kallsyms]", 17))
			path[17] = 0;
	}
	m.path = path;
	return profile_add_mmap(r->p, &m);
}

static int rec_comm(struct rd *r, const uint8_t *e, size_t n, uint16_t misc)
{
	struct prof_task t = { 0 };
	size_t tsize;
	int ret;

	if ((ret = trailer(r, e, n, &tsize, &t.ts)))
		return ret;
	if (n - tsize < 16)
		return bad(r, "COMM record of %zu bytes is too short", n);
	t.kind = misc & MISC_COMM_EXEC ? PROF_TASK_EXEC : PROF_TASK_COMM;
	t.pid = ld32(e + 8);
	t.tid = ld32(e + 12);
	copy_name(t.comm, sizeof(t.comm), e + 16, n - tsize - 16);
	return profile_add_task(r->p, &t);
}

/* FORK and EXIT: pid, ppid, tid, ptid, time */
static int rec_task(struct rd *r, const uint8_t *e, size_t n, uint32_t kind)
{
	struct prof_task t = { 0 };
	size_t tsize;
	uint64_t ts;
	int ret;

	if ((ret = trailer(r, e, n, &tsize, &ts)))
		return ret;
	if (n - tsize < 8 + 24)
		return bad(r, "%s record of %zu bytes is too short",
			   kind == PROF_TASK_FORK ? "FORK" : "EXIT", n);
	t.kind = kind;
	t.pid = ld32(e + 8);
	t.ppid = ld32(e + 12);
	t.tid = ld32(e + 16);
	t.ptid = ld32(e + 20);
	/* the sample_id time, as perf orders and applies the record (the body's
	 * own time is read a little later: a COMM of the new thread may come
	 * between the two, and perf's order puts it after the FORK) */
	t.ts = ts ? ts : ld64(e + 24);
	return profile_add_task(r->p, &t);
}

/* Bytes of a PERF_SAMPLE_READ value (its read_format), or 0 if it overruns. */
static size_t read_size(uint64_t rf, const uint8_t *p, size_t left)
{
	size_t te = 8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));
	size_t per = 8 + 8 * (!!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
	uint64_t nr;

	if (!(rf & PERF_FORMAT_GROUP))
		return te + per <= left ? te + per : 0;
	/* u64 nr, [enabled], [running], then nr {value, [id], [lost]} */
	if (left < 8 + te)
		return 0;
	nr = ld64(p);
	if (nr > (left - 8 - te) / per)
		return 0;
	return 8 + te + (size_t)nr * per;
}

#define NEED(k)                                                                     \
	do {                                                                        \
		if ((size_t)(end - q) < (size_t)(k))                                \
			return bad(r, "sample of %zu bytes ends inside its %s", n, what); \
	} while (0)

static int rec_sample(struct rd *r, const uint8_t *e, size_t n, uint16_t misc)
{
	const uint8_t *q = e + 8, *end = e + n, *chain = NULL, *raw = NULL;
	const struct perf_event_attr *a;
	struct prof_sample s = { 0 };
	uint32_t raw_len = 0;
	struct prof_ustack u = { 0 };
	unsigned mode = misc & MISC_CPUMODE_MASK, nk = 0, nu = 0;
	const char *what = "id";
	uint64_t st, ip = 0, nr = 0, i;
	int have_ip = 0, ret;
	unsigned ev = r->sel;

	if (r->nr_evs > 1 && r->id_pos >= 0) {
		int x;

		if ((size_t)(n - 8) < (size_t)r->id_pos * 8 + 8)
			return bad(r, "sample of %zu bytes too short for its id", n);
		x = id_event(r, ld64(q + (size_t)r->id_pos * 8));
		if (x < 0) {
			r->info->samples_unknown++;
			return 0;
		}
		ev = (unsigned)x;
	}
	if (r->evmap[ev] == UINT32_MAX) {
		r->info->samples_other++;
		return 0;
	}
	s.event = r->evmap[ev];
	a = &r->evs[ev].attr;
	st = a->sample_type;
	s.cpu = UINT32_MAX;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		NEED(8);
		q += 8;
	}
	if (st & PERF_SAMPLE_IP) {
		what = "ip";
		NEED(8);
		ip = ld64(q);
		have_ip = 1;
		q += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		what = "pid/tid";
		NEED(8);
		s.pid = ld32(q);
		s.tid = ld32(q + 4);
		q += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		what = "time";
		NEED(8);
		s.ts = ld64(q);
		q += 8;
	}
	what = "addr/id/stream id";
	if (st & PERF_SAMPLE_ADDR) {
		NEED(8);
		q += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		NEED(8);
		q += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		NEED(8);
		q += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		what = "cpu";
		NEED(8);
		s.cpu = ld32(q);
		q += 8;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		what = "period";
		NEED(8);
		s.weight = ld64(q);
		q += 8;
	} else {
		s.weight = a->freq ? 1 : a->sample_period;
	}
	if (st & PERF_SAMPLE_READ) {
		size_t k = read_size(a->read_format, q, (size_t)(end - q));

		if (!k)
			return bad(r, "sample of %zu bytes ends inside its read values", n);
		q += k;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		what = "callchain";
		NEED(8);
		nr = ld64(q);
		q += 8;
		if (nr > (size_t)(end - q) / 8)
			return bad(r, "sample of %zu bytes ends inside its callchain of %llu", n,
				   (unsigned long long)nr);
		chain = q;
		q += nr * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t k;

		what = "raw data";
		NEED(4);
		k = ld32(q);
		q += 4;
		NEED(k);
		raw = q;
		raw_len = k;
		q += k;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t bn, per = 24 + (a->branch_sample_type & BRANCH_COUNTERS ? 8 : 0);

		what = "branch stack";
		NEED(8);
		bn = ld64(q);
		q += 8;
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
			NEED(8);
			q += 8;
		}
		if (bn > (size_t)(end - q) / per)
			return bad(r, "sample of %zu bytes ends inside its branch stack", n);
		q += bn * per;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		what = "user registers";
		NEED(8);
		if (ld64(q)) {
			uint64_t mask = a->sample_regs_user;
			unsigned bit;

			q += 8;
			NEED(8 * (size_t)__builtin_popcountll(mask));
			for (bit = 0; bit < 64; bit++) {
				if (!(mask & (1ull << bit)))
					continue;
				if (bit < 24 && perf_to_dwarf[bit] >= 0) {
					u.regs[perf_to_dwarf[bit]] = ld64(q);
					u.regs_mask |= 1u << perf_to_dwarf[bit];
				}
				q += 8;
			}
		} else {
			q += 8;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t k;

		what = "user stack";
		NEED(8);
		k = ld64(q);
		q += 8;
		if (k) {
			NEED(k);
			u.data = q;
			q += k;
			NEED(8); /* dyn_size: the part the kernel could copy */
			u.len = ld64(q) < k ? (size_t)ld64(q) : (size_t)k;
		}
	}
	if (r->ufn) {
		/* the snapshot pass: the same sample numbering, nothing added */
		if (u.regs_mask || u.len) {
			u.sample = r->info->samples;
			r->ustop = r->ufn(r->uarg, &u);
			if (r->ustop)
				return r->ustop;
		}
		r->info->samples++;
		return 0;
	}
	/* WEIGHT, DATA_SRC and later fields: not used */

	if (chain) {
		/* markers switch the context; before any, the sample's cpumode */
		int ctx = mode == PERF_RECORD_MISC_KERNEL ? 1 : mode == PERF_RECORD_MISC_USER ? 2 : 0;

		for (i = 0; i < nr; i++) {
			uint64_t v = ld64(chain + i * 8);

			if (v >= CTX_MAX) {
				if (v == PERF_CONTEXT_KERNEL)
					ctx = 1;
				else if (v == PERF_CONTEXT_USER)
					ctx = 2;
				else if (v == CTX_USER_DEFERRED)
					break;
				else
					ctx = 0; /* hypervisor, guest */
				continue;
			}
			if (ctx == 1 && nk < ZT_MAX_FRAMES)
				r->ips[nk++] = v;
			else if (ctx == 2 && nu < ZT_MAX_FRAMES)
				r->uips[nu++] = v;
		}
	}
	if (!nk && !nu && have_ip) {
		if (mode == PERF_RECORD_MISC_KERNEL)
			r->ips[nk++] = ip;
		else if (mode == PERF_RECORD_MISC_USER)
			r->uips[nu++] = ip;
	}
	memcpy(r->ips + nk, r->uips, nu * sizeof(*r->uips));
	if ((ret = profile_intern_stack(r->p, r->ips, nk, nu, &s.stack)))
		return ret;
	/* a tracepoint's fields (a record's size field caps it at 64 KiB) */
	if (raw && raw_len <= PROF_RAW_MAX && (ret = profile_add_raw(r->p, raw, raw_len, &s.raw)))
		return ret;
	if ((ret = profile_add_sample(r->p, &s)))
		return ret;
	if (!r->have_time && (st & PERF_SAMPLE_TIME)) {
		if (!r->info->samples || s.ts < r->ts_first)
			r->ts_first = s.ts;
		if (s.ts > r->ts_last)
			r->ts_last = s.ts;
	}
	r->info->samples++;
	return 0;
}

static int decompress(struct rd *r, const uint8_t *src, size_t n);

/* One record of n bytes (n >= 8, checked by the caller). */
static int record(struct rd *r, const uint8_t *e, size_t n, int nested)
{
	uint32_t type = ld32(e);
	uint16_t misc = ld16(e + 4);
	size_t tsize;
	uint64_t ts;
	int ret;

	r->info->records++;
	if (type < sizeof(r->by_type) / sizeof(r->by_type[0]))
		r->by_type[type]++;
	switch (type) {
	case PERF_RECORD_SAMPLE:
		return rec_sample(r, e, n, misc);
	case PERF_RECORD_MMAP:
		return rec_mmap(r, e, n, misc, 0);
	case PERF_RECORD_MMAP2:
		return rec_mmap(r, e, n, misc, 1);
	case PERF_RECORD_COMM:
		return rec_comm(r, e, n, misc);
	case PERF_RECORD_FORK:
		return rec_task(r, e, n, PROF_TASK_FORK);
	case PERF_RECORD_EXIT:
		return rec_task(r, e, n, PROF_TASK_EXIT);
	case PERF_RECORD_LOST: /* id, lost */
		if ((ret = trailer(r, e, n, &tsize, &ts)))
			return ret;
		if (n - tsize < 24)
			return bad(r, "LOST record of %zu bytes is too short", n);
		r->p->lost_events += ld64(e + 16);
		return 0;
	case PERF_RECORD_LOST_SAMPLES: /* lost */
		if ((ret = trailer(r, e, n, &tsize, &ts)))
			return ret;
		if (n - tsize < 16)
			return bad(r, "LOST_SAMPLES record of %zu bytes is too short", n);
		r->p->lost_samples += ld64(e + 8);
		return 0;
	case REC_COMPRESSED:
	case REC_COMPRESSED2:
		if (nested)
			return bad(r, "a compressed record inside a compressed record");
		r->info->compressed++;
		if (type == REC_COMPRESSED)
			return decompress(r, e + 8, n - 8);
		/* COMPRESSED2: u64 data_size, then the data padded to 8 bytes */
		if (n < 16 || ld64(e + 8) > n - 16)
			return bad(r, "COMPRESSED2 record of %zu bytes with a bad data size", n);
		return decompress(r, e + 16, (size_t)ld64(e + 8));
	}
	if (type > REC_LAST_KNOWN || (type > PERF_RECORD_MAX && type < 64))
		r->info->unknown++;
	return 0;
}

/* perf's compressed records continue one zstd stream, and a record may
 * start in one and end in the next (session.c keeps the remainder). */
static int decompress(struct rd *r, const uint8_t *src, size_t n)
{
	ZSTD_inBuffer in = { src, n, 0 };
	size_t produced = 0, pos = 0;

	if (!r->zd) {
		r->zd = ZSTD_createDStream();
		if (!r->zd || ZSTD_isError(ZSTD_initDStream(r->zd)))
			return -ENOMEM;
	}
	for (;;) {
		ZSTD_outBuffer out;
		size_t z;

		if (r->zcap - r->zlen < (64u << 10)) {
			size_t cap = r->zcap ? r->zcap * 2 : 1u << 20;
			uint8_t *nb;

			if (cap > PERFDATA_DECOMP_RECORD_MAX + (128u << 10))
				cap = PERFDATA_DECOMP_RECORD_MAX + (128u << 10);
			if (cap - r->zlen < (64u << 10))
				return bad(r, "a compressed record expands to more than %u MiB",
					   PERFDATA_DECOMP_RECORD_MAX >> 20);
			nb = realloc(r->zbuf, cap);
			if (!nb)
				return -ENOMEM;
			r->zbuf = nb;
			r->zcap = cap;
		}
		out = (ZSTD_outBuffer){ r->zbuf, r->zcap, r->zlen };
		z = ZSTD_decompressStream(r->zd, &out, &in);
		if (ZSTD_isError(z))
			return bad(r, "zstd: %s", ZSTD_getErrorName(z));
		produced += out.pos - r->zlen;
		r->zlen = out.pos;
		if (produced > PERFDATA_DECOMP_RECORD_MAX)
			return bad(r, "a compressed record expands to more than %u MiB",
				   PERFDATA_DECOMP_RECORD_MAX >> 20);
		if (in.pos == in.size && out.pos < out.size)
			break;
	}
	r->info->decompressed += produced;
	if (r->info->decompressed > r->zmax)
		return bad(r, "the compressed records expand to more than %llu bytes",
			   (unsigned long long)r->zmax);
	while (r->zlen - pos >= 8) {
		uint16_t size = ld16(r->zbuf + pos + 6);
		int ret;

		if (size < 8)
			return bad(r, "record of size %u at offset %zu of the decompressed data",
				   size, pos);
		if (size > r->zlen - pos)
			break;
		if ((ret = record(r, r->zbuf + pos, size, 1)))
			return ret;
		pos += size;
	}
	memmove(r->zbuf, r->zbuf + pos, r->zlen - pos);
	r->zlen -= pos;
	return 0;
}

/* ---- the file ---------------------------------------------------------- */

int perfdata_probe(const void *head, size_t n)
{
	uint64_t m;

	if (n < 8)
		return 0;
	memcpy(&m, head, 8);
	return m == MAGIC2 || m == __builtin_bswap64(MAGIC2);
}

static int check_header(const uint8_t *d, size_t len, struct perfdata_info *info)
{
	uint64_t m, hsize;

	if (len < 16) {
		note(info, 1, len >= 8 && perfdata_probe(d, len) ?
			"perf.data header cut short (%zu bytes)" : "not a perf.data file (%zu bytes)", len);
		return -EBADMSG;
	}
	m = ld64(d);
	if (m == __builtin_bswap64(MAGIC2) || m == __builtin_bswap64(MAGIC1)) {
		note(info, 1, "perf.data from a machine of the other byte order: not supported");
		return -ENOTSUP;
	}
	if (m == MAGIC1) {
		note(info, 1, "perf.data version 1 (\"PERFFILE\", perf before 2.6.37): not supported");
		return -ENOTSUP;
	}
	if (m != MAGIC2) {
		note(info, 1, "not a perf.data file (bad magic)");
		return -EBADMSG;
	}
	hsize = ld64(d + 8);
	if (hsize == PIPE_HDR_SIZE)
		return 1; /* pipe mode: perf record -o - */
	if (hsize != HDR_SIZE) {
		note(info, 1, "perf.data header size %llu at offset 8: expected %u",
		     (unsigned long long)hsize, HDR_SIZE);
		return -EBADMSG;
	}
	if (len < HDR_SIZE) {
		note(info, 1, "perf.data header cut short (%zu of %u bytes)", len, HDR_SIZE);
		return -EBADMSG;
	}
	return 0;
}

/* A feature table at off, as perf writes it: its first section right after it. */
static int features_follow(const uint8_t *d, size_t len, uint64_t off)
{
	uint64_t nr = 0;
	unsigned bit;

	for (bit = 0; bit < NR_FEAT_BITS; bit++)
		nr += (d[72 + bit / 8] >> (bit % 8)) & 1;
	return nr && in_file(off, nr * 16, len) && ld64(d + off) == off + nr * 16;
}

static int name_matches(const char *have, const char *want)
{
	size_t l = strlen(want);

	if (!strcmp(have, want))
		return 1;
	/* "cpu-clock" matches "cpu-clock:ppp", "cpu-clock:u" matches "cpu-clock" */
	if (!strncmp(have, want, l) && have[l] == ':')
		return 1;
	l = strlen(have);
	return !strncmp(want, have, l) && want[l] == ':';
}

static int select_event(struct rd *r, const struct perfdata_opts *o)
{
	char list[200];
	size_t n = 0;
	unsigned i;

	r->sel = 0;
	for (i = 0; i < r->nr_evs; i++)
		if (!r->evs[i].dummy) {
			r->sel = i;
			break;
		}
	if (o && o->event_name) {
		for (i = 0; i < r->nr_evs; i++)
			if (name_matches(r->evs[i].name, o->event_name))
				break;
		if (i < r->nr_evs) {
			r->sel = i;
			return 0;
		}
		list[0] = 0;
		for (i = 0; i < r->nr_evs && n < sizeof(list) - 1; i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
					      r->evs[i].name);
		note(r->info, 1, "no event '%s' in the file (it has: %s)", o->event_name, list);
		return -ENOENT;
	}
	if (o && o->event >= 0) {
		if ((unsigned)o->event >= r->nr_evs) {
			note(r->info, 1, "no event %d in the file (it has %u)", o->event, r->nr_evs);
			return -ENOENT;
		}
		r->sel = (unsigned)o->event;
	}
	return 0;
}

/* The profile's events: the selected one, or with all every one but
 * dummies (the snapshot pass numbers samples alike, and adds nothing). */
static int event_table(struct rd *r, int all)
{
	unsigned i;
	uint32_t idx = 0;
	int ret;

	r->evmap = malloc(r->nr_evs * sizeof(*r->evmap));
	if (!r->evmap)
		return -ENOMEM;
	for (i = 0; i < r->nr_evs; i++) {
		const struct perf_event_attr *a = &r->evs[i].attr;
		struct prof_event e = { r->evs[i].name, a->type, a->config, a->sample_period,
					(a->freq ? PROF_EV_FREQ : 0) |
						(a->exclude_user ? PROF_EV_EXCL_USER : 0) |
						(a->exclude_kernel ? PROF_EV_EXCL_KERNEL : 0) };

		r->evmap[i] = UINT32_MAX;
		if (all ? r->evs[i].dummy && i != r->sel : i != r->sel)
			continue;
		if (r->ufn) {
			r->evmap[i] = idx++;
			continue;
		}
		if ((ret = profile_add_event(r->p, &e, &r->evmap[i])))
			return ret;
	}
	return 0;
}

/* perf's names of the sample_type bits (perf_event_attr__fprintf) */
static int sample_type_meta(struct profile *p, uint64_t st)
{
	static const char *const names[] = {
		"IP",
		"TID",
		"TIME",
		"ADDR",
		"READ",
		"CALLCHAIN",
		"ID",
		"CPU",
		"PERIOD",
		"STREAM_ID",
		"RAW",
		"BRANCH_STACK",
		"REGS_USER",
		"STACK_USER",
		"WEIGHT",
		"DATA_SRC",
		"IDENTIFIER",
		"TRANSACTION",
		"REGS_INTR",
		"PHYS_ADDR",
		"AUX",
		"CGROUP",
		"DATA_PAGE_SIZE",
		"CODE_PAGE_SIZE",
		"WEIGHT_STRUCT",
	};
	char buf[512];
	size_t n = 0, i;

	buf[0] = 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && n < sizeof(buf) - 1; i++)
		if (st & (1ull << i))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "|" : "",
					      names[i]);
	return profile_set_meta(p, "sample_type", buf);
}

/* The counts of records by type, "TYPE:N,..." (perf report --stats),
 * and where the file's parts are (perf report --header). */
static int stats_meta(struct rd *r)
{
	char buf[1024], num[96];
	size_t n = 0, i;

	buf[0] = 0;
	for (i = 0; i < sizeof(r->by_type) / sizeof(r->by_type[0]) && n < sizeof(buf) - 1; i++)
		if (r->by_type[i])
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%zu:%llu", n ? "," : "",
					      i, (unsigned long long)r->by_type[i]);
	snprintf(num, sizeof(num), "%llu,%llu", (unsigned long long)r->info->data_offset,
		 (unsigned long long)r->info->data_size);
	return profile_set_meta(r->p, "perf_record_counts", buf) ||
			       profile_set_meta(r->p, "perf_data_section", num)
		       ? -ENOMEM
		       : 0;
}

/* Every attr of the file, dummies too, as perf evlist lists them: meta
 * "evlist", a line "NAME\tTYPE\tCONFIG\tPERIOD\tFLAGS" each (PROF_EV_*). */
static int evlist_meta(struct rd *r)
{
	char *text = NULL, name[sizeof(r->evs[0].name)];
	size_t len = 0;
	unsigned i;
	FILE *f = open_memstream(&text, &len);
	int ret;

	if (!f)
		return -ENOMEM;
	for (i = 0; i < r->nr_evs; i++) {
		const struct perf_event_attr *a = &r->evs[i].attr;
		unsigned flags = (a->freq ? PROF_EV_FREQ : 0) |
				 (a->exclude_user ? PROF_EV_EXCL_USER : 0) |
				 (a->exclude_kernel ? PROF_EV_EXCL_KERNEL : 0);
		size_t k;

		snprintf(name, sizeof(name), "%s", r->evs[i].name);
		for (k = 0; name[k]; k++)
			if (name[k] == '\t' || name[k] == '\n')
				name[k] = '?';
		fprintf(f, "%s\t%u\t%llu\t%llu\t%u\n", name, (unsigned)a->type,
			(unsigned long long)a->config, (unsigned long long)a->sample_period, flags);
	}
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	ret = profile_set_meta(r->p, "evlist", text);
	free(text);
	return ret;
}

static int set_meta(struct rd *r)
{
	const struct pd_event *e = &r->evs[r->sel];
	uint64_t st = e->attr.sample_type;
	char buf[1024], num[32];
	size_t n = 0;
	unsigned i;
	int ret = 0;

	buf[0] = 0;
	for (i = 0; i < r->nr_evs && n < sizeof(buf) - 1; i++)
		if (!r->evs[i].dummy || i == r->sel)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "," : "",
					      r->evs[i].name);
	ret = ret ? ret : profile_set_meta(r->p, "sampler", "perf");
	ret = ret ? ret : sample_type_meta(r->p, st);
	ret = ret ? ret : profile_set_meta(r->p, "event", e->name);
	ret = ret ? ret : profile_set_meta(r->p, "events", buf);
	ret = ret ? ret : evlist_meta(r);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)e->attr.sample_period);
	ret = ret ? ret : profile_set_meta(r->p, e->attr.freq ? "freq" : "period", num);
	r->info->dwarf = !!(st & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER));
	ret = ret ? ret : profile_set_meta(r->p, "callchain", r->info->dwarf ? "dwarf" :
							     st & PERF_SAMPLE_CALLCHAIN ? "fp" : "none");
	if (r->arch[0]) {
		char t[64];

		prof_sanitize(t, sizeof(t), r->arch);
		ret = ret ? ret : profile_set_meta(r->p, "arch", t);
	}
	return ret;
}

static int finish(struct rd *r, size_t first_mmap)
{
	char num[32];
	size_t i;
	int ret = 0;

	for (i = first_mmap; i < r->p->nr_mmaps && r->nr_bids; i++) {
		struct prof_mmap *m = &r->p->mmaps[i];
		const struct prof_build_id *b;

		if (!m->build_id.len && (b = find_bid(r, m->path)))
			m->build_id = *b;
	}
	for (i = 0; i < r->nr_bids; i++)
		if (r->bids[i].kernel && !strcmp(r->bids[i].path, "[kernel.kallsyms]") &&
		    r->bids[i].b.len && !profile_find_blob(r->p, PROF_BLOB_KERNEL_BUILD_ID, UINT32_MAX)) {
			ret = profile_add_blob(r->p, PROF_BLOB_KERNEL_BUILD_ID, 0, 0,
					       r->bids[i].b.data, r->bids[i].b.len);
			if (ret)
				return ret;
		}
	if ((ret = stats_meta(r)) || (ret = bid_table_meta(r)))
		return ret;
	if (r->have_time || r->info->samples) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)r->ts_first);
		ret = profile_set_meta(r->p, "time_start", num);
		snprintf(num, sizeof(num), "%llu", (unsigned long long)r->ts_last);
		ret = ret ? ret : profile_set_meta(r->p, "time_end", num);
	}
	return ret;
}

/* Bytes that follow a record of n bytes as part of it: the AUX data of an
 * AUXTRACE record, the tracing data of a pipe's TRACING_DATA record. */
static uint64_t payload_after(const uint8_t *e, size_t n)
{
	switch (ld32(e)) {
	case REC_HEADER_TRACING_DATA:
		return n >= 12 ? ((uint64_t)ld32(e + 8) + 7) & ~7ull : 0;
	case REC_AUXTRACE:
		return n >= 16 ? ld64(e + 8) : 0;
	}
	return 0;
}

static int read_data(struct rd *r, uint64_t off, uint64_t end, int cut)
{
	struct perfdata_info *info = r->info;
	uint64_t extra;
	int ret = 0;

	info->good_end = off;
	while (off < end) {
		uint16_t size;

		if (end - off < 8)
			goto short_rec;
		size = ld16(r->d + off + 6);
		if (size < 8 && info->unfinished) {
			/* a killed perf leaves unwritten (zero) space at the end */
			info->truncated = 1;
			note(info, 1, "data size 0 in the header (perf record did not finish): read "
				      "the records up to offset %llu, where a record of size %u is",
			     (unsigned long long)off, size);
			return 0;
		}
		if (size < 8) {
			note(info, 1, "data record at offset %llu has size %u",
			     (unsigned long long)off, size);
			return -EBADMSG;
		}
		if (size > end - off)
			goto short_rec;
		extra = payload_after(r->d + off, size);
		if (extra > end - off - size)
			goto short_rec;
		ret = record(r, r->d + off, size, 0);
		if (r->ustop)
			return r->ustop;
		if (ret == -ENOMEM) {
			note(info, 1, "out of memory reading the record at offset %llu",
			     (unsigned long long)off);
			return ret;
		}
		if (ret) {
			note(info, 1, "data record at offset %llu (type %u): %s",
			     (unsigned long long)off, ld32(r->d + off), r->why);
			return ret;
		}
		off += size + extra;
		info->good_end = off;
	}
	if (r->zlen) {
		info->truncated = 1;
		note(info, 1, "the compressed data ends inside a record (%zu bytes left over)",
		     r->zlen);
	}
	return 0;
short_rec:
	if (cut) {
		info->truncated = 1;
		note(info, 1, "the file ends inside the data record at offset %llu: read up to there",
		     (unsigned long long)off);
		return 0;
	}
	note(info, 1, "data record at offset %llu runs past the end of the data section",
	     (unsigned long long)off);
	return -EBADMSG;
}

/* ---- pipe mode ---------------------------------------------------------- */

/* HEADER_ATTR: the attr (its own size), then the event's ids. */
static int pipe_attr(struct rd *r, const uint8_t *e, size_t n)
{
	uint64_t asz = n >= 16 ? ld32(e + 12) : 0, nids, i;
	struct pd_event *evs, *ev;
	struct pd_id *ids;

	if (!asz)
		asz = PERF_ATTR_SIZE_VER0;
	if (n < 8 + PERF_ATTR_SIZE_VER0 || asz > n - 8 || asz < PERF_ATTR_SIZE_VER0)
		return bad(r, "ATTR record of %zu bytes with attr size %llu", n,
			   (unsigned long long)asz);
	if (r->nr_evs >= 4096)
		return bad(r, "more than 4096 ATTR records");
	nids = (n - 8 - asz) / 8;
	evs = realloc(r->evs, (r->nr_evs + 1) * sizeof(*evs));
	if (!evs)
		return -ENOMEM;
	r->evs = evs;
	ids = realloc(r->ids, (r->nr_ids + nids + 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	r->ids = ids;
	ev = &r->evs[r->nr_evs];
	memset(ev, 0, sizeof(*ev));
	memcpy(&ev->attr, e + 8, asz < sizeof(ev->attr) ? asz : sizeof(ev->attr));
	ev->attr.size = (uint32_t)(asz < sizeof(ev->attr) ? asz : sizeof(ev->attr));
	ev->dummy = ev->attr.type == PERF_TYPE_SOFTWARE && ev->attr.config == PERF_COUNT_SW_DUMMY;
	default_name(ev);
	for (i = 0; i < nids; i++)
		r->ids[r->nr_ids++] = (struct pd_id){ ld64(e + 8 + asz + i * 8), r->nr_evs };
	r->nr_evs++;
	return 0;
}

/* The records a pipe carries instead of a file's header: the other kind
 * of pass over [off, end) than the attrs. */
static int pipe_header_rec(struct rd *r, const uint8_t *e, size_t n)
{
	struct cur c = { e, e + n };
	char name[128];
	int ev;

	switch (ld32(e)) {
	case REC_EVENT_UPDATE: /* u64 type, u64 id, then per type */
		if (n < 24)
			return -EBADMSG;
		if (ld64(e + 8) != EVENT_UPDATE_NAME || (ev = id_event(r, ld64(e + 16))) < 0)
			return 0;
		copy_name(name, sizeof(name), e + 24, n - 24);
		if (name[0])
			prof_sanitize(r->evs[ev].name, sizeof(r->evs[ev].name), name);
		return 0;
	case REC_HEADER_FEATURE: /* u64 feature bit, then its section */
		if (n < 16)
			return -EBADMSG;
		if (ld64(e + 8) >= NR_FEAT_BITS)
			return 0;
		c.p = e + 16;
		return feature(r, (unsigned)ld64(e + 8), &c);
	case REC_HEADER_BUILD_ID: /* one entry of the build-id feature */
		return feat_build_id(r, &c);
	}
	return 0;
}

/* Scan a pipe's records for its header: attrs first (attrs == 1), then the
 * names, features and build ids (attrs == 0), which refer to the ids. */
static int pipe_headers(struct rd *r, uint64_t off, uint64_t end, int attrs)
{
	while (end - off >= 8) {
		const uint8_t *e = r->d + off;
		uint32_t type = ld32(e);
		uint16_t size = ld16(e + 6);
		uint64_t extra;
		int ret = 0;

		if (size < 8 || size > end - off)
			break; /* the data pass says what is wrong there */
		extra = payload_after(e, size);
		if (attrs && type == REC_HEADER_ATTR)
			ret = pipe_attr(r, e, size);
		else if (!attrs && type == REC_HEADER_TRACING_DATA && extra <= end - off - size &&
			 size >= 12)
			ret = tracing_data(r, e + size, ld32(e + 8));
		else if (!attrs)
			ret = pipe_header_rec(r, e, size);
		if (ret == -ENOMEM)
			return ret;
		if (ret && attrs) {
			note(r->info, 1, "header record at offset %llu: %s", (unsigned long long)off,
			     r->why);
			return ret;
		}
		if (ret) {
			r->info->bad_features++;
			note(r->info, 0, "header record at offset %llu (type %u) is malformed: skipped",
			     (unsigned long long)off, type);
		}
		if (extra > end - off - size)
			break;
		off += size + extra;
	}
	if (!attrs)
		return 0;
	if (!r->nr_evs) {
		note(r->info, 1, "perf.data in pipe mode without any ATTR record: no events to read");
		return -EBADMSG;
	}
	if (r->nr_ids)
		qsort(r->ids, r->nr_ids, sizeof(*r->ids), id_cmp);
	r->id_pos = calc_id_pos(r->evs[0].attr.sample_type);
	r->is_pos = calc_is_pos(r->evs[0].attr.sample_type);
	return 0;
}

static int read_mem(const void *data, size_t len, struct profile *p,
		    const struct perfdata_opts *opts, struct perfdata_info *info, prof_ustack_fn ufn,
		    void *uarg)
{
	struct perfdata_info dummy;
	const uint8_t *d = data;
	uint64_t aoff, asize, doff, dsize, dend;
	size_t first_mmap = p->nr_mmaps;
	struct rd *r;
	int ret, cut = 0, pipe;
	size_t i;

	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	info->size = len;
	info->event = -1;
	if ((ret = check_header(d, len, info)) < 0)
		return ret;
	pipe = ret;
	r = calloc(1, sizeof(*r));
	if (!r) {
		note(info, 1, "out of memory");
		return -ENOMEM;
	}
	r->d = d;
	r->len = len;
	r->p = p;
	r->info = info;
	r->ufn = ufn;
	r->uarg = uarg;
	r->zmax = PERFDATA_DECOMP_TOTAL_MIN + 64 * (uint64_t)len;
	if (pipe) {
		/* the header comes as records; the data is the rest of the stream */
		doff = PIPE_HDR_SIZE;
		dsize = len - PIPE_HDR_SIZE;
		dend = len;
		cut = 1;
		info->data_offset = doff;
		ret = pipe_headers(r, doff, dend, 1);
		if (!ret)
			ret = pipe_headers(r, doff, dend, 0);
		if (ret == -ENOMEM)
			note(info, 1, "out of memory");
		if (ret)
			goto out;
		info->nr_events = r->nr_evs;
		goto events;
	}
	aoff = ld64(d + 24);
	asize = ld64(d + 32);
	doff = ld64(d + 40);
	dsize = ld64(d + 48);
	info->data_offset = doff;
	info->data_size = dsize;
	ret = read_attrs(r, ld64(d + 16), aoff, asize);
	if (ret) {
		if (ret == -ENOMEM)
			note(info, 1, "out of memory");
		else
			note(info, 1, "%s", r->why);
		goto out;
	}
	info->nr_events = r->nr_evs;
	if (doff < HDR_SIZE || doff > UINT64_MAX - dsize) {
		note(info, 1, "data section offset %llu (size %llu) in the header is not valid",
		     (unsigned long long)doff, (unsigned long long)dsize);
		ret = -EBADMSG;
		goto out;
	}
	dend = doff + dsize;
	if (!dsize && len > doff && !features_follow(d, len, doff)) {
		/* perf writes the sizes at exit: a killed perf record leaves 0 */
		info->unfinished = 1;
		dend = len;
		cut = 1;
		note(info, 0, "data size 0 in the header (perf record did not finish): "
			      "reading the records up to the end of the file");
	} else if (dend > len) {
		info->truncated = 1;
		dend = len;
		cut = 1;
	} else {
		ret = read_features(r, d + 72, dend);
		if (ret) {
			note(info, 1, "out of memory");
			goto out;
		}
	}
events:
	if (r->arch[0] && strcmp(r->arch, "x86_64")) {
		char t[64];

		prof_sanitize(t, sizeof(t), r->arch);
		note(info, 1, "perf.data recorded on '%s': only x86_64 recordings are supported "
			      "for now", t);
		ret = -ENOTSUP;
		goto out;
	}
	if ((ret = select_event(r, opts)))
		goto out;
	info->event = (int)r->sel;
	if ((ret = event_table(r, opts && opts->all && opts->event < 0 && !opts->event_name))) {
		note(info, 1, "out of memory");
		goto out;
	}
	if ((ret = set_meta(r))) {
		note(info, 1, "out of memory");
		goto out;
	}
	if (doff >= len) {
		info->good_end = len;
		if (dsize) {
			info->truncated = 1;
			note(info, 1, "the file ends before its data section (offset %llu)",
			     (unsigned long long)doff);
		}
	} else if ((ret = read_data(r, doff, dend, cut))) {
		goto out;
	}
	if (ufn)
		goto out; /* the snapshot pass needs no more */
	if (info->truncated)
		note(info, 0, "the file is cut short at offset %llu (the data section ends at %llu): "
			      "read up to offset %llu", (unsigned long long)len,
		     (unsigned long long)(doff + dsize), (unsigned long long)info->good_end);
	ret = finish(r, first_mmap);
	if (ret)
		note(info, 1, "out of memory");
out:
	if (ret == -ENOMEM && !info->msg[0])
		note(info, 1, "out of memory");
	for (i = 0; i < r->nr_bids; i++)
		free(r->bids[i].path);
	free(r->bids);
	free(r->evs);
	free(r->evmap);
	free(r->ids);
	free(r->zbuf);
	ZSTD_freeDStream(r->zd);
	free(r);
	return ret;
}

int perfdata_read_mem(const void *data, size_t len, struct profile *p,
		      const struct perfdata_opts *opts, struct perfdata_info *info)
{
	return read_mem(data, len, p, opts, info, NULL, NULL);
}

int perfdata_read_ustacks_mem(const void *data, size_t len, const struct perfdata_opts *opts,
			      prof_ustack_fn fn, void *arg, struct perfdata_info *info)
{
	struct profile scratch; /* the side-band records read again, then dropped */
	int ret;

	profile_init(&scratch);
	ret = read_mem(data, len, &scratch, opts, info, fn, arg);
	profile_release(&scratch);
	return ret;
}

static int read_file(const char *path, struct profile *p, const struct perfdata_opts *opts,
		     struct perfdata_info *info, prof_ustack_fn ufn, void *uarg)
{
	struct perfdata_info dummy;
	struct zt_image img;
	const char *what;
	int ret;

	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	info->event = -1;
	ret = zt_image_open(path, &img, &what);
	if (ret == -ESPIPE) {
		note(info, 1, "'%s' is not a regular file", path);
	} else if (ret) {
		note(info, 1, "cannot %s '%s': %s", what, path, strerror(-ret));
	} else if (img.is_dir) {
		ret = -ENOTSUP;
		note(info, 1, "'%s' is a perf.data directory (perf record --threads): not "
			      "supported", path);
	} else {
		ret = ufn ? perfdata_read_ustacks_mem(img.data, img.len, opts, ufn, uarg, info)
			  : perfdata_read_mem(img.data, img.len, p, opts, info);
	}
	zt_image_close(&img);
	return ret;
}

int perfdata_read_file(const char *path, struct profile *p, const struct perfdata_opts *opts,
		       struct perfdata_info *info)
{
	return read_file(path, p, opts, info, NULL, NULL);
}

int perfdata_read_ustacks_file(const char *path, const struct perfdata_opts *opts,
			       prof_ustack_fn fn, void *arg, struct perfdata_info *info)
{
	return read_file(path, NULL, opts, info, fn, arg);
}
