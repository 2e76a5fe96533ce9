/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command table's entries and what every command shares: messages, exit. */
#ifndef ZT_CMD_H
#define ZT_CMD_H

#include <stdint.h>
#include <stdio.h>

/* Exit codes: 0 ok, 1 failure, 129 usage error (as git). */
enum { ZT_EXIT_OK = 0, ZT_EXIT_FAIL = 1, ZT_EXIT_USAGE = 129 };

struct cmd_entry {
	const char *name;
	const char *summary;
	int (*fn)(int argc, char **argv); /* argv[0] is the command name */
};

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_symbols(int argc, char **argv);
int cmd_buildid(int argc, char **argv);
int cmd_archive(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_buildid_list(int argc, char **argv);
int cmd_evlist(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_push(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_config_cmd(int argc, char **argv); /* zt config (cmd/config.c) */

/* Messages to stderr, "zt CMD: ...": cmd_error always, cmd_warn unless -q,
 * cmd_info with -v. cmd_setup names the command and installs the library
 * logger at the given verbosity (-1 quiet, 0 default, 1+ verbose). */
void cmd_setup(const char *name, int verbosity);
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cmd_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cmd_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "zt CMD: note: ...": something the user may want to know, not a problem
 * (not with -q) */
void cmd_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int cmd_verbosity;

/* Progress of long work on a terminal: "zt CMD: WHAT: 45% (1234/5678)" on
 * stderr, rewritten in place, shown only when stderr is a terminal and
 * the work has taken more than half a second; nothing otherwise. */
struct cmd_progress {
	const char *what;
	uint64_t total, start_ns, last_ns;
	int shown;
};
void cmd_progress_start(struct cmd_progress *p, const char *what, uint64_t total);
void cmd_progress_update(struct cmd_progress *p, uint64_t done);
void cmd_progress_end(struct cmd_progress *p);

/* At exit: flush stdout and turn a write error (full disk) into a message
 * and exit code 1; EPIPE is not an error. Returns the code to exit with. */
int cmd_finish(int code);

#endif
