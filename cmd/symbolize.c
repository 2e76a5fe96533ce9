// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zt symbolize: addresses to function, file:line and inline chain, printed
 * as addr2line does (or as llvm-symbolizer does), so scripts can swap it in.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf/procsynth.h"
#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/symopts.h"
#include "libprof/array.h"
#include "libprof/fileio.h"
#include "libprof/hash.h"
#include "libprof/htab.h"
#include "libprof/text.h"
#include "symbolizer/cubin.h"
#include "symbolizer/cubincache.h"
#include "symbolizer/demangle.h"
#include "symbolizer/elfsym.h"
#include "symbolizer/symmod.h"

struct symbolize {
	const char *exe;
	int functions, inlines, demangle, addresses, pretty, basenames, pid;
	const char *style;
	int llvm;
	struct symopts so;
	/* --pid: the process's executable mappings */
	struct prof_mmap *maps;
	size_t nr_maps;
	struct symmod **mods; /* one per mapping, opened on first use */
	struct symmod *mod;   /* -e */
	struct cubin *cubin;  /* -e naming a cubin: answers for FUNCTION+OFFSET */
	const char *function; /* --function: a cubin's plain offsets are in it */
	/* addr2line's naming of C++ functions without a linkage name (see
	 * FI_BFD_RENAME in funcinfo.h): state kept across answers, by the
	 * function's DWARF name (a stable pointer into its module's table) */
	struct bfd_name {
		/* the function: its DWARF name, and for an inlined instance the
		 * file and line of its call, and the function it is inlined into */
		const char *dname, *cfile, *outer;
		uint32_t cline;
		const char *renamed; /* NULL while not renamed */
		int seen; /* an address was found in its own code */
	} *bfd;
	size_t nr_bfd, cap_bfd;
	struct zt_htab bfd_hash; /* bfd by (dname, cfile, cline, outer) */
};

#define LINE_MAX_LEN 4096 /* an address on stdin: longer lines are not one */
#define CUBIN_MAX    (1u << 30) /* a larger cubin is not read */
#define CUBIN_FRAMES 64

/* What is wrong with the binary at path, as addr2line says it: 0; -1 when
 * it cannot be opened (why: strerror); -2 when it is no readable ELF file
 * (why: "file format not recognized", "is a directory", ...). */
static int check_binary(const char *path, char *why, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), ret;
	struct stat st;

	if (fd < 0) {
		snprintf(why, n, "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, n, "%s",
			 S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
		close(fd);
		return -2;
	}
	ret = elf_check_fd(fd, why, n);
	close(fd);
	if (ret == -ENOMEM)
		snprintf(why, n, "out of memory");
	return ret ? -2 : 0;
}

/* The answers, written through a buffer of our own: stdio's per-call cost
 * (locking, its generic paths) was a third of a warm run's output time;
 * answers are printed by the ten thousand. Flushed when full, after each
 * answer for a tool on a pipe, and at the end. */
static struct {
	char b[1 << 16];
	size_t n;
} ob;

static void ob_flush(void)
{
	if (ob.n)
		fwrite_unlocked(ob.b, 1, ob.n, stdout);
	ob.n = 0;
}

static void ob_put(const char *s, size_t n)
{
	if (n > sizeof(ob.b) - ob.n) {
		ob_flush();
		if (n > sizeof(ob.b)) {
			fwrite_unlocked(s, 1, n, stdout);
			return;
		}
	}
	memcpy(ob.b + ob.n, s, n);
	ob.n += n;
}

static void ob_puts(const char *s)
{
	ob_put(s, strlen(s));
}

static inline void ob_putc(char c)
{
	if (ob.n == sizeof(ob.b))
		ob_flush();
	ob.b[ob.n++] = c;
}

/* unsigned decimal, without printf's cost */
static void put_u32(uint32_t v)
{
	char b[11];
	int i = sizeof(b);

	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	ob_put(b + i, sizeof(b) - (size_t)i);
}

/* LLVM's demangler where it differs from libiberty's, rewritten in place:
 * GNU's "f() [clone .isra.0] [clone .cold]" is "f() (.isra.0.cold)", and
 * "operator< <T>" is "operator<<T>" */
