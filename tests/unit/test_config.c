/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the perfconfig-syntax parser: syntax, errors, safe files, editing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "libprof/config.h"
#include "tests/unit/testutil.h"

static int parse_str(struct zt_config *c, const char *text, char *msg, size_t n)
{
	zt_config_init(c);
	return zt_config_parse(c, text, strlen(text), "t", -1, msg, n);
}

static void test_syntax(void **state)
{
	static const char text[] = "# a comment\n"
				   "; another\n"
				   "[Report]\n"
				   "\tchildren = false\n"
				   "  Sort=dso,sym   # trailing comment\n"
				   "\tquoted = \"  a # b ; c  \"\n"
				   "\tescaped = a\\\"b\\\\c\\td\n"
				   "\tflag\n"
				   "\tcont = one \\\ntwo\n"
				   "[call-graph] ; comment\n"
				   "record-mode = dwarf\r\n"
				   "[report]\n"
				   "children = true\n"
				   "empty =\n";
	struct zt_config c;
	char msg[256];

	(void)state;
	assert_int_equal(parse_str(&c, text, msg, sizeof(msg)), 0);
	assert_string_equal(zt_config_get(&c, "report.children"), "true"); /* the later one */
	assert_string_equal(zt_config_get(&c, "report.sort"), "dso,sym");
	assert_string_equal(zt_config_get(&c, "report.quoted"), "  a # b ; c  ");
	assert_string_equal(zt_config_get(&c, "report.escaped"), "a\"b\\c\td");
	assert_string_equal(zt_config_get(&c, "report.flag"), "true");
	assert_string_equal(zt_config_get(&c, "report.cont"), "one two");
	assert_string_equal(zt_config_get(&c, "call-graph.record-mode"), "dwarf");
	assert_string_equal(zt_config_get(&c, "report.empty"), "");
	assert_null(zt_config_get(&c, "report.nothing"));
	assert_int_equal(zt_config_find(&c, "report.sort")->lineno, 5);
	zt_config_release(&c);
}

static void test_errors(void **state)
{
	static const struct {
		const char *text;
		int line;
	} bad[] = {
		{"name = x\n", 1},	  {"[sec\n", 1},	 {"[]\n", 1},
		{"[a b]\n", 1},		  {"[a] x\n", 1},	 {"[a]\n\n  x.y = 1\n", 3},
		{"[a]\nx = \"open\n", 2}, {"[a]\nx = \\q\n", 2}, {"[a]\n= 1\n", 2},
		{"[a]\nx = a\001b\n", 2}, {"[a]\nx = 1\\", 2},
	};
	struct zt_config c;
	char msg[256], want[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse_str(&c, bad[i].text, msg, sizeof(msg)), -EBADMSG);
		snprintf(want, sizeof(want), "t:%d: ", bad[i].line);
		if (strncmp(msg, want, strlen(want)))
			fail_msg("'%s': message '%s', not at line %d", bad[i].text, msg,
				 bad[i].line);
		zt_config_release(&c);
	}
}

static void test_caps(void **state)
{
	size_t n = ZT_CONFIG_MAX_VALUE + 100;
	char *text = malloc(n + 16), msg[256];
	struct zt_config c;

	(void)state;
	memcpy(text, "[a]\nx = ", 8);
	memset(text + 8, 'v', n);
	text[8 + n] = 0;
	assert_int_equal(parse_str(&c, text, msg, sizeof(msg)), -E2BIG);
	zt_config_release(&c);
	free(text);
}

static void test_bool_key(void **state)
{
	(void)state;
	assert_int_equal(zt_config_bool("Yes"), 1);
	assert_int_equal(zt_config_bool("on"), 1);
	assert_int_equal(zt_config_bool("0"), 0);
	assert_int_equal(zt_config_bool("FALSE"), 0);
	assert_int_equal(zt_config_bool("maybe"), -EINVAL);
	assert_true(zt_config_key_ok("report.sort"));
	assert_true(zt_config_key_ok("call-graph.record-mode"));
	assert_false(zt_config_key_ok("report"));
	assert_false(zt_config_key_ok(".sort"));
	assert_false(zt_config_key_ok("report."));
	assert_false(zt_config_key_ok("report.so rt"));
	assert_false(zt_config_key_ok("Report.sort"));
}

static char *edit(const char *text, const char *key, const char *value, int *changed)
{
	char *out, msg[256];
	size_t n;

	assert_int_equal(
		zt_config_edit(text, strlen(text), key, value, &out, &n, changed, msg, sizeof(msg)),
		0);
	assert_int_equal(strlen(out), n);
	return out;
}

