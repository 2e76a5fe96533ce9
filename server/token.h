/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt serve's tokens as the API and the command line name them: scopes and
 * names. Pure functions, shared by the store interface (server/store.h),
 * the SQLite store that keeps the tokens and zt serve token.
 */
#ifndef ZT_SERVER_TOKEN_H
#define ZT_SERVER_TOKEN_H

enum zs_scope {
	ZS_SCOPE_PUSH = 1,
	ZS_SCOPE_SYMBOLS = 2,
	ZS_SCOPE_READ = 4,
	ZS_SCOPE_ADMIN = 8, /* implies all the others */
};

/* "push" "symbols" "read" "admin" (comma-separated) to a mask; 0: invalid. */
unsigned zs_scope_parse(const char *s);

/* A token's name: 1 to ZS_TOKEN_NAME_MAX bytes of ASCII letters, digits
 * and . _ - @ : + (nothing a terminal acts on, no blank to split a
 * listing's columns). Names are unique in a store; a token may have none. */
#define ZS_TOKEN_NAME_MAX 64
int zs_token_name_ok(const char *name);

/* Projects: a token belongs to one (or, made without, to all), and every
 * read and write it makes stays in it (server/store.h). A project's name:
 * 1 to ZS_PROJECT_MAX bytes of lowercase ASCII letters, digits, '-' and
 * '_', starting with a letter or digit. Profiles pushed without one are
 * the default project's. */
#define ZS_PROJECT_MAX 64
#define ZS_DEFAULT_PROJECT "default"
#define ZS_PROJECT_LABEL "__project__" /* the label that keeps a profile's projects */
int zs_project_name_ok(const char *name);

#endif