static void llvm_style(char *d)
{
	char *p = strstr(d, " [clone "), *r, *w;

	for (r = d; (r = strstr(r, "operator")); ) {
		r += 8;
		while (*r == '<' || *r == '>' || *r == '=')
			r++;
		if (r[-1] != 'r' && r[0] == ' ' && r[1] == '<')
			memmove(r, r + 1, strlen(r));
	}
	/* "{lambda(int)#1}" is "'lambda'(int)", #2 "'lambda0'(int)" */
	for (r = d; (r = strstr(r, "{lambda(")); ) {
		char *q = r + 7, *e, num[24];
		int depth = 0;
		unsigned long k;
		size_t args;

		for (; *q; q++)
			if (*q == '(')
				depth++;
			else if (*q == ')' && !--depth)
				break;
		if (*q != ')' || q[1] != '#' || !(k = strtoul(q + 2, &e, 10)) || *e != '}') {
			r += 8;
			continue;
		}
		num[0] = 0;
		if (k > 1)
			snprintf(num, sizeof(num), "%lu", k - 2);
		args = (size_t)(q + 1 - (r + 7));
		/* "'lambda" num "'" args: never longer than "{lambda" args "#k}" */
		memmove(r + 8 + strlen(num), r + 7, args);
		memcpy(r, "'lambda", 7);
		memcpy(r + 7, num, strlen(num));
		r[7 + strlen(num)] = '\'';
		w = r + 8 + strlen(num) + args;
		memmove(w, e + 1, strlen(e + 1) + 1);
		r = w;
	}
	p = strstr(d, " [clone ");
	if (!p)
		return;
	r = w = p;
	*w++ = ' ';
	*w++ = '(';
	while (!strncmp(r, " [clone ", 8) || (r == p && !strncmp(r + 2, "clone ", 6))) {
		char *e = strchr(r + 8, ']');

		if (!e)
			break;
		memmove(w, r + 8, (size_t)(e - (r + 8)));
		w += e - (r + 8);
		r = e + 1;
	}
	*w++ = ')';
	memmove(w, r, strlen(r) + 1);
}

/* An inheriting constructor (mangled "CI1".."CI4" + the base class): LLVM
 * names it by its own class, libiberty by the base ("A<T>::B<U>(...)" for
 * a constructor of A inherited from B is "A<T>::A<U>(...)" in LLVM's
 * style). d is a malloc'ed demangled name; returns it, or its rewrite. */
static char *llvm_inheriting_ctor(char *d, const char *mangled)
{
	size_t i, cls = 0, comp = 0, params = 0, cls_id, comp_id, n;
	int angle = 0, found = 0;
	char *o;

	const char *ci = mangled;

	while ((ci = strstr(ci, "CI")) && (ci[2] < '1' || ci[2] > '4'))
		ci += 2;
	if (!ci)
		return d;
	for (i = 0; d[i] && !found; i++) {
		if (d[i] == '<')
			angle++;
		else if (d[i] == '>')
			angle--;
		else if (!angle && d[i] == ':' && d[i + 1] == ':') {
			cls = comp;
			comp = i + 2;
			i++;
		} else if (!angle && d[i] == '(') {
			params = i;
			found = 1;
		}
	}
	if (!found)
		params = i; /* a name without its parameter list */
	if (!comp || comp <= cls)
		return d;
	for (cls_id = cls; cls_id < comp - 2 && d[cls_id] != '<'; cls_id++)
		;
	for (comp_id = comp; comp_id < params && d[comp_id] != '<'; comp_id++)
		;
	if (comp_id - comp == cls_id - cls && !memcmp(d + comp, d + cls, cls_id - cls))
		return d;
	n = strlen(d);
	o = malloc(n - (comp_id - comp) + (cls_id - cls) + 1);
	if (!o)
		return d;
	memcpy(o, d, comp);
	memcpy(o + comp, d + cls, cls_id - cls);
	memcpy(o + comp + (cls_id - cls), d + comp_id, n - comp_id + 1);
	free(d);
	return o;
}

static void print_name(const struct symbolize *s, const char *name)
{
	char *d = s->demangle && name && *name ? zt_demangle(name, 1) : NULL;

	if (d && s->llvm) {
		llvm_style(d);
		d = llvm_inheriting_ctor(d, name);
	}

	ob_puts(d ? d : (name && *name ? name : "??"));
	free(d);
}

