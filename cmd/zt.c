/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zt: main() and the command table. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/config.h"
#include "libprof/hist.h"

#define ZT_VERSION "0.1.0"

static const struct cmd_entry commands[] = {
	{ "record", "record a profile (CPU stacks with eBPF) into zt.data", cmd_record },
	{ "report", "show a recorded profile (zt.data or perf.data), functions by overhead", cmd_report },
	{ "annotate", "a function's instructions with their share of the samples, and its source", cmd_annotate },
	{ "top", "live profile: the hottest functions of the system (or -p), refreshed every second", cmd_top },
	{ "flame", "an interactive SVG flame graph of a recording or of folded stacks", cmd_flame },
	{ "script", "print the samples of a recording as perf script does, or folded stacks", cmd_script },
	{ "symbolize", "addresses to function, file:line and inline chain (addr2line's output)", cmd_symbolize },
	{ "symbols", "symbol files for a build: extract GSYM files, or upload them to a team server", cmd_symbols },
	{ "buildid", "print the GNU build id and the file id of binaries", cmd_buildid },
	{ "archive", "pack the binaries and symbols a recording needs, to read it on another machine", cmd_archive },
	{ "diff", "compare recordings: each function's share in the baseline and its change (perf diff)", cmd_diff },
	{ "buildid-list", "the build ids and paths of the modules in a recording (perf buildid-list)", cmd_buildid_list },
	{ "evlist", "the events of a recording (perf evlist)", cmd_evlist },
	{ "convert", "write a recording in another tool's format: pprof, perf.data, Chrome trace", cmd_convert },
	{ "push", "send a recording, unwound, and the symbols it needs to a team server (zt serve)", cmd_push },
	{ "serve", "the team server: profiles pushed by many hosts, queried over HTTP and in a browser", cmd_serve },
	{ "config", "get and set defaults in ~/.ztconfig and /etc/ztconfig (perf config)", cmd_config_cmd },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: zt [--version] [--help] <command> [<args>]\n\nThe commands are:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "   %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nSee 'zt <command> --help' or 'man zt-<command>' for more.\n");
}

static const struct cmd_entry *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct cmd_entry *c;

	/* zt script | head: a closed pipe is a normal end, reported as EPIPE */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		usage(stderr);
		return ZT_EXIT_USAGE;
	}
	/* hidden, for the shell completion (perf's --list-cmds) */
	if (!strcmp(argv[1], "--list-cmds")) {
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			printf("%s\n", commands[i].name);
		return cmd_finish(ZT_EXIT_OK);
	}
	if (!strcmp(argv[1], "--list-sort-keys")) {
		for (int k = 0; strcmp(hist_key_name((enum hist_key)k), "?"); k++)
			printf("%s\n", hist_key_name((enum hist_key)k));
		printf("tid\n");
		return cmd_finish(ZT_EXIT_OK);
	}
	if (!strcmp(argv[1], "--list-config-keys")) {
		for (const struct cfg_key *k = cfg_keys; k->key; k++)
			printf("%s\n", k->key);
		return cmd_finish(ZT_EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("zt version %s\n", ZT_VERSION);
		return cmd_finish(ZT_EXIT_OK);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		if (argc > 2 && !strcmp(argv[1], "help") && find_command(argv[2])) {
			char page[64];

			snprintf(page, sizeof(page), "zt-%s", argv[2]);
			execlp("man", "man", page, (char *)NULL);
			fprintf(stderr, "zt help: cannot run 'man': see 'zt %s --help'\n", argv[2]);
			return ZT_EXIT_FAIL;
		}
		usage(stdout);
		return cmd_finish(ZT_EXIT_OK);
	}
	c = find_command(argv[1]);
	if (!c) {
		fprintf(stderr, "zt: '%s' is not a zt command: see 'zt --help'\n", argv[1]);
		return ZT_EXIT_USAGE;
	}
	return cmd_finish(c->fn(argc - 1, argv + 1));
}
