// SPDX-License-Identifier: GPL-2.0
/*
 * slabstat compare: median (min-max) of repeated runs per group, and the
 * change of every later group against the first one.  Each run is a delta
 * document written by 'slabstat diff --json A B'.
 */
#include <stdlib.h>
#include <string.h>

#include "slabstat.h"
#include "derived.h"
#include "table.h"

static const char * const result_keys[] = {
	"ops_per_sec", "free_lat_p50_ns", "free_lat_p99_ns",
	"alloc_lat_p50_ns", "alloc_lat_p99_ns", NULL
};

struct run {
	const char *path;
	struct jval *doc;
};

struct stats {
	int n;
	int undef;		/* derived rows: runs with a zero denominator */
	double med, min, max;
};

/* What a group without values shows: "n/a" if a denominator was 0. */
static const char *missing(const struct stats *s)
{
	return s->undef ? "n/a" : "absent";
}

/* One row: a metric, derived row or result, summarised per group. */
struct row {
	const char *name;
	const char *kind;	/* counter, gauge, fact, derived, result */
	int dindex;		/* derived_defs index, or -1 */
	struct stats *g;	/* per group */
};

struct cmp {
	int ngroups;
	char **labels;
	int *nruns;
	struct run **runs;
	enum outfmt fmt;
};

static const struct jval *run_metrics(const struct run *r, const char *cache)
{
	return jget(jget(jget(r->doc, "caches"), cache), "metrics");
}

static bool run_value(const void *ctx, const char *name, double *v)
{
	const struct jval *m = jget(ctx, name);

	return jnum(jget(m, "value"), v);
}

static void summarise(struct stats *s, double *v, int n)
{
	int i;

	s->n = n;
	if (!n)
		return;
	s->min = v[0];
	s->max = v[0];
	for (i = 1; i < n; i++) {
		if (v[i] < s->min)
			s->min = v[i];
		if (v[i] > s->max)
			s->max = v[i];
	}
	s->med = median_of(v, n);
}

/* Fill row->g for a metric (dindex < 0), derived row or result. */
static void collect(const struct cmp *c, struct row *row, const char *cache)
{
	int g, r;

	row->g = xcalloc(c->ngroups, sizeof(*row->g));
	for (g = 0; g < c->ngroups; g++) {
		double *v = xcalloc(c->nruns[g], sizeof(double));
		int n = 0, undef = 0;

		for (r = 0; r < c->nruns[g]; r++) {
			const struct run *run = &c->runs[g][r];
			double x;

			if (!strcmp(row->kind, "result")) {
				if (jnum(jget(jget(run->doc, "results"), row->name), &x))
					v[n++] = x;
			} else if (row->dindex >= 0) {
				const struct jval *m = run_metrics(run, cache);

				enum dstate st = m ? derive(row->dindex, run_value, m, &x) :
						     D_ABSENT;

				if (st == D_OK)
					v[n++] = x;
				else if (st == D_UNDEF)
					undef++;
			} else {
				if (run_value(run_metrics(run, cache), row->name, &x))
					v[n++] = x;
			}
		}
		summarise(&row->g[g], v, n);
		row->g[g].undef = undef;
		free(v);
	}
}

static void fmt_value(char *buf, size_t len, const struct row *row, double v)
{
	if (row->dindex >= 0)
		fmt_derived(buf, len, row->dindex, v);
	else
		fmt_num(buf, len, v);
}

static void fmt_stats(char *buf, size_t len, const struct row *row,
		      const struct stats *s)
{
	char med[32], lo[32], hi[32];

	if (!s->n) {
		snprintf(buf, len, "%s", missing(s));
		return;
	}
	fmt_value(med, sizeof(med), row, s->med);
	if (s->n == 1) {
		snprintf(buf, len, "%s", med);
		return;
	}
	fmt_value(lo, sizeof(lo), row, s->min);
	fmt_value(hi, sizeof(hi), row, s->max);
	snprintf(buf, len, "%s (%s%s%s)", med, lo,
		 s->min < 0 || s->max < 0 ? ".." : "-", hi);
}

/* change of group g vs group 0; false when undefined */
static bool change_vs_first(const struct row *row, int g, double *pct)
{
	const struct stats *f = &row->g[0], *s = &row->g[g];

	if (!f->n || !s->n)
		return false;
	if (f->med == 0) {
		if (s->med != 0)
			return false;
		*pct = 0;
		return true;
	}
	*pct = (s->med - f->med) / (f->med < 0 ? -f->med : f->med) * 100;
	return true;
}