/* file:line of l (with :column in LLVM's style, and the row's
 * discriminator as addr2line prints it on every frame) */
static void print_file(const struct symbolize *s, const struct fi_loc *l, const char *name,
		       const char *sfile, uint32_t discr)
{
	const char *base = l->file && *l->file ? l->file : NULL;

	if (!base && sfile) {
		/* no line rows: the symbol's STT_FILE, as both tools print it */
		ob_puts(sfile);
		ob_puts(s->llvm ? ":0:0" : ":?");
		return;
	}
	if (!base) {
		/* addr2line: "??:?" for a known function without lines, "??:0" for nothing */
		if (s->llvm)
			ob_puts("??:0:0");
		else
			ob_puts(name && *name ? "??:?" : "??:0");
		return;
	}
	if (s->basenames) {
		const char *slash = strrchr(base, '/');

		ob_puts(slash ? slash + 1 : base);
	} else if (l->dir && *l->dir && base[0] != '/') {
		ob_puts(l->dir);
		ob_putc('/');
		ob_puts(base);
	} else {
		ob_puts(base);
	}
	ob_putc(':');
	if (s->llvm) {
		put_u32(l->line);
		ob_putc(':');
		put_u32(l->column);
		return;
	}
	if (!l->line) {
		ob_putc('?');
		return;
	}
	put_u32(l->line);
	if (discr) {
		ob_puts(" (discriminator ");
		put_u32(discr);
		ob_putc(')');
	}
}

static uint64_t bfd_hash(const struct bfd_name *n)
{
	return zt_hash_mix(zt_hash_pair(zt_hash_pair((uintptr_t)n->dname, (uintptr_t)n->cfile),
					(uintptr_t)n->outer),
			   n->cline);
}

static inline uint64_t bfd_hash_at(const void *s, uint32_t i)
{
	return bfd_hash(&((const struct symbolize *)s)->bfd[i]);
}

/* The state of the function (dname, cfile, cline), added when new; NULL
 * on ENOMEM. */
static struct bfd_name *bfd_state(struct symbolize *s, const char *dname, const char *cfile,
				  uint32_t cline, const char *outer)
{
	struct bfd_name key = { .dname = dname, .cfile = cfile, .cline = cline, .outer = outer };
	size_t j;
	uint32_t i;

	if (zt_htab_reserve(&s->bfd_hash, 1, bfd_hash_at, s) || s->nr_bfd >= UINT32_MAX - 1 ||
	    ZT_GROW(s->bfd, s->cap_bfd, s->nr_bfd + 1))
		return NULL;
	for (j = zt_htab_first(&s->bfd_hash, bfd_hash(&key)); zt_htab_get(&s->bfd_hash, j, &i);
	     j = zt_htab_next(&s->bfd_hash, j))
		if (s->bfd[i].dname == dname && s->bfd[i].cfile == cfile &&
		    s->bfd[i].cline == cline && s->bfd[i].outer == outer)
			return &s->bfd[i];
	s->bfd[s->nr_bfd] = key;
	zt_htab_set(&s->bfd_hash, j, (uint32_t)s->nr_bfd);
	return &s->bfd[s->nr_bfd++];
}

/* What addr2line names the innermost frame of r when that is code inlined
 * from a function without a linkage name in a C++ (mangling) unit: BFD
 * looks that instance up in the symbol table the first time, and prints
 * the symbol it finds (the function the code was inlined into); NULL:
 * the frame's own name. */
static const char *gnu_inner_name(struct symbolize *s, const struct fi_result *r)
{
	const char *name = r->locs[0].name;
	struct bfd_name *st;

	if (r->n < 2 || !(r->flags & FI_MANGLED_CU) || !name || !*name || !strncmp(name, "_Z", 2))
		return NULL;
	st = bfd_state(s, name, r->locs[1].file,
		       r->locs[1].line ^ r->locs[1].column << 20 ^ (uint32_t)r->n << 28,
		       r->locs[r->n - 1].name);
	if (!st || st->seen)
		return NULL;
	st->seen = 1;
	return r->gname ? r->gname : r->locs[r->n - 1].name;
}

/* The name addr2line gives the outermost function of r: the DWARF
 * subprogram's, else a symbol by BFD's rule; for a function without a
 * linkage name, what BFD's state says (funcinfo.h, FI_BFD_RENAME). */