static void test_edit(void **state)
{
	static const char text[] = "# mine\n[report]\n\tsort = dso ; old\n\tchildren = true\n"
				   "[record]\n\tfreq = 99\n[report]\n\tsort = sym\n";
	char *o, msg[128];
	size_t n;
	int ch;

	(void)state;
	/* the last one rewritten in place, the earlier one dropped, comments kept */
	o = edit(text, "report.sort", "comm,dso", &ch);
	assert_true(ch);
	assert_string_equal(o, "# mine\n[report]\n\tchildren = true\n[record]\n\tfreq = 99\n"
			       "[report]\n\tsort = comm,dso\n");
	free(o);
	/* a new name goes to the end of its section's last block */
	o = edit(text, "record.call-graph", "dwarf", &ch);
	assert_string_equal(
		o, "# mine\n[report]\n\tsort = dso ; old\n\tchildren = true\n"
		   "[record]\n\tfreq = 99\n\tcall-graph = dwarf\n[report]\n\tsort = sym\n");
	free(o);
	/* a new section at the end; values that need it quoted */
	o = edit("[a]\nx = 1", "colors.top", " red; x ", &ch);
	assert_string_equal(o, "[a]\nx = 1\n[colors]\n\ttop = \" red; x \"\n");
	free(o);
	o = edit("", "a.b", "q\"\\", &ch);
	assert_string_equal(o, "[a]\n\tb = \"q\\\"\\\\\"\n");
	free(o);
	/* a header alone: the item right after it */
	o = edit("[a]\n[b]\n", "a.x", "1", &ch);
	assert_string_equal(o, "[a]\n\tx = 1\n[b]\n");
	free(o);
	/* removal */
	o = edit(text, "report.sort", NULL, &ch);
	assert_true(ch);
	assert_string_equal(
		o, "# mine\n[report]\n\tchildren = true\n[record]\n\tfreq = 99\n[report]\n");
	free(o);
	o = edit(text, "report.nothing", NULL, &ch);
	assert_false(ch);
	assert_string_equal(o, text);
	free(o);
	/* what was written reads back the same */
	{
		struct zt_config c;

		o = edit("", "a.b", " x\t\"y\\ # ", &ch);
		assert_int_equal(parse_str(&c, o, msg, sizeof(msg)), 0);
		assert_string_equal(zt_config_get(&c, "a.b"), " x\t\"y\\ # ");
		zt_config_release(&c);
		free(o);
	}
	assert_int_equal(zt_config_edit("[a", 2, "a.b", "1", &o, &n, &ch, msg, sizeof(msg)),
			 -EBADMSG);
	assert_int_equal(zt_config_edit("", 0, "ab", "1", &o, &n, &ch, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(zt_config_edit("", 0, "a.b", "x\ny", &o, &n, &ch, msg, sizeof(msg)),
			 -EINVAL);
}

static void test_files(void **state)
{
	char dir[] = "/tmp/zt-test-config.XXXXXX", path[128], msg[512];
	struct zt_config c;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ztconfig", dir);
	zt_config_init(&c);
	assert_int_equal(zt_config_read_file(&c, path, (uid_t)-1, msg, sizeof(msg)), -ENOENT);
	assert_int_equal(write_text(path, "[report]\nsort = sym\n", 0644), 0);
	assert_int_equal(zt_config_read_file(&c, path, (uid_t)-1, msg, sizeof(msg)), 0);
	assert_string_equal(zt_config_get(&c, "report.sort"), "sym");
	assert_int_equal(c.nr_files, 1);
	assert_int_equal(c.files[c.items[0].file].mode, 0644);
	/* writable by others: refused */
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(zt_config_read_file(&c, path, (uid_t)-1, msg, sizeof(msg)), -EPERM);
	assert_non_null(strstr(msg, "chmod go-w"));
	assert_int_equal(chmod(path, 0664), 0);
	assert_int_equal(zt_config_read_file(&c, path, (uid_t)-1, msg, sizeof(msg)), -EPERM);
	/* owned by someone else (as root: chown works) */
	if (geteuid() == 0) {
		assert_int_equal(chmod(path, 0644), 0);
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(zt_config_read_file(&c, path, (uid_t)-1, msg, sizeof(msg)),
				 -EPERM);
		assert_non_null(strstr(msg, "owned by user 65534"));
		/* ... unless that is the sudo user */
		assert_int_equal(zt_config_read_file(&c, path, 65534, msg, sizeof(msg)), 0);
	}
	/* a directory */
	assert_int_equal(zt_config_read_file(&c, dir, (uid_t)-1, msg, sizeof(msg)), -EPERM);
	/* a later file wins */
	snprintf(path, sizeof(path), "%s/second", dir);
	assert_int_equal(write_text(path, "[report]\nsort = dso\n", 0600), 0);
	assert_int_equal(zt_config_read_file(&c, path, (uid_t)-1, msg, sizeof(msg)), 0);
	assert_string_equal(zt_config_get(&c, "report.sort"), "dso");
	assert_int_equal(c.files[zt_config_find(&c, "report.sort")->file].mode, 0600);
	/* a file that does not parse: none of it */
	assert_int_equal(write_text(path, "[report]\nsort = sym\nchildren = \"open\n", 0600), 0);
	assert_int_equal(zt_config_read_file(&c, path, (uid_t)-1, msg, sizeof(msg)), -EBADMSG);
	assert_string_equal(zt_config_get(&c, "report.sort"), "dso");
	assert_non_null(strstr(msg, "second:3: "));
	zt_config_release(&c);
	assert_int_equal(run("rm -rf %s", dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syntax), cmocka_unit_test(test_errors),
		cmocka_unit_test(test_caps),   cmocka_unit_test(test_bool_key),
		cmocka_unit_test(test_edit),   cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