static void text_rows(const struct cmp *c, struct row *rows, int nrows,
		      const char *title, bool with_delta)
{
	int ncol = 1 + c->ngroups + (c->ngroups - 1) * (with_delta ? 2 : 1);
	char **cells = xcalloc(ncol, sizeof(char *));
	char buf[64][128];
	struct table *t = tbl_new(ncol);
	int i, g, k;
	double pct;

	k = 0;
	cells[k++] = (char *)title;
	for (g = 0; g < c->ngroups; g++)
		cells[k++] = c->labels[g];
	for (g = 1; g < c->ngroups; g++) {
		if (with_delta) {
			snprintf(buf[2 * g], 128, c->ngroups > 2 ? "delta %s" : "delta",
				 c->labels[g]);
			cells[k++] = buf[2 * g];
		}
		snprintf(buf[2 * g + 1], 128, c->ngroups > 2 ? "change %s" : "change",
			 c->labels[g]);
		cells[k++] = buf[2 * g + 1];
	}
	tbl_add(t, cells);
	for (i = 0; i < nrows; i++) {
		const struct row *row = &rows[i];

		k = 0;
		cells[k++] = (char *)(row->dindex >= 0 ?
				      derived_defs[row->dindex].label : row->name);
		for (g = 0; g < c->ngroups && k < 60; g++) {
			fmt_stats(buf[k], 128, row, &row->g[g]);
			cells[k] = buf[k];
			k++;
		}
		for (g = 1; g < c->ngroups && k < 60; g++) {
			bool both = row->g[0].n && row->g[g].n;

			if (with_delta) {
				if (both)
					fmt_value(buf[k], 128, row,
						  row->g[g].med - row->g[0].med);
				cells[k] = both ? buf[k] : NULL;
				k++;
			}
			if (!both)
				snprintf(buf[k], 128, "%s", row->g[0].n ?
					 missing(&row->g[g]) : missing(&row->g[0]));
			else if (change_vs_first(row, g, &pct))
				snprintf(buf[k], 128, "%+.2f%%", pct);
			else
				snprintf(buf[k], 128, "n/a");
			cells[k] = buf[k];
			k++;
		}
		tbl_add(t, cells);
	}
	tbl_print(t, stdout);
	free(cells);
}

static void csv_num(char *buf, size_t len, const struct stats *s, double v)
{
	if (s->n)
		snprintf(buf, len, "%.10g", v);
	else
		buf[0] = '\0';
}

/*
 * Wide CSV, one row per metric: the medians of the groups come right
 * after the metric (what tools/report/plot-runs.sh reads), then the kind, the
 * cache, runs/min/max per group and delta/change of each later group.
 */
static void csv_header(const struct cmp *c)
{
	int g;

	printf("metric");
	for (g = 0; g < c->ngroups; g++)
		printf(",%s", c->labels[g]);
	printf(",kind,cache");
	for (g = 0; g < c->ngroups; g++)
		printf(",%s_runs,%s_min,%s_max", c->labels[g], c->labels[g],
		       c->labels[g]);
	for (g = 1; g < c->ngroups; g++)
		printf(",%s_delta,%s_change_pct", c->labels[g], c->labels[g]);
	putchar('\n');
}

static void csv_rows(const struct cmp *c, struct row *rows, int nrows,
		     const char *cache)
{
	char b[64];
	int i, g;
	double pct;

	for (i = 0; i < nrows; i++) {
		const struct row *row = &rows[i];

		csv_cell(stdout, row->dindex >= 0 ?
			 derived_defs[row->dindex].key : row->name, false);
		for (g = 0; g < c->ngroups; g++) {
			csv_num(b, sizeof(b), &row->g[g], row->g[g].med);
			csv_cell(stdout, b, false);
		}
		csv_cell(stdout, row->kind, false);
		csv_cell(stdout, cache, false);
		for (g = 0; g < c->ngroups; g++) {
			const struct stats *s = &row->g[g];
			bool last = g == c->ngroups - 1 && c->ngroups == 1;

			snprintf(b, sizeof(b), "%d", s->n);
			csv_cell(stdout, b, false);
			csv_num(b, sizeof(b), s, s->min);
			csv_cell(stdout, b, false);
			csv_num(b, sizeof(b), s, s->max);
			csv_cell(stdout, b, last);
		}
		for (g = 1; g < c->ngroups; g++) {
			const struct stats *s = &row->g[g];
			bool both = row->g[0].n && s->n;

			b[0] = '\0';
			if (both)
				snprintf(b, sizeof(b), "%.10g", s->med - row->g[0].med);
			csv_cell(stdout, b, false);
			if (!both)
				snprintf(b, sizeof(b), "%s", row->g[0].n ?
					 missing(s) : missing(&row->g[0]));
			else if (change_vs_first(row, g, &pct))
				snprintf(b, sizeof(b), "%.2f", pct);
			else
				b[0] = '\0';
			csv_cell(stdout, b, g == c->ngroups - 1);
		}
	}
}

