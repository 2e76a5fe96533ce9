/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zt push's parts below the command: the unwound zt.data image of an open
 * recording, the build ids its samples touch, their symbols for upload,
 * the client's configuration file, and the three requests of the team
 * server's API v1 (symbols/missing, PUT symbols/ID, POST profiles).
 *
 * Nothing here prints: errors are negative errnos with a sentence in the
 * caller's buffer.
 */
#ifndef ZT_NET_PUSH_H
#define ZT_NET_PUSH_H

#include <stddef.h>
#include <stdint.h>

#include "libprof/profile.h"
#include "libprof/rstacks.h"
#include "libprof/zbuf.h"
#include "net/client.h"
#include "symbolizer/symmod.h"

/*
 * The zt.data image of p (a profile as the session leaves it: stacks
 * unwound) appended to out: meta, tasks, mappings, the blobs that name
 * frames (kallsyms lines, modules, kernel build id, perf maps, jitdumps),
 * samples with their stacks, lost counts, and the index chunk. Never a
 * user-stack snapshot. The same profile gives the same bytes (the server
 * is content-addressed). Returns 0 or a negative errno (-ENOMEM, -E2BIG,
 * the memfd's errors).
 */
int push_image(const struct profile *p, struct zbuf *out);
/* The same with the samples of one event alone (event 0 of the image,
 * whose "event" meta names it), or of all with PUSH_ALL_EVENTS: the
 * server keeps one event a profile. */
#define PUSH_ALL_EVENTS UINT32_MAX
int push_image_event(const struct profile *p, uint32_t event, struct zbuf *out);

/* A module sampled: its build id and the path one of its mappings had
 * (borrowed from the profile). */
struct push_module {
	struct prof_build_id id;
	const char *path;
};

/*
 * The user-space modules with a GNU build id that the samples of rs's
 * profile have frames in (mappings looked up in its processes), sorted by build id,
 * each once: *out (the caller frees it), *n. Kernel frames are named by
 * the recording's kallsyms lines and are not listed. 0 or -ENOMEM.
 */
int push_modules(const struct rstacks *rs, struct push_module **out, size_t *n);

/* The quality of symbols as the server's API names it (X-ZT-Symbol-Quality,
 * the answers of symbols/missing): "none", "basic", "full" for enum symq;
 * "?" for another value. */
const char *push_quality_name(int q);
/* The other way: full, basic (or "functions"), none; -1 for anything else. */
int push_quality_parse(const char *s);

/* The symbols of one module, ready to upload. */
struct push_symbols {
	struct symmod *m;  /* owned */
	const void *image; /* the GSYM image (borrowed from m) */
	size_t len;
	enum symq q;
	char quality[8];    /* X-ZT-Symbol-Quality: "full", "basic" */
	char load[16 * 52]; /* X-ZT-Symbol-Load: "OFF:VADDR:SIZE,..." (hex) */
	struct prof_build_id uuid; /* the id the image is marked with */
};

/*
 * The symbols of mod from this machine, as symmod_open() finds them (the
 * local GSYM cache first, then the binary, its debug file, debuginfod...).
 * mod->id of length 0: the id is read from the file (its GNU build id, else
 * its file id; s->uuid tells which).
 * Returns 0; -ENOENT when there are none worth sending (no symbols, the
 * binary is not here, or the image's UUID is not the build id: msg says
 * which); -ENOMEM.
 */
int push_symbols_open(const struct symmod_opts *o, const struct push_module *mod,
		      struct push_symbols *s, char *msg, size_t msglen);
void push_symbols_close(struct push_symbols *s);

/* ---- the client's configuration ---------------------------------------- */

struct push_config {
	char *server, *token; /* owned; NULL when the file has none */
	char *symdb;	      /* the symbol database of reports (zt report --symdb); owned */
};

/* $XDG_CONFIG_HOME/zt/config, else $HOME/.config/zt/config, into out.
 * 0, -ENOENT (neither variable set), -ENAMETOOLONG. */
int push_config_path(char *out, size_t n);

/*
 * Read the configuration at path: lines "server = URL", "token = T" and
 * "symdb = URL"
 * ('#' starts a comment line, blank lines and unknown keys are skipped).
 * It holds a token, so it is used only when it is a regular file (not
 * through a symlink) owned by this user with no permission for group or
 * others. Returns 0, -ENOENT (no such file: c stays empty), -EPERM (not
 * safe: msg says what and to run chmod 600), -EBADMSG (a line that is not
 * "key = value": msg names it), other -errno from reading it.
 */
int push_config_read(const char *path, struct push_config *c, char *msg, size_t msglen);
void push_config_release(struct push_config *c);

/* ---- the server's API ---------------------------------------------------- */