static const char *gnu_outer_name(struct symbolize *s, const struct fi_result *r)
{
	struct bfd_name *st;

	if (!r->dname)
		return r->gname;
	if (!(r->flags & (FI_BFD_RENAME | FI_BFD_ONCE)) || !r->gname)
		return r->dname;
	if (!(st = bfd_state(s, r->dname, NULL, 0, NULL)))
		return r->dname;
	if (st->renamed)
		return st->renamed;
	if (r->n == 1 && !st->seen) {
		/* the first address found in the function's own code */
		st->seen = 1;
		if (r->flags & FI_BFD_RENAME)
			st->renamed = r->gname;
		return r->gname;
	}
	return r->dname;
}

static void print_result(struct symbolize *s, uint64_t addr, const struct fi_result *r,
			 int found)
{
	unsigned i, n = found ? (s->inlines || s->llvm ? r->n : 1) : 1;
	static const struct fi_loc unknown = { NULL, "", "", 0, 0 };
	const char *gnu_outer = found && !s->llvm ? gnu_outer_name(s, r) : NULL;
	const char *gnu_inner = found && !s->llvm ? gnu_inner_name(s, r) : NULL;

	if (s->addresses) {
		char a[32];

		if (s->llvm)
			snprintf(a, sizeof(a), "0x%" PRIx64 "\n", addr);
		else
			snprintf(a, sizeof(a),
				 s->pretty ? "0x%016" PRIx64 ": " : "0x%016" PRIx64 "\n", addr);
		ob_puts(a);
	}
	for (i = 0; i < n; i++) {
		/* without -i, addr2line names the innermost function with its line */
		const struct fi_loc *l = found ? &r->locs[i] : &unknown;
		const char *name = l->name, *sfile = NULL;

		/* the outermost frame: addr2line names the DWARF subprogram (else
		 * a symbol by BFD's rule), llvm-symbolizer the covering symbol
		 * (else the DWARF subprogram); reports keep perf's symbol */
		if (i == 0 && gnu_inner)
			name = gnu_inner;
		if (found && i == r->n - 1) {
			if (s->llvm) {
				name = r->lname ? r->lname : r->dname;
				sfile = r->lname ? r->lfile : NULL;
			} else {
				name = gnu_outer;
				sfile = r->dname ? NULL : r->gfile;
			}
		}
		if (s->pretty && !s->llvm) {
			if (i)
				ob_puts(" (inlined by) ");
			if (s->functions && !name && !l->line && !sfile) {
				ob_puts("?? "); /* addr2line: nothing found */
			} else if (s->functions) {
				print_name(s, name);
				ob_puts(" at ");
			}
			print_file(s, l, name, sfile, found ? r->discr : 0);
			ob_putc('\n');
			continue;
		}
		if (s->functions || s->llvm) {
			print_name(s, name);
			ob_putc('\n');
		}
		print_file(s, l, name, sfile, found ? r->discr : 0);
		ob_putc('\n');
	}
	if (s->llvm)
		ob_putc('\n');
}

/* Whether the file at path starts as a cubin does. */
static int is_cubin_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	unsigned char h[64];
	ssize_t n;

	if (fd < 0)
		return 0;
	n = pread(fd, h, sizeof(h), 0);
	close(fd);
	return n == (ssize_t)sizeof(h) && cubin_is_cubin(h, sizeof(h));
}

/* s->cubin from the cubin at path (through the symbol cache). 0, or -1
 * after a message. */
static int open_cubin(struct symbolize *s, const char *path)
{
	static const char *const from[] = {[CUBINCACHE_DECODED] = "decoded",
					   [CUBINCACHE_STORED] = "decoded and cached",
					   [CUBINCACHE_LOADED] = "from the symbol cache"};
	enum cubincache_how how;
	char *data;
	size_t len;
	int ret;

	ret = zt_read_file(path, CUBIN_MAX, &data, &len);
	if (ret) {
		cmd_error("cannot read '%s': %s", path, strerror(-ret));
		return -1;
	}
	ret = cubincache_open(data, len, s->so.have_cache ? &s->so.cache : NULL, &s->cubin, &how);
	free(data);
	if (ret) {
		cmd_error("'%s': %s", path, ret == -EINVAL ? "damaged cubin" : strerror(-ret));
		return -1;
	}
	cmd_info("'%s': cubin %s%s", path, from[how],
		 cubin_has_lines(s->cubin) ? "" : ", no line table (built without -lineinfo)");
	return 0;
}

