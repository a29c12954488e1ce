// SPDX-License-Identifier: GPL-2.0
/*
 * slabstat diff/window: before/after/delta tables of two snapshots, the
 * derived rows, the per-node split and the delta document (--json) that
 * 'slabstat compare' reads.
 */
#include <stdlib.h>
#include <string.h>

#include "slabstat.h"
#include "derived.h"
#include "table.h"

struct pdelta {
	int id;
	long long d;
};

struct mdelta {
	const char *name;
	enum mtype type;
	bool has_a, has_b;
	unsigned long long a, b;
	long long delta;
	double value;		/* counter: delta; gauge, fact: after */
	int nparts;
	struct pdelta *parts;	/* per CPU (counters) or per node (gauges) */
	long long node[MAX_NODES];
	int wrapped;		/* per-CPU u32 counters that wrapped */
};

struct cdelta {
	const char *name;
	int nm;
	struct mdelta *m;
	enum dstate dstate[16];
	double dval[16];
};

struct delta {
	const struct snapshot *a, *b;
	int nc;
	struct cdelta *c;
	int nnodes;		/* nodes 0..nnodes-1 from B's CPU map */
	double idle_pct[MAX_NODES];
	bool node_idle[MAX_NODES];
	double idle_all;
	bool have_idle;
};

static bool mdelta_get(const void *ctx, const char *name, double *v)
{
	const struct cdelta *c = ctx;
	int i;

	for (i = 0; i < c->nm; i++) {
		const struct mdelta *m = &c->m[i];

		if (strcmp(m->name, name))
			continue;
		if (!m->has_a || !m->has_b)
			return false;
		*v = m->value;
		return true;
	}
	return false;
}

static unsigned long long part_of(const struct metric *m, int id)
{
	int i;

	for (i = 0; m && i < m->nparts; i++)
		if (m->parts[i].id == id)
			return m->parts[i].v;
	return 0;
}

static void add_part(struct mdelta *md, int id)
{
	int i;

	for (i = 0; i < md->nparts; i++)
		if (md->parts[i].id == id)
			return;
	md->parts = xrealloc(md->parts, md->nparts + 1, sizeof(*md->parts));
	md->parts[md->nparts].id = id;
	md->parts[md->nparts].d = 0;
	md->nparts++;
}

static int cmp_pdelta(const void *x, const void *y)
{
	return ((const struct pdelta *)x)->id - ((const struct pdelta *)y)->id;
}

/*
 * The per-CPU statistics are unsigned int (struct kmem_cache_stats), so a
 * busy CPU's counter wraps at 2^32 (the nfs_page report's rates wrap one
 * every few minutes on a 96-CPU box).  A per-CPU value that dropped by
 * more than 2^31 wrapped; it gets 2^32 added back.  A smaller drop is a
 * clear (writing 0) or a CPU gone offline and stays negative.
 */
static long long unwrap(long long d, int *wrapped)
{
	if (d < -(1LL << 31)) {
		(*wrapped)++;
		return d + (1LL << 32);
	}
	return d;
}

static void metric_delta(struct mdelta *md, const struct metric *ma,
			 const struct metric *mb, const struct snapshot *b)
{
	long long total = 0;
	int i;

	md->has_a = ma;
	md->has_b = mb;
	md->type = mb ? mb->type : ma->type;
	md->a = ma ? ma->sum : 0;
	md->b = mb ? mb->sum : 0;
	if (!ma || !mb)
		return;
	md->delta = (long long)(md->b - md->a);
	md->value = md->type == M_COUNTER ? (double)md->delta : (double)md->b;
	if (md->type == M_FACT)
		return;
	for (i = 0; i < ma->nparts; i++)
		add_part(md, ma->parts[i].id);
	for (i = 0; i < mb->nparts; i++)
		add_part(md, mb->parts[i].id);
	if (md->nparts > 1)
		qsort(md->parts, md->nparts, sizeof(*md->parts), cmp_pdelta);
	for (i = 0; i < md->nparts; i++) {
		int id = md->parts[i].id, node;

		md->parts[i].d = (long long)(part_of(mb, id) - part_of(ma, id));
		if (md->type == M_COUNTER)
			md->parts[i].d = unwrap(md->parts[i].d, &md->wrapped);
		total += md->parts[i].d;
		node = md->type == M_COUNTER ? cpu_node_of(b, id) : id;
		if (node >= 0 && node < MAX_NODES)
			md->node[node] += md->parts[i].d;
	}
	if (md->type != M_COUNTER)
		return;
	/* without CONFIG_SMP there are no C parts: the sum is the one CPU */
	md->delta = md->nparts ? total : unwrap(md->delta, &md->wrapped);
	md->value = (double)md->delta;
}

