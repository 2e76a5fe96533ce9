/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fetching debug files and executables by GNU build id from debuginfod
 * servers: a thin wrapper over elfutils' libdebuginfod client.
 */
#ifndef ZT_DEBUGINFOD_H
#define ZT_DEBUGINFOD_H

#include "libprof/profile.h"

/* --no-debuginfod: a process-wide switch, on by default. While off,
 * zt_debuginfod_find() fails with -ENOSYS without touching the network. */
void zt_debuginfod_set_enabled(int on);
int zt_debuginfod_enabled(void);

/* For a process that asks on others' behalf (zt serve): these servers
 * (space-separated) and this client cache directory, and a 10 s
 * DEBUGINFOD_TIMEOUT unless one is set. libdebuginfod (0.188) has no
 * per-client setting: it reads them from the environment at every query.
 * So this sets DEBUGINFOD_URLS, DEBUGINFOD_CACHE_PATH and
 * DEBUGINFOD_TIMEOUT, and must be called before the process starts any
 * thread (setenv races with getenv in other threads), once. 0 or -errno. */
int zt_debuginfod_configure(const char *urls, const char *cache_dir);

/* Progress of one download: done and total bytes (total <= 0 when unknown). */
typedef void (*zt_debuginfod_progress_fn)(void *ctx, long done, long total);

/* Find the debuginfo file (want_executable 0) or the executable (1) with
 * build id bid, from the local client cache or the servers. The
 * configuration is libdebuginfod's environment (debuginfod-client-config(7)):
 * DEBUGINFOD_URLS (space-separated servers), DEBUGINFOD_CACHE_PATH,
 * DEBUGINFOD_TIMEOUT (seconds without the first 100 KiB), DEBUGINFOD_MAXTIME,
 * DEBUGINFOD_MAXSIZE, DEBUGINFOD_RETRY_LIMIT (failures other than "not
 * found" are retried, twice by default: a server that stopped answering
 * costs 3 x DEBUGINFOD_TIMEOUT; 404s are remembered in the cache for 10
 * minutes, cache_miss_s). progress (may be NULL) is
 * called from this thread during a download; DEBUGINFOD_PROGRESS's own
 * printing is replaced by it, so nothing is printed. Thread-safe: each call
 * uses its own client handle.
 *
 * Returns 0 with *path_out set to a malloc'ed path of the cached file (the
 * caller frees it), or a negative errno:
 *   -ENOSYS       switched off, or DEBUGINFOD_URLS unset or blank
 *   -ENOENT       no server has it
 *   -ETIMEDOUT    DEBUGINFOD_TIMEOUT or DEBUGINFOD_MAXTIME ran out
 *   -EINVAL       bid is empty
 *   others        as libdebuginfod reports them (-ECONNREFUSED,
 *                 -EHOSTUNREACH, -ECONNRESET, -EFBIG past DEBUGINFOD_MAXSIZE,
 *                 -ENOMEM, ...). */
int zt_debuginfod_find(const struct prof_build_id *bid, int want_executable,
		       zt_debuginfod_progress_fn progress, void *ctx, char **path_out);

/* The source file path (absolute, as DWARF names it) of the program with
 * build id bid, as zt_debuginfod_find finds the others (-EINVAL also for
 * a path that is not absolute). */
int zt_debuginfod_find_source(const struct prof_build_id *bid, const char *path,
			      zt_debuginfod_progress_fn progress, void *ctx, char **path_out);

#endif