static int load_pid_maps(struct symbolize *s)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", s->pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		struct prof_mmap m, *nm;

		if (procsynth_parse_maps_line(line, &m) || m.path[0] != '/')
			continue;
		nm = realloc(s->maps, (s->nr_maps + 1) * sizeof(*nm));
		if (!nm)
			break;
		s->maps = nm;
		m.path = strdup(m.path);
		if (!m.path)
			break;
		s->maps[s->nr_maps++] = m;
	}
	free(line);
	fclose(f);
	s->mods = calloc(s->nr_maps ? s->nr_maps : 1, sizeof(*s->mods));
	return s->mods ? 0 : -ENOMEM;
}

static int resolve_one(struct symbolize *s, uint64_t addr, struct fi_result *r)
{
	size_t i;

	if (!s->pid)
		return symmod_lookup_vaddr_all(s->mod, addr, r);
	for (i = 0; i < s->nr_maps; i++) {
		const struct prof_mmap *m = &s->maps[i];
		char root[PATH_MAX];

		if (addr < m->start || addr - m->start >= m->len)
			continue;
		if (!s->mods[i]) {
			char why[128];

			/* through /proc/PID/root: the process's own view of its files */
			snprintf(root, sizeof(root), "/proc/%d/root%s", s->pid, m->path);
			if (check_binary(root, why, sizeof(why)))
				cmd_warn("'%s': %s: its addresses print as ??", m->path, why);
			if (symmod_open(&s->so.mo, root, NULL, &s->mods[i]))
				return -ENOMEM;
		}
		return symmod_lookup_offset_all(s->mods[i], prof_mmap_offset(m, addr), r);
	}
	return -ENOENT;
}

/* A cubin's FUNCTION+0xOFFSET (or, with --function, OFFSET) into name (of
 * size n) and *off. 0, or -1 when tok is not one. */
static int parse_cubin_pc(const struct symbolize *s, const char *tok, char *name, size_t n,
			  uint64_t *off)
{
	const char *plus = strrchr(tok, '+'), *num = tok;
	size_t len;
	char *end;

	if (plus) {
		len = (size_t)(plus - tok);
		num = plus + 1;
	} else if (s->function) {
		tok = s->function;
		len = strlen(tok);
	} else {
		return -1;
	}
	if (!len || len >= n ||
	    !((*num >= '0' && *num <= '9') || (*num >= 'a' && *num <= 'f') ||
	      (*num >= 'A' && *num <= 'F')))
		return -1;
	memcpy(name, tok, len);
	name[len] = 0;
	errno = 0;
	*off = strtoull(num, &end, 16);
	if (errno || end == num || (*end && *end != '\n' && *end != ' ' && *end != '\r'))
		return -1;
	return 0;
}

/* The cubin's answer for tok, as addr2line would print it for a CPU
 * address: the inline chain up to the device function holding the PC
 * (a __noinline__ callee's frame ends it, as a real function's does). */
static void handle_cubin(struct symbolize *s, const char *tok)
{
	struct cubin_frame cf[CUBIN_FRAMES];
	char name[LINE_MAX_LEN];
	struct fi_result r;
	uint64_t off = 0;
	int n = -1, i;

	memset(&r, 0, sizeof(r));
	if (!parse_cubin_pc(s, tok, name, sizeof(name), &off))
		n = cubin_resolve(s->cubin, name, off, cf, CUBIN_FRAMES);
	if (n <= 0) {
		print_result(s, off, &r, 0);
		return;
	}
	for (i = 0; i < n && i < FI_MAX_INLINE; i++) {
		const char *fn = cf[i].func && *cf[i].func ? cf[i].func : NULL;

		r.locs[i] = (struct fi_loc){.name = fn,
					    .dir = cf[i].dir ? cf[i].dir : "",
					    .file = cf[i].file ? cf[i].file : "",
					    .line = cf[i].line};
		r.n = (unsigned)i + 1;
		if (!cf[i].inlined)
			break;
	}
	r.offset = off;
	r.dname = r.locs[r.n - 1].name;
	print_result(s, off, &r, 1);
}