static int cmp_mdelta(const void *x, const void *y)
{
	return strcmp(((const struct mdelta *)x)->name,
		      ((const struct mdelta *)y)->name);
}

static void cache_delta(struct cdelta *cd, const struct cache *ca,
			const struct cache *cb, const struct snapshot *b)
{
	int i, j;

	cd->name = cb ? cb->name : ca->name;
	cd->m = xcalloc((ca ? ca->nm : 0) + (cb ? cb->nm : 0), sizeof(*cd->m));
	for (i = 0; cb && i < cb->nm; i++) {
		cd->m[cd->nm].name = cb->m[i].name;
		metric_delta(&cd->m[cd->nm++], snap_metric(ca, cb->m[i].name),
			     &cb->m[i], b);
	}
	for (i = 0; ca && i < ca->nm; i++) {
		if (snap_metric(cb, ca->m[i].name))
			continue;
		cd->m[cd->nm].name = ca->m[i].name;
		metric_delta(&cd->m[cd->nm++], &ca->m[i], NULL, b);
	}
	if (cd->nm > 1)
		qsort(cd->m, cd->nm, sizeof(*cd->m), cmp_mdelta);
	for (j = 0; j < nr_derived; j++)
		cd->dstate[j] = derive(j, mdelta_get, cd, &cd->dval[j]);
}

static const struct cache *find_cache(const struct snapshot *s, const char *name)
{
	int i;

	for (i = 0; i < s->nc; i++)
		if (!strcmp(s->c[i].name, name))
			return &s->c[i];
	return NULL;
}

static const struct cpustat *find_cpu(const struct snapshot *s, int cpu)
{
	int i;

	for (i = 0; i < s->ncs; i++)
		if (s->cs[i].cpu == cpu)
			return &s->cs[i];
	return NULL;
}

static void idle_delta(struct delta *d)
{
	double idle[MAX_NODES] = { 0 }, busy[MAX_NODES] = { 0 };
	double ti = 0, tb = 0;
	int i, node;

	for (i = 0; i < d->b->ncpu; i++)
		if (d->b->cpu_node[i] >= d->nnodes && d->b->cpu_node[i] < MAX_NODES)
			d->nnodes = d->b->cpu_node[i] + 1;
	for (i = 0; i < d->b->ncs; i++) {
		const struct cpustat *cb = &d->b->cs[i];
		const struct cpustat *ca = find_cpu(d->a, cb->cpu);
		double di, db;

		if (!ca)
			continue;
		di = (double)(cb->idle - ca->idle);
		db = (double)(cb->busy - ca->busy);
		ti += di;
		tb += db;
		node = cpu_node_of(d->b, cb->cpu);
		if (node < 0 || node >= MAX_NODES)
			continue;
		idle[node] += di;
		busy[node] += db;
		d->node_idle[node] = true;
	}
	if (ti + tb > 0) {
		d->have_idle = true;
		d->idle_all = ti / (ti + tb) * 100;
	}
	for (node = 0; node < MAX_NODES; node++) {
		if (!d->node_idle[node])
			continue;
		if (idle[node] + busy[node] > 0)
			d->idle_pct[node] = idle[node] / (idle[node] + busy[node]) * 100;
		else
			d->node_idle[node] = false;
	}
}

static void compute(struct delta *d, const struct snapshot *a,
		    const struct snapshot *b)
{
	int i;

	memset(d, 0, sizeof(*d));
	d->a = a;
	d->b = b;
	d->c = xcalloc(a->nc + b->nc, sizeof(*d->c));
	for (i = 0; i < b->nc; i++)
		cache_delta(&d->c[d->nc++], find_cache(a, b->c[i].name),
			    &b->c[i], b);
	for (i = 0; i < a->nc; i++)
		if (!find_cache(b, a->c[i].name))
			cache_delta(&d->c[d->nc++], &a->c[i], NULL, b);
	idle_delta(d);
}