static void json_rows(const struct cmp *c, struct jw *w, struct row *rows,
		      int nrows)
{
	int i, g;
	double pct;

	for (i = 0; i < nrows; i++) {
		const struct row *row = &rows[i];

		jw_obj(w, row->dindex >= 0 ? derived_defs[row->dindex].key :
		       row->name);
		jw_str(w, "kind", row->kind);
		if (row->dindex >= 0)
			jw_str(w, "label", derived_defs[row->dindex].label);
		jw_arr(w, "groups");
		for (g = 0; g < c->ngroups; g++) {
			const struct stats *s = &row->g[g];

			jw_obj(w, NULL);
			jw_str(w, "label", c->labels[g]);
			jw_int(w, "runs", s->n);
			if (s->n) {
				jw_dbl(w, "median", s->med);
				jw_dbl(w, "min", s->min);
				jw_dbl(w, "max", s->max);
			} else if (s->undef) {
				jw_str(w, "undefined", "zero denominator in every run");
			} else {
				jw_str(w, "absent", "no run has it");
			}
			if (g && row->g[0].n && s->n) {
				jw_dbl(w, "delta", s->med - row->g[0].med);
				if (change_vs_first(row, g, &pct))
					jw_dbl(w, "change_pct", pct);
				else
					jw_null(w, "change_pct");
			}
			jw_end_obj(w);
		}
		jw_end_arr(w);
		jw_end_obj(w);
	}
}

/* The kernel release of a group's runs, "mixed: ..." if they differ. */
static const char *group_kernel(const struct cmp *c, int g)
{
	static char buf[256];
	const char *k0 = NULL, *k;
	int r;

	for (r = 0; r < c->nruns[g]; r++) {
		k = jstr(jget(c->runs[g][r].doc, "kernel"));
		if (!k)
			k = "?";
		if (!k0) {
			k0 = k;
		} else if (strcmp(k0, k)) {
			snprintf(buf, sizeof(buf), "mixed: %s, %s, ...", k0, k);
			return buf;
		}
	}
	return k0 ? k0 : "?";
}

static void add_name(const char ***names, int *n, const char *name)
{
	int i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*names)[i], name))
			return;
	*names = xrealloc(*names, *n + 1, sizeof(**names));
	(*names)[(*n)++] = name;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char * const *)a, *(const char * const *)b);
}

/* Rows of one cache: metrics (union over all runs), then derived rows. */
static int cache_rows(const struct cmp *c, const char *cache, struct row **out,
		      int *nmetric)
{
	const char **names = NULL;
	struct row *rows;
	int n = 0, g, r, i;

	for (g = 0; g < c->ngroups; g++)
		for (r = 0; r < c->nruns[g]; r++) {
			const struct jval *m = run_metrics(&c->runs[g][r], cache);

			for (i = 0; m && m->type == J_OBJ && i < m->n; i++)
				add_name(&names, &n, m->keys[i]);
		}
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_name);
	rows = xcalloc(n + nr_derived, sizeof(*rows));
	for (i = 0; i < n; i++) {
		rows[i].name = names[i];
		rows[i].kind = "counter";
		rows[i].dindex = -1;
		for (g = 0; g < c->ngroups; g++)
			for (r = 0; r < c->nruns[g]; r++) {
				const char *k = jstr(jget(jget(run_metrics(&c->runs[g][r],
									   cache),
							      names[i]), "type"));
				if (k)
					rows[i].kind = k;
			}
		collect(c, &rows[i], cache);
	}
	for (i = 0; i < nr_derived; i++) {
		rows[n + i].name = derived_defs[i].key;
		rows[n + i].kind = "derived";
		rows[n + i].dindex = i;
		collect(c, &rows[n + i], cache);
	}
	free(names);
	*out = rows;
	*nmetric = n;
	return n + nr_derived;
}