/* The "error" string of a JSON error answer (control characters made
 * '?'), else the start of the body, else the status' reason; into out. */
void push_answer_error(const struct zt_http_resp *r, char *out, size_t n);

/*
 * POST /api/v1/symbols/missing with the modules' build ids, asking for the
 * ids whose symbols are below full too (X-ZT-Want-Quality: full): on a 200
 * answer have[i] is the quality (enum symq) of the symbols the server has
 * for module i, -1 when it has none. A server older than the quality rule
 * answers the missing ids alone: the others read as full. Returns
 * zt_http_request()'s result; resp holds the answer.
 */
int push_missing(struct zt_http *h, const struct push_module *mods, size_t n, int8_t *have,
		 struct zt_http_resp *resp, char *msg, size_t msglen);

/* PUT /api/v1/symbols/ID with If-None-Match: * (201 stored, 200 stored
 * over worse symbols, 412 the server keeps what it has: as good or
 * better), or without it when replace is set (200 or 201; needs the
 * symbols scope); extra: more header lines (NULL-terminated, at most 4) or
 * NULL. Returns zt_http_request()'s result. */
int push_put_symbols(struct zt_http *h, const struct prof_build_id *id,
		     const struct push_symbols *s, int replace, const char *const *extra,
		     struct zt_http_resp *resp, char *msg, size_t msglen);

/* What the answer to push_put_symbols says (enum symq; -1 where it says
 * nothing, as an older server's): stored, the quality the server keeps of
 * this upload (200, 201: "quality"; it keeps the lower of what the upload
 * says and what the image holds); replaced, the quality of the symbols it
 * replaced (200: "replaced"); kept, the quality of those it keeps instead
 * (412: X-ZT-Symbol-Quality). */
struct push_put_answer {
	int stored, replaced, kept;
};
void push_put_answer(const struct zt_http_resp *r, struct push_put_answer *a);

/* What push_send_module() did with the symbols of one module. */
enum push_sent_what {
	PUSH_SENT,	 /* the server took them: a.stored, a.replaced */
	PUSH_KEPT_FULL,	 /* the server has full symbols: nothing here looked at */
	PUSH_NONE_HERE,	 /* none worth sending here: why */
	PUSH_NOT_BETTER, /* those here (here) are no better than the server's (have) */
	PUSH_HAD,	 /* 412: stored meanwhile, as good or better (a.kept; -1: unsaid) */
	PUSH_REFUSED,	 /* the server refused them (resp->status): why */
};

struct push_sent {
	enum push_sent_what what;
	int have;		  /* the server's quality before (enum symq), -1: none */
	int here;		  /* the quality of those here, -1: none */
	char quality[8];	  /* ... as the API names it */
	struct push_put_answer a; /* PUSH_SENT, PUSH_HAD */
	/* PUSH_NONE_HERE: why none; PUSH_SENT: why they are below full, for
	 * when they are (symmod_why(), "no debug info" when it says nothing);
	 * PUSH_REFUSED: the server's reason */
	char why[512];
};

/*
 * The symbols of module m to h when they are better than the server's
 * (have: -1 none, else their quality, as push_missing() answers): looked
 * up here (push_symbols_open() with mo) unless the server's are full,
 * uploaded (push_put_symbols() without replace) when better; before the
 * upload, before(ctx, its size) when before is set. Returns 0 with *out
 * saying what was done; -ENOMEM; zt_http_request()'s error when the server
 * could not be reached (msg says why); -EAGAIN when it answered a 5xx or
 * 429 still after the tries (resp holds the answer).
 */
int push_send_module(struct zt_http *h, const struct symmod_opts *mo, const struct push_module *m,
		     int have, void (*before)(void *ctx, size_t len), void *ctx,
		     struct push_sent *out, struct zt_http_resp *resp, char *msg, size_t msglen);

struct push_result {
	char id[65];
	int stored; /* 1: new on the server, 0: it had it already */
	uint64_t samples;
	/* stored 0: the labels of this push the stored profile lacked, added
	 * to it; -1: a server that does not say (an older zt serve, which
	 * keeps the first push's labels only) */
	int labels_added;
};

/*
 * POST /api/v1/profiles: image compressed with zstd (Content-Encoding:
 * zstd), labels ("k=v" each) as label= parameters. Returns
 * zt_http_request()'s result, or -EINVAL for a label without '=' or with
 * an empty key, -ENOMEM; on a 200 or 201 answer, r is filled from it
 * (-EBADMSG when the answer has no id).
 */
int push_profile(struct zt_http *h, const void *image, size_t len, const char *const *labels,
		 size_t nr_labels, struct push_result *r, struct zt_http_resp *resp, char *msg,
		 size_t msglen);

#endif
