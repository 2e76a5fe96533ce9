// SPDX-License-Identifier: GPL-2.0-or-later
/* perfconfig-syntax configuration files: parser, safe reading, in-place editing. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libprof/config.h"

#define NAME_MAX_LEN 128

void zt_config_init(struct zt_config *c)
{
	memset(c, 0, sizeof(*c));
}

void zt_config_release(struct zt_config *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		free(c->items[i].key);
		free(c->items[i].value);
	}
	for (i = 0; i < c->nr_files; i++)
		free(c->files[i].path);
	free(c->items);
	free(c->files);
	memset(c, 0, sizeof(*c));
}

/* A [section] header seen while parsing: its name and where its line ends. */
struct sect_span {
	char name[NAME_MAX_LEN + 1];
	size_t end;
};

struct parser {
	const char *text, *p, *end;
	const char *name;
	int line;
	char section[NAME_MAX_LEN + 1];
	char *msg;
	size_t msglen;
	/* optional, for editing: the headers in order */
	struct sect_span *sects;
	size_t nr_sects, cap_sects;
};

static int bad(struct parser *ps, int line, const char *what)
{
	snprintf(ps->msg, ps->msglen, "%s:%d: %s", ps->name, line, what);
	return -EBADMSG;
}

static int is_blank(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}

static int is_keych(int ch)
{
	return isalnum(ch) || ch == '-' || ch == '_';
}

static void skip_line(struct parser *ps)
{
	const char *nl = memchr(ps->p, '\n', (size_t)(ps->end - ps->p));

	ps->p = nl ? nl + 1 : ps->end;
	if (nl)
		ps->line++;
}