static bool change_pct(const struct mdelta *m, double *pct)
{
	if (m->a == 0) {
		if (m->b != 0)
			return false;
		*pct = 0;
		return true;
	}
	*pct = (double)m->delta / (double)m->a * 100;
	return true;
}

/* ---- text ---- */

static void text_cache(const struct delta *d, const struct cdelta *cd,
		       bool per_node)
{
	char before[32], after[32], delta[32], change[32], *cells[8];
	struct table *t;
	int i, n;
	double pct;

	printf("cache: %s\n\n", cd->name);
	t = tbl_new(5);
	cells[0] = "metric";
	cells[1] = "before";
	cells[2] = "after";
	cells[3] = "delta";
	cells[4] = "change";
	tbl_add(t, cells);
	for (i = 0; i < cd->nm; i++) {
		const struct mdelta *m = &cd->m[i];

		cells[0] = (char *)m->name;
		cells[1] = m->has_a ? (char *)fmt_int(before, 32, m->a) : NULL;
		cells[2] = m->has_b ? (char *)fmt_int(after, 32, m->b) : NULL;
		if (m->has_a && m->has_b) {
			cells[3] = (char *)fmt_int(delta, 32, m->delta);
			if (change_pct(m, &pct))
				snprintf(change, sizeof(change), "%+.2f%%", pct);
			else
				snprintf(change, sizeof(change), "n/a");
		} else {
			cells[3] = NULL;
			snprintf(change, sizeof(change), "absent");
		}
		cells[4] = change;
		tbl_add(t, cells);
	}
	tbl_print(t, stdout);
	for (i = 0; i < cd->nm; i++)
		if (cd->m[i].wrapped)
			printf("note: %s: %s on %d CPU(s); delta corrected\n",
			       cd->m[i].name, "the per-CPU counter wrapped at 2^32",
			       cd->m[i].wrapped);

	putchar('\n');
	t = tbl_new(2);
	cells[0] = "derived";
	cells[1] = "value";
	tbl_add(t, cells);
	for (i = 0; i < nr_derived; i++) {
		cells[0] = (char *)derived_defs[i].label;
		if (cd->dstate[i] == D_OK)
			cells[1] = (char *)fmt_derived(delta, 32, i, cd->dval[i]);
		else
			cells[1] = cd->dstate[i] == D_ABSENT ? "absent" : "n/a";
		tbl_add(t, cells);
	}
	tbl_print(t, stdout);
	if (!per_node)
		return;

	printf("\nper-node split of the counter deltas %s\n\n",
	       "(C<cpu> parts summed by the node of the CPU)");
	t = tbl_new(d->nnodes + 2);
	{
		char hdr[MAX_NODES][16];
		char *row[MAX_NODES + 2];
		char val[MAX_NODES][32];

		row[0] = "metric";
		for (n = 0; n < d->nnodes; n++) {
			snprintf(hdr[n], sizeof(hdr[n]), "node%d", n);
			row[n + 1] = hdr[n];
		}
		row[n + 1] = "all";
		tbl_add(t, row);
		for (i = 0; i < cd->nm; i++) {
			const struct mdelta *m = &cd->m[i];

			if (m->type != M_COUNTER || !m->has_a || !m->has_b)
				continue;
			row[0] = (char *)m->name;
			for (n = 0; n < d->nnodes; n++)
				row[n + 1] = (char *)fmt_int(val[n], 32, m->node[n]);
			row[n + 1] = (char *)fmt_int(before, 32, m->delta);
			tbl_add(t, row);
		}
		if (d->have_idle) {
			row[0] = "%idle";
			for (n = 0; n < d->nnodes; n++) {
				if (d->node_idle[n])
					snprintf(val[n], 32, "%.2f", d->idle_pct[n]);
				else
					snprintf(val[n], 32, "-");
				row[n + 1] = val[n];
			}
			snprintf(before, sizeof(before), "%.2f", d->idle_all);
			row[n + 1] = before;
			tbl_add(t, row);
		}
	}
	tbl_print(t, stdout);
}