/* An address as it mostly comes, "0x1234\n" (at most 16 digits): read
 * here, without strtoull's generality (a tenth of a warm run's
 * instructions). 1 when read; 0: anything else, for strtoull to judge. */
static int hex_fast(const char *p, uint64_t *out)
{
	uint64_t v = 0;
	int n, d;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (n = 0; n < 16 && (d = zt_hexval(*p)) >= 0; n++, p++)
		v = v << 4 | (unsigned)d;
	if (!n || (*p && *p != '\n' && *p != ' '))
		return 0;
	*out = v;
	return 1;
}

static int handle(struct symbolize *s, const char *tok)
{
	struct fi_result r;
	char *end;
	uint64_t addr;

	while (*tok == ' ' || *tok == '\t')
		tok++;
	if (!*tok)
		return 0;
	if (s->cubin) {
		handle_cubin(s, tok);
		return 0;
	}
	if (hex_fast(tok, &addr)) {
		print_result(s, addr, &r, !resolve_one(s, addr, &r));
		return 0;
	}
	errno = 0;
	addr = strtoull(tok, &end, 16);
	if (errno || end == tok || (*end && *end != '\n' && *end != ' ')) {
		/* addr2line echoes what it cannot parse as an unknown address */
		print_result(s, 0, &r, 0);
		return 0;
	}
	print_result(s, addr, &r, !resolve_one(s, addr, &r));
	return 0;
}

static const char *const symbolize_usage[] = {
	"zt symbolize [-e FILE | --pid PID] [-f] [-i] [-C] [-a] [-p] [ADDR...]",
	"zt symbolize -e FILE.cubin [--function NAME] [-f] [-i] [-C] [KERNEL+0xOFFSET...]",
	NULL,
};

static int symbolize_parse_options(struct symbolize *s, int argc, char **argv, int *rest)
{
	const struct opt options[] = {
		{OPT_STRING, 'e', "exe", &s->exe, "file",
		 "the binary the addresses are in (default a.out)"},
		{OPT_INT, 0, "pid", &s->pid, "pid",
		 "addresses are in the live process PID (through its maps)"},
		{OPT_STRING, 0, "function", &s->function, "name",
		 "a cubin's bare offsets are in this kernel (mangled)"},
		{OPT_BOOL, 'f', "functions", &s->functions, NULL, "show function names"},
		{OPT_BOOL, 'i', "inlines", &s->inlines, NULL,
		 "show the inline chain, innermost first"},
		{OPT_BOOL, 'C', "demangle", &s->demangle, NULL,
		 "demangle C++ and Rust names (the default in LLVM's style)"},
		{OPT_BOOL, 'a', "addresses", &s->addresses, NULL,
		 "show the address before its answer"},
		{OPT_BOOL, 'p', "pretty-print", &s->pretty, NULL, "one line per address"},
		{OPT_BOOL, 's', "basenames", &s->basenames, NULL, "file names without directories"},
		{OPT_STRING, 0, "output-style", &s->style, "style",
		 "GNU (addr2line's, default) or LLVM (llvm-symbolizer's)"},
		SYMOPTS_OPTIONS(s->so),
		SYMOPTS_SYMDB_OPTIONS(s->so),
		OPT_EOL};

	return opts_parse("symbolize", symbolize_usage, options, argc, argv, rest);
}

/* --output-style, and the demangling it implies: 0 or -1 (the message
 * shown). */
static int check_style(struct symbolize *s)
{
	if (!strcasecmp(s->style, "llvm")) {
		s->llvm = 1;
		/* llvm-symbolizer demangles unless told --no-demangle */
		if (s->demangle < 0)
			s->demangle = 1;
	} else if (strcasecmp(s->style, "gnu")) {
		cmd_error("unknown --output-style '%s': use GNU or LLVM", s->style);
		return -1;
	}
	if (s->demangle < 0)
		s->demangle = 0;
	return 0;
}

/* What the addresses are in: the maps of --pid, a cubin, or the symbols
 * of -e. 0 or -1 (the message shown). */