static int add_item(struct zt_config *c, const char *section, const char *name, const char *value,
		    size_t vlen, int file, int line, size_t start, size_t end)
{
	struct zt_config_item *it;
	size_t sl = strlen(section), nl = strlen(name);
	char *key, *val;

	if (c->nr >= ZT_CONFIG_MAX_ITEMS)
		return -E2BIG;
	if (c->nr == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 16;
		struct zt_config_item *n = realloc(c->items, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->items = n;
		c->cap = ncap;
	}
	key = malloc(sl + nl + 2);
	val = malloc(vlen + 1);
	if (!key || !val) {
		free(key);
		free(val);
		return -ENOMEM;
	}
	memcpy(key, section, sl);
	key[sl] = '.';
	memcpy(key + sl + 1, name, nl + 1);
	memcpy(val, value, vlen);
	val[vlen] = 0;
	it = &c->items[c->nr++];
	it->key = key;
	it->value = val;
	it->file = file;
	it->lineno = line;
	it->start = start;
	it->end = end;
	return 0;
}

/* "[name]" at ps->p: the section. */
static int parse_section(struct parser *ps)
{
	size_t n = 0;

	ps->p++;
	while (ps->p < ps->end && *ps->p != ']') {
		unsigned char ch = (unsigned char)*ps->p;

		if (!is_keych(ch) && ch != '.')
			return bad(ps, ps->line,
				   ch == '\n' ? "a section name without ']'"
					      : "a section name may hold only letters, "
						"digits, '-', '_' and '.'");
		if (n >= NAME_MAX_LEN)
			return bad(ps, ps->line, "a section name too long");
		ps->section[n++] = (char)tolower(ch);
		ps->p++;
	}
	if (ps->p >= ps->end)
		return bad(ps, ps->line, "a section name without ']'");
	if (!n)
		return bad(ps, ps->line, "an empty section name");
	ps->section[n] = 0;
	ps->p++;
	while (ps->p < ps->end && is_blank((unsigned char)*ps->p))
		ps->p++;
	if (ps->p < ps->end && *ps->p != '\n' && *ps->p != '#' && *ps->p != ';')
		return bad(ps, ps->line, "text after a section header");
	skip_line(ps);
	if (ps->sects) {
		if (ps->nr_sects == ps->cap_sects) {
			size_t ncap = ps->cap_sects * 2;
			struct sect_span *s = realloc(ps->sects, ncap * sizeof(*s));

			if (!s)
				return -ENOMEM;
			ps->sects = s;
			ps->cap_sects = ncap;
		}
		memcpy(ps->sects[ps->nr_sects].name, ps->section, n + 1);
		ps->sects[ps->nr_sects++].end = (size_t)(ps->p - ps->text);
	}
	return 0;
}

/* The value after '=' into buf (*n bytes); ps->p ends after its line. */
static int parse_value(struct parser *ps, char *buf, size_t *n)
{
	size_t len = 0, keep = 0; /* keep: bytes not to trim (up to the last non-blank or quoted) */
	int quote = 0, start = ps->line;

	while (ps->p < ps->end && is_blank((unsigned char)*ps->p))
		ps->p++;
	for (;;) {
		char ch;

		if (ps->p >= ps->end || *ps->p == '\n') {
			if (quote)
				return bad(ps, start, "a quoted value without its closing '\"'");
			if (ps->p < ps->end) {
				ps->p++;
				ps->line++;
			}
			break;
		}
		ch = *ps->p++;
		if (!quote && (ch == '#' || ch == ';')) {
			ps->p--;
			skip_line(ps);
			break;
		}
		if (ch == '"') {
			quote = !quote;
			keep = len;
			continue;
		}
		if (ch == '\\') {
			if (ps->p >= ps->end)
				return bad(ps, ps->line, "a '\\' at the end of the file");
			ch = *ps->p++;
			switch (ch) {
			case '\n': /* the value goes on on the next line */
				ps->line++;
				continue;
			case '\\':
			case '"':
				break;
			case 'n':
				ch = '\n';
				break;
			case 't':
				ch = '\t';
				break;
			case 'b':
				ch = '\b';
				break;
			default:
				return bad(ps, ps->line,
					   "an unknown escape in a value: use \\\\, \\\", \\n, \\t "
					   "or \\b");
			}
			if (len >= ZT_CONFIG_MAX_VALUE)
				goto too_long;
			buf[len++] = ch;
			keep = len;
			continue;
		}
		if (ch == 0 || ((unsigned char)ch < 0x20 && !is_blank((unsigned char)ch)))
			return bad(ps, ps->line, "a control character in a value");
		if (len >= ZT_CONFIG_MAX_VALUE)
			goto too_long;
		buf[len++] = ch;
		if (quote || !is_blank((unsigned char)ch))
			keep = len;
	}
	*n = keep;
	return 0;
too_long:
	snprintf(ps->msg, ps->msglen, "%s:%d: a value longer than %d bytes", ps->name, start,
		 ZT_CONFIG_MAX_VALUE);
	return -E2BIG;
}

static int parse(struct parser *ps, struct zt_config *c, int file)
{
	char name[NAME_MAX_LEN + 1];
	char *buf = malloc(ZT_CONFIG_MAX_VALUE + 1);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	ps->line = 1;
	ps->section[0] = 0;
	while (ps->p < ps->end) {
		const char *line_start = ps->p;
		size_t n = 0, vlen;
		int line;

		while (ps->p < ps->end && is_blank((unsigned char)*ps->p))
			ps->p++;
		if (ps->p >= ps->end)
			break;
		if (*ps->p == '\n') {
			ps->p++;
			ps->line++;
			continue;
		}
		if (*ps->p == '#' || *ps->p == ';') {
			skip_line(ps);
			continue;
		}
		if (*ps->p == '[') {
			if ((ret = parse_section(ps)))
				break;
			continue;
		}
		if (!isalpha((unsigned char)*ps->p)) {
			ret = bad(ps, ps->line,
				  "a line that is neither '[section]' nor 'name = value'");
			break;
		}
		if (!ps->section[0]) {
			ret = bad(ps, ps->line, "a 'name = value' line before any '[section]'");
			break;
		}
		line = ps->line;
		while (ps->p < ps->end && is_keych((unsigned char)*ps->p)) {
			if (n >= NAME_MAX_LEN) {
				ret = bad(ps, line, "a name too long");
				goto out;
			}
			name[n++] = (char)tolower((unsigned char)*ps->p++);
		}
		name[n] = 0;
		while (ps->p < ps->end && is_blank((unsigned char)*ps->p))
			ps->p++;
		if (ps->p >= ps->end || *ps->p == '\n' || *ps->p == '#' || *ps->p == ';') {
			skip_line(ps); /* a name alone: true, as in perf and git */
			memcpy(buf, "true", 4);
			vlen = 4;
		} else if (*ps->p == '=') {
			ps->p++;
			if ((ret = parse_value(ps, buf, &vlen)))
				break;
		} else {
			ret = bad(ps, line,
				  "a name may hold only letters, digits, '-' and '_', "
				  "and '=' must follow it");
			break;
		}
		ret = add_item(c, ps->section, name, buf, vlen, file, line,
			       (size_t)(line_start - ps->text), (size_t)(ps->p - ps->text));
		if (ret == -E2BIG)
			snprintf(ps->msg, ps->msglen, "%s: more than %d items", ps->name,
				 ZT_CONFIG_MAX_ITEMS);
		if (ret)
			break;
	}
out:
	free(buf);
	return ret;
}

int zt_config_parse(struct zt_config *c, const char *text, size_t len, const char *name, int file,
		    char *msg, size_t msglen)
{
	struct parser ps = {.text = text,
			    .p = text,
			    .end = text + len,
			    .name = name ? name : "config",
			    .msg = msg,
			    .msglen = msglen};

	if (msglen)
		msg[0] = 0;
	if (len > ZT_CONFIG_MAX_FILE) {
		snprintf(msg, msglen, "%s: larger than %u bytes", ps.name, ZT_CONFIG_MAX_FILE);
		return -E2BIG;
	}
	return parse(&ps, c, file);
}

int zt_config_read_file(struct zt_config *c, const char *path, uid_t also_uid, char *msg,
			size_t msglen)
{
	struct zt_config_file *nf;
	struct stat st;
	char *text = NULL;
	size_t n = 0, first;
	ssize_t k;
	int fd, ret;

	if (msglen)
		msg[0] = 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret != -ENOENT)
			snprintf(msg, msglen, "cannot open '%s': %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		snprintf(msg, msglen, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	ret = -EPERM;
	if (!S_ISREG(st.st_mode)) {
		snprintf(msg, msglen, "'%s' is not a regular file: not used", path);
		goto out;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid() && st.st_uid != also_uid) {
		snprintf(msg, msglen,
			 "'%s' is owned by user %u, neither you nor root: not used (zt may run as "
			 "root): run 'chown %u %s' if it is yours",
			 path, (unsigned)st.st_uid, (unsigned)geteuid(), path);
		goto out;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(
			msg, msglen,
			"'%s' can be changed by others (mode %03o): not used (zt may run as root): "
			"run 'chmod go-w %s'",
			path, (unsigned)(st.st_mode & 0777), path);
		goto out;
	}
	if (st.st_size > (off_t)ZT_CONFIG_MAX_FILE) {
		snprintf(msg, msglen, "'%s' is larger than %u bytes: not used", path,
			 ZT_CONFIG_MAX_FILE);
		ret = -E2BIG;
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		ret = -ENOMEM;
		goto out;
	}
	while (n < (size_t)st.st_size && (k = read(fd, text + n, (size_t)st.st_size - n)) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			ret = -errno;
			snprintf(msg, msglen, "cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		n += (size_t)k;
	}
	nf = realloc(c->files, (c->nr_files + 1) * sizeof(*nf));
	if (!nf) {
		ret = -ENOMEM;
		goto out;
	}
	c->files = nf;
	nf[c->nr_files].path = strdup(path);
	if (!nf[c->nr_files].path) {
		ret = -ENOMEM;
		goto out;
	}
	nf[c->nr_files].mode = st.st_mode & 07777;
	nf[c->nr_files].uid = st.st_uid;
	c->nr_files++;
	first = c->nr;
	ret = zt_config_parse(c, text, n, path, (int)c->nr_files - 1, msg, msglen);
	while (ret && c->nr > first) { /* all of the file or nothing */
		c->nr--;
		free(c->items[c->nr].key);
		free(c->items[c->nr].value);
	}
out:
	free(text);
	close(fd);
	return ret;
}

const struct zt_config_item *zt_config_find(const struct zt_config *c, const char *key)
{
	size_t i;

	for (i = c->nr; i-- > 0;)
		if (!strcmp(c->items[i].key, key))
			return &c->items[i];
	return NULL;
}

const char *zt_config_get(const struct zt_config *c, const char *key)
{
	const struct zt_config_item *it = zt_config_find(c, key);

	return it ? it->value : NULL;
}

int zt_config_bool(const char *v)
{
	static const char *const t[] = {"true", "yes", "on", "1"}, *const f[] = {"false", "no",
										 "off", "0"};
	size_t i;

	for (i = 0; i < 4; i++) {
		if (!strcasecmp(v, t[i]))
			return 1;
		if (!strcasecmp(v, f[i]))
			return 0;
	}
	return -EINVAL;
}

int zt_config_key_ok(const char *key)
{
	const char *dot = strrchr(key, '.'), *p;

	if (!dot || dot == key || !dot[1] || dot - key > NAME_MAX_LEN ||
	    strlen(dot + 1) > NAME_MAX_LEN)
		return 0;
	for (p = key; p < dot; p++)
		if (!(is_keych((unsigned char)*p) && !isupper((unsigned char)*p)) && *p != '.')
			return 0;
	if (!isalpha((unsigned char)dot[1]))
		return 0;
	for (p = dot + 1; *p; p++)
		if (!is_keych((unsigned char)*p) || isupper((unsigned char)*p))
			return 0;
	return 1;
}

/* ---- editing ------------------------------------------------------------------- */

struct obuf {
	char *s;
	size_t n, cap;
	int err;
};

static void put(struct obuf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t ncap = (b->n + n + 1) * 2;
		char *ns = realloc(b->s, ncap);

		if (!ns) {
			b->err = -ENOMEM;
			return;
		}
		b->s = ns;
		b->cap = ncap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

static void puts_(struct obuf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* "\tname = value\n", the value quoted when it has to be. */
static void put_item(struct obuf *b, const char *name, const char *value)
{
	int q = !*value || is_blank((unsigned char)value[0]) ||
		is_blank((unsigned char)value[strlen(value) - 1]) || strpbrk(value, "#;\"\\\n\t");
	const char *p;

	puts_(b, "\t");
	puts_(b, name);
	puts_(b, " = ");
	if (q)
		puts_(b, "\"");
	for (p = value; *p; p++) {
		if (!q)
			put(b, p, 1);
		else if (*p == '"' || *p == '\\') {
			put(b, "\\", 1);
			put(b, p, 1);
		} else if (*p == '\n')
			puts_(b, "\\n");
		else if (*p == '\t')
			puts_(b, "\\t");
		else
			put(b, p, 1);
	}
	if (q)
		puts_(b, "\"");
	puts_(b, "\n");
}

int zt_config_edit(const char *text, size_t len, const char *key, const char *value, char **out,
		   size_t *outlen, int *changed, char *msg, size_t msglen)
{
	struct parser ps = {.text = text,
			    .p = text,
			    .end = text + len,
			    .name = "config",
			    .msg = msg,
			    .msglen = msglen};
	const char *dot = strrchr(key, '.');
	char section[NAME_MAX_LEN + 1];
	struct zt_config c;
	struct obuf b = {0};
	size_t i, pos = 0, last = (size_t)-1, insert = (size_t)-1;
	int ret;

	*out = NULL;
	*outlen = 0;
	*changed = 0;
	if (msglen)
		msg[0] = 0;
	if (!zt_config_key_ok(key)) {
		snprintf(msg, msglen, "'%s' is not a 'section.name' key", key);
		return -EINVAL;
	}
	if (value)
		for (i = 0; value[i]; i++)
			if ((unsigned char)value[i] < 0x20 && value[i] != '\t') {
				snprintf(msg, msglen, "a control character in the value of '%s'",
					 key);
				return -EINVAL;
			}
	if (value && strlen(value) > ZT_CONFIG_MAX_VALUE) {
		snprintf(msg, msglen, "a value longer than %d bytes", ZT_CONFIG_MAX_VALUE);
		return -EINVAL;
	}
	memcpy(section, key, (size_t)(dot - key));
	section[dot - key] = 0;
	zt_config_init(&c);
	ps.cap_sects = 8;
	ps.sects = malloc(ps.cap_sects * sizeof(*ps.sects));
	if (!ps.sects)
		return -ENOMEM;
	if (len > ZT_CONFIG_MAX_FILE) {
		snprintf(msg, msglen, "config: larger than %u bytes", ZT_CONFIG_MAX_FILE);
		ret = -E2BIG;
		goto out;
	}
	ret = parse(&ps, &c, -1);
	if (ret)
		goto out;
	/* where a new item would go: after the section's last item, else its last header */
	for (i = 0; i < ps.nr_sects; i++)
		if (!strcmp(ps.sects[i].name, section))
			insert = ps.sects[i].end;
	for (i = 0; i < c.nr; i++) {
		const char *k = c.items[i].key, *kd = strrchr(k, '.');

		if ((size_t)(kd - k) == strlen(section) && !strncmp(k, section, (size_t)(kd - k)) &&
		    (insert == (size_t)-1 || c.items[i].end > insert))
			insert = c.items[i].end;
		if (!strcmp(c.items[i].key, key))
			last = i;
	}
	for (i = 0; i < c.nr; i++) {
		if (strcmp(c.items[i].key, key))
			continue;
		put(&b, text + pos, c.items[i].start - pos);
		pos = c.items[i].end;
		*changed = 1;
		if (value && i == last) /* rewritten where it was */
			put_item(&b, dot + 1, value);
	}
	if (value && last == (size_t)-1 && insert != (size_t)-1) {
		put(&b, text + pos, insert - pos);
		pos = insert;
		if (pos && text[pos - 1] != '\n')
			puts_(&b, "\n");
		else if (pos > 1 && text[pos - 2] == '\\')
			puts_(&b, "\n"); /* a continued value at the end of the file: end it */
		put_item(&b, dot + 1, value);
	}
	put(&b, text + pos, len - pos);
	if (value && last == (size_t)-1 && insert == (size_t)-1) {
		if (b.n && b.s[b.n - 1] != '\n')
			puts_(&b, "\n");
		else if (b.n > 1 && b.s[b.n - 2] == '\\')
			puts_(&b, "\n");
		puts_(&b, "[");
		puts_(&b, section);
		puts_(&b, "]\n");
		put_item(&b, dot + 1, value);
	}
	if (!b.s)
		put(&b, "", 0);
	if (value)
		*changed = 1;
	ret = b.err;
	if (!ret) {
		*out = b.s;
		*outlen = b.n;
		b.s = NULL;
	}
out:
	free(b.s);
	free(ps.sects);
	zt_config_release(&c);
	return ret;
}
