/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The stacks of a growing profile: its tree rebuilt and its frame table restarted as it grows. */
#include <string.h>

#include "libprof/rstacks.h"

void rstacks_live_init(struct rstacks_live *lv, const struct frametab_source *src)
{
	memset(lv, 0, sizeof(*lv));
	lv->src = *src;
	frametab_init(&lv->ft, NULL, &lv->src);
	rstacks_init(&lv->rs, NULL, NULL, &lv->ft);
}

void rstacks_live_release(struct rstacks_live *lv)
{
	if (lv->src.follow)
		lv->src.follow(lv->src.ctx, NULL, NULL);
	frametab_release(&lv->ft);
	proctree_free(lv->pt);
	memset(lv, 0, sizeof(*lv));
}

int rstacks_live_follow(struct rstacks_live *lv, const struct profile *p)
{
	struct proctree *pt = NULL;
	int ret;

	if (!p) {
		/* a fresh source for the fresh profile */
		if (lv->src.follow)
			lv->src.follow(lv->src.ctx, NULL, NULL);
	} else {
		ret = proctree_new(p, &pt);
		if (ret)
			return ret;
		ret = lv->src.follow ? lv->src.follow(lv->src.ctx, p, pt) : 0;
		if (ret) {
			proctree_free(pt);
			return ret;
		}
	}
	/* frames resolved so far were of the old tree's mappings */
	frametab_reset(&lv->ft, pt);
	proctree_free(lv->pt);
	lv->pt = pt;
	rstacks_init(&lv->rs, p, pt, &lv->ft);
	return 0;
}