static void print_text(const struct delta *d, bool per_node)
{
	double dt = d->b->mono - d->a->mono;
	int i;

	if (!strcmp(d->a->kernel, d->b->kernel))
		printf("kernel: %s\n", d->b->kernel);
	else
		printf("kernel: %s -> %s\n", d->a->kernel, d->b->kernel);
	if (d->a->mono && d->b->mono)
		printf("interval: %.2f s (%s -> %s)\n", dt, d->a->time, d->b->time);
	for (i = 0; i < d->nc; i++) {
		putchar('\n');
		text_cache(d, &d->c[i], per_node);
	}
	if (d->b->nr) {
		putchar('\n');
		printf("results (after):\n");
		for (i = 0; i < d->b->nr; i++) {
			char num[64];

			printf("  %s: %s\n", d->b->r[i].key,
			       fmt_num(num, sizeof(num), d->b->r[i].v));
		}
	}
}

/* ---- CSV ---- */

static void csv_num(char *buf, size_t len, double v)
{
	if (v == (double)(long long)v)
		snprintf(buf, len, "%lld", (long long)v);
	else
		snprintf(buf, len, "%.4f", v);
}

static void print_csv(const struct delta *d, bool per_node)
{
	char b1[32], b2[32], b3[32], b4[32], node[32];
	int i, j, n;
	double pct;

	printf("cache,kind,metric,before,after,delta,change_pct");
	if (per_node)
		for (n = 0; n < d->nnodes; n++)
			printf(",node%d", n);
	putchar('\n');
	for (i = 0; i < d->nc; i++) {
		const struct cdelta *cd = &d->c[i];

		for (j = 0; j < cd->nm; j++) {
			const struct mdelta *m = &cd->m[j];
			bool both = m->has_a && m->has_b;

			snprintf(b1, 32, m->has_a ? "%llu" : "", m->a);
			snprintf(b2, 32, m->has_b ? "%llu" : "", m->b);
			snprintf(b3, 32, both ? "%lld" : "", m->delta);
			if (!both)
				snprintf(b4, 32, "absent");
			else if (change_pct(m, &pct))
				snprintf(b4, 32, "%.2f", pct);
			else
				b4[0] = '\0';
			csv_cell(stdout, cd->name, false);
			csv_cell(stdout, mtype_name(m->type), false);
			csv_cell(stdout, m->name, false);
			csv_cell(stdout, b1, false);
			csv_cell(stdout, b2, false);
			csv_cell(stdout, b3, false);
			csv_cell(stdout, b4, !per_node || !d->nnodes);
			for (n = 0; per_node && n < d->nnodes; n++) {
				if (m->type == M_FACT || !both)
					node[0] = '\0';
				else
					snprintf(node, 32, "%lld", m->node[n]);
				csv_cell(stdout, node, n == d->nnodes - 1);
			}
		}
		for (j = 0; j < nr_derived; j++) {
			b3[0] = '\0';
			if (cd->dstate[j] == D_OK)
				csv_num(b3, 32, cd->dval[j]);
			csv_cell(stdout, cd->name, false);
			csv_cell(stdout, "derived", false);
			csv_cell(stdout, derived_defs[j].key, false);
			csv_cell(stdout, "", false);
			csv_cell(stdout, "", false);
			csv_cell(stdout, b3, false);
			csv_cell(stdout, cd->dstate[j] == D_ABSENT ? "absent" : "",
				 !per_node || !d->nnodes);
			for (n = 0; per_node && n < d->nnodes; n++)
				csv_cell(stdout, "", n == d->nnodes - 1);
		}
	}
	if (per_node && d->have_idle) {
		snprintf(b3, 32, "%.2f", d->idle_all);
		/* empty change_pct, then the nodes */
		printf(",idle,idle_pct,,,%s,%s", b3, d->nnodes ? "," : "\n");
		for (n = 0; n < d->nnodes; n++) {
			node[0] = '\0';
			if (d->node_idle[n])
				snprintf(node, 32, "%.2f", d->idle_pct[n]);
			csv_cell(stdout, node, n == d->nnodes - 1);
		}
	}
	for (i = 0; i < d->b->nr; i++) {
		csv_num(b3, 32, d->b->r[i].v);
		printf(",result,%s,,,%s,", d->b->r[i].key, b3);
		for (n = 0; per_node && n < d->nnodes; n++)
			putchar(',');
		putchar('\n');
	}
}

/* ---- JSON delta document ---- */

