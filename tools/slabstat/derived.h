/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SLABSTAT_DERIVED_H
#define SLABSTAT_DERIVED_H

#include <stdbool.h>
#include <stddef.h>

enum dstate { D_OK, D_ABSENT, D_UNDEF };

struct derived_def {
	const char *key;
	const char *label;
	char unit;		/* '%' percent, 'x' ratio, '#' count */
};

extern const struct derived_def derived_defs[];
extern const int nr_derived;

/* Look up one metric's per-run value (counter delta, gauge/fact value). */
typedef bool (*metric_getter)(const void *ctx, const char *name, double *v);

enum dstate derive(int i, metric_getter get, const void *ctx, double *out);
const char *fmt_derived(char *buf, size_t len, int i, double v);

#endif /* SLABSTAT_DERIVED_H */
