/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The on-disk cache of unwind tables (cfitab.h's pages), keyed by GNU build
 * id like the GSYM cache: DIR/cfi/<hex build id>.cfi under the build-id
 * cache's directory (buildid_cache.h: the sudo user's under sudo, written
 * with their rights), so zt record builds a big binary's table once.
 *
 * File format, all integers little-endian, no padding:
 *
 *   header, 40 bytes
 *     0  magic       "ZTCFI\0"
 *     6  u16 version  2 (CFICACHE_VERSION; 1 had no %rbx rules)
 *     8  u32 shift    CFIPAGE_SHIFT (16): a table of other pages is refused
 *    12  u32 nr_segs     <= CFICACHE_MAX_SEGS
 *    16  u32 nr_rules    <= 65536
 *    20  u32 nr_pages    <= CFIPAGES_MAX
 *    24  u32 nr_entries
 *    28  u32 reserved    0
 *    32  u64 checksum    zt_hash_pair(zt_hash_bytes(header bytes [0, 32)),
 *                                     zt_hash_bytes(payload)) (libprof/hash.h)
 *   payload, exactly 24 * nr_segs + 16 * nr_rules + 16 * nr_pages
 *            + 4 * nr_entries bytes, the file's end
 *     segs     u64 offset, u64 vaddr, u64 filesz
 *     rules    i32 cfa_off, i32 fp_off, u8 kind, u8 cfa_reg, u8 fp, u8 bx,
 *              i32 bx_off
 *     pages    u64 page, u32 first, u32 nr
 *     entries  u16 lo, u16 rule
 *
 * A file is used only when all of it holds together, since what it says
 * goes into BPF maps as it is: the header as above, the checksum, rules of
 * known kinds, registers and %rbp and %rbx rules (any offsets), pages
 * strictly increasing (each below 2^48: a 64-bit address's page) with
 * nr >= 1 entries each, their ranges [first, first + nr) in order one after
 * the other and covering all entries, within a page lo strictly increasing
 * from 0, every rule index < nr_rules, segments with filesz > 0 whose ends
 * do not wrap. Anything else is malformed (-EINVAL): the caller builds the
 * table afresh and stores it over the bad one.
 *
 * The checksum (zt_hash_bytes() reads little-endian words on x86-64, zt's
 * only host) catches damage: every change of a single byte, and with the
 * counts every truncation. It is no signature: a forged file that passes
 * the checks is still a table a BPF program can search safely, only a
 * wrong one for that build id.
 *
 * An empty table (no pages) is a valid entry: a file without CFI is
 * cached too, so that it is not tried again.
 */
#ifndef ZT_CFICACHE_H
#define ZT_CFICACHE_H

#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

#include "libprof/profile.h"
#include "symbolizer/buildid_cache.h"
#include "symbolizer/cfitab.h"

#define CFICACHE_VERSION  2
#define CFICACHE_MAX_SEGS 4
/* The largest cache file read (cc1's table is a few MiB). */
#define CFICACHE_MAX_FILE (64u << 20)

/* An executable PT_LOAD segment of the file: where its bytes are in the
 * file and in memory. */
struct cfi_seg {
	uint64_t offset, vaddr, filesz;
};

/*
 * The executable PT_LOAD segments of elf (at most max, in program-header
 * order) into segs; segments with no bytes in the file are left out.
 * Returns their count, -EINVAL (not ELF64 x86-64, no program headers, a
 * segment whose end wraps), -E2BIG when it has more than max.
 */
int cficache_segs(Elf *elf, struct cfi_seg *segs, unsigned max);

/*
 * Encode pages p (may be empty) and segs[0..nr_segs) into a new malloc'ed
 * buffer *out of *len bytes (caller frees). Returns 0, -ENOMEM, or -EINVAL
 * when p or segs are not what the decoder accepts (more than
 * CFICACHE_MAX_SEGS segments, say): what is stored always loads.
 */
int cficache_encode(const struct cfipages *p, const struct cfi_seg *segs, unsigned nr_segs,
		    void **out, size_t *len);

/*
 * Decode the len bytes at data (untrusted: any bytes) into p, initialized
 * by the caller with cfipages_init() (what it held is released), and
 * segs[0..CFICACHE_MAX_SEGS) / *nr_segs. p is filled for
 * cfipages_lookup(), with exactly the arrays encoded (its private rule
 * hash stays empty: a decoded table is not built on). Returns 0, -EINVAL
 * for anything malformed (p left empty, *nr_segs 0), -ENOMEM.
 */
int cficache_decode(const void *data, size_t len, struct cfipages *p, struct cfi_seg *segs,
		    unsigned *nr_segs);

/* DIR/cfi/<hex build id>.cfi of the build-id cache c into out (size n).
 * 0, -EINVAL (no cache directory, a build id shorter than 2 bytes),
 * -ENAMETOOLONG. */
int cficache_path(const struct buildid_cache *c, const struct prof_build_id *b, char *out,
		  size_t n);

/*
 * Load b's entry into p (as cficache_decode()) and segs/nr_segs (room for
 * CFICACHE_MAX_SEGS). The file is opened without following a link and
 * without blocking (a FIFO planted there does not hang), and read only
 * when it is a regular file of at most CFICACHE_MAX_FILE bytes. Returns 0;
 * -ENOENT when there is no entry; -EINVAL when it is malformed (or as from
 * cficache_path(): no cache directory, a short build id); -ELOOP (a
 * symbolic link), -EISDIR, -ESPIPE (not a regular file), -EFBIG (too big),
 * -ENOMEM or another negative errno. Whatever the error, p is left empty
 * and the caller builds the table afresh, and may store it:
 * cficache_store() replaces whatever is at the path but a directory (a
 * link itself, not what it points to; a FIFO).
 */
int cficache_load(const struct buildid_cache *c, const struct prof_build_id *b, struct cfipages *p,
		  struct cfi_seg *segs, unsigned *nr_segs);

/*
 * Store p and segs as b's entry: encoded, and written atomically (a
 * temporary file renamed into place) by buildid_cache_store(), mode 0644,
 * as the sudo user when there is one; src, the binary the table was built
 * from (or NULL), must be one that user could read (-EACCES: a table of a
 * binary only root may read stays out of their cache). Returns 0 or a
 * negative errno (cficache_encode()'s, buildid_cache_store()'s).
 */
int cficache_store(const struct buildid_cache *c, const struct prof_build_id *b,
		   const struct cfipages *p, const struct cfi_seg *segs, unsigned nr_segs,
		   const char *src);

#endif