static void print_json(const struct delta *d)
{
	char id[16];
	struct jw w;
	int i, j, n;
	double pct;

	jw_open(&w, stdout);
	jw_obj(&w, NULL);
	jw_str(&w, "slabstat", "delta");
	jw_int(&w, "version", 1);
	jw_str(&w, "kernel", d->b->kernel);
	jw_str(&w, "kernel_before", d->a->kernel);
	jw_str(&w, "time_before", d->a->time);
	jw_str(&w, "time_after", d->b->time);
	jw_dbl(&w, "interval_s", d->b->mono - d->a->mono);
	jw_arr(&w, "cpu_node");
	for (i = 0; i < d->b->ncpu; i++)
		jw_int(&w, NULL, d->b->cpu_node[i]);
	jw_end_arr(&w);
	jw_obj(&w, "caches");
	for (i = 0; i < d->nc; i++) {
		const struct cdelta *cd = &d->c[i];

		jw_obj(&w, cd->name);
		jw_obj(&w, "metrics");
		for (j = 0; j < cd->nm; j++) {
			const struct mdelta *m = &cd->m[j];
			bool both = m->has_a && m->has_b;

			jw_obj(&w, m->name);
			jw_str(&w, "type", mtype_name(m->type));
			if (m->has_a)
				jw_uint(&w, "before", m->a);
			else
				jw_null(&w, "before");
			if (m->has_b)
				jw_uint(&w, "after", m->b);
			else
				jw_null(&w, "after");
			if (!both) {
				jw_null(&w, "delta");
				jw_null(&w, "value");
				jw_str(&w, "absent", m->has_a ? "after" : "before");
				jw_end_obj(&w);
				continue;
			}
			jw_int(&w, "delta", m->delta);
			jw_dbl(&w, "value", m->value);
			if (m->wrapped)
				jw_int(&w, "wrapped_cpus", m->wrapped);
			if (change_pct(m, &pct))
				jw_dbl(&w, "change_pct", pct);
			else
				jw_null(&w, "change_pct");
			if (m->type != M_FACT) {
				jw_obj(&w, m->type == M_COUNTER ? "cpus" : "nodes");
				for (n = 0; n < m->nparts; n++) {
					snprintf(id, sizeof(id), "%d", m->parts[n].id);
					jw_int(&w, id, m->parts[n].d);
				}
				jw_end_obj(&w);
			}
			if (m->type == M_COUNTER) {
				jw_obj(&w, "nodes");
				for (n = 0; n < d->nnodes; n++) {
					snprintf(id, sizeof(id), "%d", n);
					jw_int(&w, id, m->node[n]);
				}
				jw_end_obj(&w);
			}
			jw_end_obj(&w);
		}
		jw_end_obj(&w);
		jw_obj(&w, "derived");
		for (j = 0; j < nr_derived; j++) {
			jw_obj(&w, derived_defs[j].key);
			jw_str(&w, "label", derived_defs[j].label);
			jw_str(&w, "unit", derived_defs[j].unit == '%' ? "%" :
			       derived_defs[j].unit == 'x' ? "ratio" : "count");
			if (cd->dstate[j] == D_OK)
				jw_dbl(&w, "value", cd->dval[j]);
			else
				jw_null(&w, "value");
			jw_str(&w, "state", cd->dstate[j] == D_OK ? "ok" :
			       cd->dstate[j] == D_ABSENT ? "absent" : "undefined");
			jw_end_obj(&w);
		}
		jw_end_obj(&w);
		jw_end_obj(&w);
	}
	jw_end_obj(&w);
	jw_obj(&w, "idle");
	if (d->have_idle)
		jw_dbl(&w, "all_pct", d->idle_all);
	jw_obj(&w, "nodes_pct");
	for (n = 0; n < d->nnodes; n++) {
		if (!d->node_idle[n])
			continue;
		snprintf(id, sizeof(id), "%d", n);
		jw_dbl(&w, id, d->idle_pct[n]);
	}
	jw_end_obj(&w);
	jw_end_obj(&w);
	jw_obj(&w, "results");
	for (i = 0; i < d->b->nr; i++)
		jw_dbl(&w, d->b->r[i].key, d->b->r[i].v);
	jw_end_obj(&w);
	jw_end_obj(&w);
	jw_close(&w);
}

int cmd_diff(const struct snapshot *a, const struct snapshot *b,
	     enum outfmt fmt, bool per_node)
{
	struct delta d;

	compute(&d, a, b);
	switch (fmt) {
	case OUT_JSON:
		print_json(&d);
		break;
	case OUT_CSV:
		print_csv(&d, per_node);
		break;
	default:
		print_text(&d, per_node);
		break;
	}
	return fflush(stdout) ? 1 : 0;
}
