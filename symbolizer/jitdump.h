/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf's jitdump files (jit-PID.dump, written by JIT runtimes: the JVMTI
 * agent, V8 --perf-prof, .NET, LuaJIT, Wasmtime...): the code regions a JIT
 * loaded and moved over time, with their names and source lines, looked up
 * by (address, time). Format: tools/perf/util/jitdump.h in Linux.
 */
#ifndef ZT_JITDUMP_H
#define ZT_JITDUMP_H

#include <stddef.h>
#include <stdint.h>

#define JITDUMP_MAGIC 0x4A695444u    /* "JiTD" in the writer's byte order */
#define JITDUMP_MAGIC_SW 0x4454694Au /* written on the other endianness */
#define JITDUMP_FLAGS_ARCH_TIMESTAMP 1ull

enum jitdump_record {
	JIT_CODE_LOAD = 0,
	JIT_CODE_MOVE = 1,
	JIT_CODE_DEBUG_INFO = 2,
	JIT_CODE_CLOSE = 3,
	JIT_CODE_UNWINDING_INFO = 4,
};

/* The file header, in host byte order. */
struct jitdump_header {
	uint32_t version;   /* 1 */
	uint32_t elf_mach;  /* EM_X86_64, ... */
	uint32_t pid;
	uint64_t timestamp;
	uint64_t flags;     /* JITDUMP_FLAGS_ARCH_TIMESTAMP: times are TSC
			     * ticks, not CLOCK_MONOTONIC ns; converting them is
			     * the caller's business (perf's time_conv) */
	int swapped;        /* written on a machine of the other byte order */
};

/* One source line entry of a region (JIT_CODE_DEBUG_INFO). */
struct jitdump_line {
	uint64_t addr;      /* absolute code address where the line starts */
	const char *file;   /* borrowed, never NULL */
	int32_t line;       /* from 1 */
	int32_t discrim;
};

/* A code region: code loaded (or moved) at time ts into [start, start+size). */
struct jitdump_region {
	uint64_t ts;
	uint64_t end_ts;    /* moved away at this time; UINT64_MAX if never */
	uint64_t start, size;
	uint64_t code_index; /* the JIT's id of the code, kept across moves */
	uint32_t pid, tid;
	const char *name;   /* borrowed, never NULL (may be "") */
	const struct jitdump_line *lines; /* sorted by addr; borrowed */
	size_t nr_lines;
	int moved;          /* created by JIT_CODE_MOVE, not a load */
};

struct jitdump;

/* Parse a jitdump image (borrowed only during the call). A file the JIT was
 * still writing (or killed while writing) usually ends in a partial record:
 * parsing stops there and *truncated says so (jitdump_stats). Records with
 * inconsistent lengths are skipped and counted; unknown types are skipped.
 * Returns 0, -EBADMSG (not a jitdump: magic, or a header shorter than its
 * 40 bytes), -ENOTSUP (flags perf does not know), -ENOMEM. */
int jitdump_parse(const void *data, size_t len, struct jitdump **out);
/* jitdump_parse of a file; also -errno of reading it, -EFBIG past 4 GiB. */
int jitdump_open(const char *path, struct jitdump **out);
void jitdump_free(struct jitdump *j);

const struct jitdump_header *jitdump_header(const struct jitdump *j);

struct jitdump_stats {
	size_t records;     /* complete records read */
	size_t bad_records; /* skipped: lengths inconsistent with the record */
	size_t unknown;     /* skipped: unknown type */
	int truncated;      /* the image ended inside a record */
	int closed;         /* a JIT_CODE_CLOSE was seen */
};
void jitdump_stats(const struct jitdump *j, struct jitdump_stats *s);

/* All regions in file order (pointers stay valid until jitdump_free). */
size_t jitdump_count(const struct jitdump *j);
const struct jitdump_region *jitdump_region(const struct jitdump *j, size_t i);

/* The region that covered addr at time ts: of the regions containing addr
 * with ts >= region ts and ts < end_ts, the one loaded last (on equal times,
 * the later record). ts UINT64_MAX: the newest. NULL when none did. When
 * line is not NULL, *line is set to the line entry for addr (the last with
 * entry addr <= addr) or NULL. */
const struct jitdump_region *jitdump_lookup(const struct jitdump *j, uint64_t addr, uint64_t ts,
					    const struct jitdump_line **line);
/* The line entry of r for addr, or NULL. */
const struct jitdump_line *jitdump_region_line(const struct jitdump_region *r, uint64_t addr);

#endif