static int symbolize_open(struct symbolize *s)
{
	char real[PATH_MAX], why[128];
	int err, gpu;

	if (s->pid) {
		err = load_pid_maps(s);
		if (err) {
			cmd_error("cannot read the maps of process %d: %s", s->pid, strerror(-err));
			return -1;
		}
		return 0;
	}
	/* as addr2line: a file it cannot read is an error, not a page of ?? */
	snprintf(real, sizeof(real), "%s%s", s->so.mo.find.symfs ? s->so.mo.find.symfs : "",
		 s->exe);
	if ((err = check_binary(real, why, sizeof(why)))) {
		cmd_error(err == -1 ? "cannot open '%s': %s" : "'%s': %s", real, why);
		return -1;
	}
	gpu = is_cubin_file(real);
	if (s->function && !gpu)
		cmd_warn("--function applies to cubins only: '%s' is not one", real);
	if (gpu) /* GPU code: kernel+offset, as PC samples name it */
		return open_cubin(s, real) ? -1 : 0;
	if (symmod_open(&s->so.mo, s->exe, NULL, &s->mod)) {
		cmd_error("out of memory");
		return -1;
	}
	if (symmod_quality(s->mod) != SYMQ_FULL)
		cmd_info("'%s': %s", s->exe, symmod_why(s->mod));
	if (symmod_remote_served(s->mod))
		cmd_info("'%s': symbols from %s%s", s->exe, symmod_source(s->mod),
			 symmod_remote_served(s->mod) == 2 ? " (cached)" : "");
	return 0;
}

/* The addresses on standard input, a line each. 0 or -1 (out of memory,
 * the message shown). */
static int symbolize_stdin(struct symbolize *s)
{
	struct stat st;
	/* a tool talking to us through pipes waits for each answer */
	int interactive = fstat(0, &st) || !S_ISREG(st.st_mode);
	char *line;

	if (!interactive)
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	line = malloc(LINE_MAX_LEN);
	if (!line) {
		cmd_error("out of memory");
		return -1;
	}

	/* lines of bounded length: a stream without newlines (/dev/zero) must
	 * not grow one line forever; a longer line is no address (??) */
	while (fgets(line, LINE_MAX_LEN, stdin)) {
		size_t l = strlen(line);

		if (l == LINE_MAX_LEN - 1 && line[l - 1] != '\n') {
			int ch;

			while ((ch = getc_unlocked(stdin)) != EOF && ch != '\n')
				;
			handle(s, "-");
		} else {
			handle(s, line);
		}
		if (interactive) {
			ob_flush();
			fflush(stdout);
		}
	}
	free(line);
	return 0;
}

static void symbolize_release(struct symbolize *s)
{
	symmod_free(s->mod);
	cubin_free(s->cubin);
	for (size_t k = 0; k < s->nr_maps; k++) {
		symmod_free(s->mods[k]);
		free(s->maps[k].path);
	}
	free(s->mods);
	free(s->maps);
	free(s->bfd);
	zt_htab_release(&s->bfd_hash);
	symopts_release(&s->so);
}

int cmd_symbolize(int argc, char **argv)
{
	struct symbolize s = {.exe = "a.out",
			      .style = "GNU",
			      .demangle = -1,
			      .so = {.use_debuginfod = 1, .use_cache = 1, .use_symdb = 1}};
	int rest, i, ret = ZT_EXIT_OK;

	switch (symbolize_parse_options(&s, argc, argv, &rest)) {
	case OPTS_HELP:
		symopts_release(&s.so);
		return ZT_EXIT_OK;
	case OPTS_ERROR:
		symopts_release(&s.so);
		return ZT_EXIT_USAGE;
	}
	cmd_setup("symbolize", s.so.verbose);
	if (check_style(&s)) {
		symopts_release(&s.so);
		return ZT_EXIT_USAGE;
	}
	if (symopts_init(&s.so, "symbolize"))
		return ZT_EXIT_FAIL;
	if (symbolize_open(&s)) {
		ret = ZT_EXIT_FAIL;
	} else if (rest < argc) {
		int tty = isatty(1);

		for (i = rest; i < argc; i++) {
			handle(&s, argv[i]);
			if (tty)
				ob_flush(); /* as stdio's line buffering had it */
		}
	} else if (symbolize_stdin(&s)) {
		ret = ZT_EXIT_FAIL;
	}
	ob_flush();
	symbolize_release(&s);
	return ret;
}
