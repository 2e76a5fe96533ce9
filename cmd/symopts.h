/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The options every command that symbolizes shares (--symfs, --debug-dir,
 * --no-debuginfod, --archive, -v; -k/--vmlinux and --kallsyms where kernel frames are
 * read; --symdb where the symbols are shown), and the symbol-module
 * settings they make.
 */
#ifndef ZT_SYMOPTS_H
#define ZT_SYMOPTS_H

#include "cmd/opts.h"
#include "net/symdb.h"
#include "symbolizer/buildid_cache.h"
#include "symbolizer/symarchive.h"
#include "symbolizer/symmod.h"

struct symopts {
	const char *symfs;
	const char *vmlinux;  /* -k/--vmlinux FILE: kernel symbols from it */
	const char *kallsyms; /* --kallsyms FILE: kernel symbols from it, not /proc/kallsyms */
	const char **debug_dirs; /* NULL-terminated, from --debug-dir (repeatable) */
	int nr_debug_dirs;
	int use_debuginfod, use_cache, verbose; /* set both to 1 before parsing */
	int full_signature; /* --full-signature: C++ names with their parameter lists */
	const char *symdb; /* --symdb URL */
	int use_symdb;	   /* the command takes --symdb: set to 1 before parsing (--no-symdb: 0) */
	struct buildid_cache cache;
	int have_cache;
	struct symdb db; /* the symbol database asked, when have_db */
	int have_db;
	const char *archive; /* --archive FILE|DIR: a zt archive (zt archive) */
	int no_archive;	     /* --no-archive: not even INPUT.archive */
	struct symarchive *arch; /* the archive opened (symopts_init allocates it) */
	struct symmod_opts mo; /* what symmod_open() takes: ready after symopts_init */
	int no_unwind; /* zt script --no-unwind: session_opts.no_unwind */
	int python_glue;	 /* --python-glue: session_opts.python_glue */
};

int symopts_add_debug_dir(const struct opt *o, const char *arg);
int symopts_set_symdb(const struct opt *o, const char *arg);
int symopts_no_symdb(const struct opt *o, const char *arg);
int symopts_set_archive(const struct opt *o, const char *arg);
int symopts_no_archive(const struct opt *o, const char *arg);

#define SYMOPTS_OPTIONS(so)                                                                         \
	{ OPT_GROUP, 0, NULL, NULL, NULL, "Symbol sources" },                                         \
	{ OPT_STRING, 0, "symfs", &(so).symfs, "dir", "look for binaries and debug files under DIR" }, \
	{ OPT_CALLBACK, 0, "debug-dir", &(so), "dir", "also look for debug files in DIR (repeatable)",  \
	  symopts_add_debug_dir },                                                                      \
	{ OPT_BOOL, 0, "debuginfod", &(so).use_debuginfod, NULL,                                        \
	  "ask debuginfod servers (DEBUGINFOD_URLS; default); --no-debuginfod: do not" },              \
	{ OPT_BOOL, 0, "symbol-cache", &(so).use_cache, NULL,                                           \
	  "use the GSYM cache (default); --no-symbol-cache: neither read nor write it" },              \
	{ OPT_CALLBACK, 0, "archive", &(so), "file",                                                  \
	  "binaries and symbols from this zt archive (zt archive; default: INPUT.archive when "       \
	  "there is one)", symopts_set_archive },                                                      \
	{ OPT_CALLBACK, 0, "no-archive", &(so), NULL, "use no zt archive, not even INPUT.archive",     \
	  symopts_no_archive },                                                                         \
	{ OPT_COUNT, 'v', "verbose", &(so).verbose, NULL, "be more verbose" }

/* The team symbol database, for the commands that show symbols (report,
 * script, flame, top, symbolize, convert): after SYMOPTS_OPTIONS, with
 * use_symdb set to 1. The URL: --symdb, else $ZT_SYMDB, else symbols.symdb
 * of ~/.ztconfig (cmd/config.h), else 'symdb =' in the older configuration
 * file (net/push.h); the token: $ZT_TOKEN, else server.token, else that
 * file's 'token ='. */
#define SYMOPTS_SYMDB_OPTIONS(so)                                                              \
	{ OPT_CALLBACK, 0, "symdb", &(so), "url",                                               \
	  "ask this symbol database (zt serve) for modules without full symbols here "          \
	  "(default: ZT_SYMDB, or symbols.symdb of zt config)",                                  \
	  symopts_set_symdb },                                                                  \
	{ OPT_CALLBACK, 0, "no-symdb", &(so), NULL, "ask no symbol database, whatever the default", \
	  symopts_no_symdb }

/* Where the commands that read kernel frames (report, top, flame, script,
 * convert) take kernel symbols from; after SYMOPTS_OPTIONS. */
#define SYMOPTS_KERNEL_OPTIONS(so)                                                           \
	{ OPT_STRING, 'k', "vmlinux", &(so).vmlinux, "file",                                  \
	  "kernel symbols from this vmlinux (an ELF file with the recorded kernel's build id)" }, \
	{ OPT_STRING, 0, "kallsyms", &(so).kallsyms, "file",                                  \
	  "kernel symbols from this kallsyms file instead of /proc/kallsyms" }

/* How the commands that show function names (report, top, flame, script,
 * convert) show C++ names: perf's default drops the parameter lists. */
#define SYMOPTS_NAME_OPTIONS(so)                                                  \
	{ OPT_BOOL, 0, "full-signature", &(so).full_signature, NULL,               \
	  "show C++ names with their parameter lists (as perf -v); default: without, as perf" }

/* How the commands that show a recording's stacks (report, script, flame,
 * annotate, convert, diff) show Python's: by default the
 * interpreter's frames between Python frames are folded out. */
#define SYMOPTS_PYTHON_OPTIONS(so)                                                   \
	{ OPT_BOOL, 0, "python-glue", &(so).python_glue, NULL,                        \
	  "keep the Python interpreter's frames between Python frames (its evaluation " \
	  "loop and call machinery); default: fold them out" }

/* Fill so->mo from the options (cache directory, progress on a terminal,
 * the symbol database's client, the --archive unpacked). cmd names the
 * command for messages. Returns 0 or -1 after a message. */
int symopts_init(struct symopts *so, const char *cmd);
/* The zt archive next to a recording: INPUT.archive, when there is one and
 * no archive is open yet (nor --no-archive given), is opened for so->mo
 * (whose archive pointer is set by symopts_init already, so a session
 * opened with so->mo after this call uses it). For the commands that read
 * a recording (cmd_open_session). 0, or -1 after a message. */
int symopts_archive_for(const struct symopts *so, const char *input);
void symopts_release(struct symopts *so);

#endif
