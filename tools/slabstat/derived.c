// SPDX-License-Identifier: GPL-2.0
/*
 * slabstat: rows derived from the counter deltas, as used in the
 * nfs_page report and the slab parking RFC.
 */
#include <stdio.h>
#include <string.h>

#include "slabstat.h"
#include "derived.h"

const struct derived_def derived_defs[] = {
	{ "free_slowpath_ratio",
	  "FREE_SLOWPATH / (FREE_FASTPATH + FREE_SLOWPATH)", '%' },
	{ "sheaf_flushes", "SHEAF_FLUSH / sheaf_capacity", '#' },
	{ "barn_put_fail_per_flush",
	  "BARN_PUT_FAIL / (SHEAF_FLUSH / sheaf_capacity)", 'x' },
	{ "park_ratio", "PARK_SLAB / FREE_ADD_PARTIAL", '%' },
	{ "park_balance", "PARK_SLAB - UNPARK_SLAB", '#' },
	{ "page_churn", "page allocator churn (alloc_slab + free_slab)", '#' },
};

const int nr_derived = ARRAY_SIZE(derived_defs);

static enum dstate ratio(double num, double den, double scale, double *out)
{
	if (den == 0)
		return D_UNDEF;
	*out = num / den * scale;
	return D_OK;
}

enum dstate derive(int i, metric_getter get, const void *ctx, double *out)
{
	double a, b, c;

	switch (i) {
	case 0:
		if (!get(ctx, "free_slowpath", &a) || !get(ctx, "free_fastpath", &b))
			return D_ABSENT;
		return ratio(a, a + b, 100, out);
	case 1:
		if (!get(ctx, "sheaf_flush", &a) || !get(ctx, "sheaf_capacity", &b))
			return D_ABSENT;
		return ratio(a, b, 1, out);
	case 2:
		if (!get(ctx, "barn_put_fail", &c) || !get(ctx, "sheaf_flush", &a) ||
		    !get(ctx, "sheaf_capacity", &b))
			return D_ABSENT;
		if (b == 0)
			return D_UNDEF;
		return ratio(c, a / b, 1, out);
	case 3:
		/* a park counts free_add_partial too: at most 100% */
		if (!get(ctx, "park_slab", &a) || !get(ctx, "free_add_partial", &b))
			return D_ABSENT;
		return ratio(a, b, 100, out);
	case 4:
		if (!get(ctx, "park_slab", &a) || !get(ctx, "unpark_slab", &b))
			return D_ABSENT;
		*out = a - b;
		return D_OK;
	case 5:
		if (!get(ctx, "alloc_slab", &a) || !get(ctx, "free_slab", &b))
			return D_ABSENT;
		*out = a + b;
		return D_OK;
	}
	return D_ABSENT;
}

const char *fmt_derived(char *buf, size_t len, int i, double v)
{
	char num[64];

	switch (derived_defs[i].unit) {
	case '%':
		snprintf(buf, len, "%.2f%%", v);
		break;
	case 'x':
		snprintf(buf, len, "%.2f", v);
		break;
	default:
		fmt_num(num, sizeof(num), v);
		snprintf(buf, len, "%s", num);
		break;
	}
	return buf;
}
