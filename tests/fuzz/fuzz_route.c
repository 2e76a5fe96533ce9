/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: zt serve's request routing. The input is "METHOD TARGET"
 * (the first space splits them; a newline ends the target and the rest is a
 * listen address): zr_parse, then every parameter parser on what it accepted,
 * with invariants on the result (ids hex, decoded strings free of control
 * characters, messages printable).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/route.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_text(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct zs_selection sel;
	const uint8_t *sp = memchr(data, ' ', size), *nl;
	char method[16], msg[256], *target, *listen = NULL;
	size_t ml, tl, i;
	struct zr_request r;
	const char *allow;
	int rc;

	if (!sp || (size_t)(sp - data) >= sizeof(method))
		return 0;
	ml = (size_t)(sp - data);
	memcpy(method, data, ml);
	method[ml] = '\0';
	nl = memchr(sp + 1, '\n', size - ml - 1);
	tl = nl ? (size_t)(nl - sp - 1) : size - ml - 1;
	target = malloc(tl + 1);
	if (!target)
		return 0;
	memcpy(target, sp + 1, tl);
	target[tl] = '\0';
	if (nl) {
		size_t ll = size - (size_t)(nl + 1 - data);

		listen = malloc(ll + 1);
		if (listen) {
			memcpy(listen, nl + 1, ll);
			listen[ll] = '\0';
		}
	}

	msg[0] = '\0';
	rc = zr_parse(method, target, tl, &r, &allow, msg, sizeof(msg));
	if (rc) {
		if (rc != 400 && rc != 404 && rc != 405 && rc != 414 && rc != 500)
			abort();
		for (i = 0; msg[i]; i++)
			if ((unsigned char)msg[i] < 0x20 || msg[i] >= 0x7f)
				abort();
		if (rc == 405 && !allow)
			abort();
	} else {
		struct zs_label labels[ZS_SEL_MAX_LABELS];
		struct zs_flame_opts fo;
		enum zs_sort sort;
		size_t n, limit;

		if (r.route <= ZR_NONE || r.route >= ZR_COUNT)
			abort();
		if (r.id[0] && r.route != ZR_LABEL_VALUES && !zr_hex_ok(r.id, 2, 64))
			abort();
		if (r.route == ZR_LABEL_VALUES && !zs_label_name_ok(r.id, strlen(r.id)))
			abort();
		if (r.src)
			check_text(r.src);
		if ((r.kind == ZS_KIND_SOURCE) != (r.src != NULL))
			abort();
		for (i = 0; i < r.nr_params; i++) {
			check_text(r.params[i].key);
			check_text(r.params[i].value);
			if (r.params[i].lvalue)
				check_text(r.params[i].lvalue);
		}
		if (!zr_selection(&r, "", &sel, msg, sizeof(msg))) {
			for (i = 0; i < sel.nr_ids; i++)
				if (!zr_hex_ok(sel.ids[i], 64, 64))
					abort();
			for (i = 0; i < sel.match.n; i++)
				if (!zs_label_name_ok(sel.match.m[i].name,
						      strlen(sel.match.m[i].name)))
					abort();
		}
		zs_selection_release(&sel);
		zr_selection(&r, "a.", &sel, msg, sizeof(msg));
		zs_selection_release(&sel);
		zr_selection(&r, "b.", &sel, msg, sizeof(msg));
		zs_selection_release(&sel);
		{
			static struct zs_selection ds[4];
			int64_t step;

			zr_discovery(&r, ds, 4, &n, msg, sizeof(msg));
			for (i = 0; i < 4; i++)
				zs_selection_release(&ds[i]);
			zr_timeline_params(&r, &step, msg, sizeof(msg));
		}
		if (!zr_labels(&r, labels, &n, msg, sizeof(msg)))
			for (i = 0; i < n; i++)
				if (!zr_label_key_ok(labels[i].key) ||
				    !zr_label_value_ok(labels[i].value))
					abort();
		zr_top_params(&r, &limit, &sort, msg, sizeof(msg));
		zr_flame_params(&r, &fo, msg, sizeof(msg));
		zr_scopes(r.route, 0, 0);
		zr_request_release(&r);
	}
	if (listen) {
		struct sockaddr_storage ss;
		socklen_t sl;

		if (!zr_parse_listen(listen, &ss, &sl))
			zr_addr_is_loopback(&ss);
		zr_symbol_quality(listen);
		free(listen);
	}
	free(target);
	return 0;
}