int cmd_compare(char ***groups, int *ngroup, int ngroups, char **labels,
		enum outfmt fmt)
{
	struct cmp c = { .ngroups = ngroups, .labels = labels, .fmt = fmt };
	const char **caches = NULL;
	struct row *rows, res[8];
	int ncaches = 0, g, r, i, nrows, nmetric, nres = 0;
	bool any_results = false;
	struct jw w;

	c.nruns = ngroup;
	c.runs = xcalloc(ngroups, sizeof(*c.runs));
	for (g = 0; g < ngroups; g++) {
		c.runs[g] = xcalloc(ngroup[g], sizeof(**c.runs));
		for (r = 0; r < ngroup[g]; r++) {
			struct run *run = &c.runs[g][r];
			const struct jval *v, *cs;

			run->path = groups[g][r];
			run->doc = json_load(run->path);
			v = jget(run->doc, "slabstat");
			if (!jstr(v) || strcmp(jstr(v), "delta"))
				fatal("%s is not a delta document: %s%s", run->path,
				      "compare takes the output of 'slabstat diff --json A B'",
				      jstr(v) && !strcmp(jstr(v), "snapshot") ?
				      " (this is a snapshot)" : "");
			cs = jget(run->doc, "caches");
			for (i = 0; cs && cs->type == J_OBJ && i < cs->n; i++)
				add_name(&caches, &ncaches, cs->keys[i]);
			v = jget(run->doc, "results");
			if (v && v->type == J_OBJ && v->n)
				any_results = true;
		}
	}
	for (i = 0; result_keys[i]; i++) {
		res[nres].name = result_keys[i];
		res[nres].kind = "result";
		res[nres].dindex = -1;
		collect(&c, &res[nres], "");
		nres++;
	}

	if (fmt == OUT_JSON) {
		jw_open(&w, stdout);
		jw_obj(&w, NULL);
		jw_str(&w, "slabstat", "compare");
		jw_int(&w, "version", 1);
		jw_arr(&w, "groups");
		for (g = 0; g < ngroups; g++) {
			jw_obj(&w, NULL);
			jw_str(&w, "label", labels[g]);
			jw_arr(&w, "runs");
			for (r = 0; r < ngroup[g]; r++)
				jw_str(&w, NULL, groups[g][r]);
			jw_end_arr(&w);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_obj(&w, "caches");
	} else if (fmt == OUT_CSV) {
		csv_header(&c);
	} else {
		printf("values are median (min-max) over the runs of a group\n");
		for (g = 0; g < ngroups; g++)
			printf("group %s: %d run%s, kernel %s\n", labels[g], ngroup[g],
			       ngroup[g] == 1 ? "" : "s", group_kernel(&c, g));
	}

	for (i = 0; i < ncaches; i++) {
		nrows = cache_rows(&c, caches[i], &rows, &nmetric);
		if (fmt == OUT_JSON) {
			jw_obj(&w, caches[i]);
			jw_obj(&w, "metrics");
			json_rows(&c, &w, rows, nmetric);
			jw_end_obj(&w);
			jw_obj(&w, "derived");
			json_rows(&c, &w, rows + nmetric, nrows - nmetric);
			jw_end_obj(&w);
			jw_end_obj(&w);
		} else if (fmt == OUT_CSV) {
			csv_rows(&c, rows, nrows, caches[i]);
		} else {
			printf("\ncache: %s\n\n", caches[i]);
			text_rows(&c, rows, nmetric, "metric", true);
			putchar('\n');
			text_rows(&c, rows + nmetric, nrows - nmetric, "derived", false);
		}
	}
	if (fmt == OUT_JSON) {
		jw_end_obj(&w);
		jw_obj(&w, "results");
		json_rows(&c, &w, res, nres);
		jw_end_obj(&w);
		jw_end_obj(&w);
		jw_close(&w);
	} else if (fmt == OUT_CSV) {
		csv_rows(&c, res, nres, "");
	} else if (any_results) {
		printf("\nresults\n\n");
		text_rows(&c, res, nres, "result", true);
	}
	return fflush(stdout) ? 1 : 0;
}
