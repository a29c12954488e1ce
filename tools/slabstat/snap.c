// SPDX-License-Identifier: GPL-2.0
/*
 * slabstat: take snapshots of /sys/kernel/slab/<cache>/ and /proc/stat,
 * and write/read them as JSON.
 *
 * Counters are discovered with readdir(): nothing here knows the list of
 * SLUB statistics, so counters added or removed by a kernel (e.g. the
 * park_slab/unpark_slab of the parking series) just appear or go missing.
 * The series' switch and parked count live in debugfs
 * (/sys/kernel/debug/slab/<cache>/{park,parked}); they are read from there,
 * by name, when they exist.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "slabstat.h"

const char *sysfs_root = "/sys";
const char *proc_root = "/proc";

/* Object/slab gauges; with CONFIG_NUMA and a non-zero value they carry N parts. */
static const char * const gauge_names[] = {
	"slabs", "objects", "partial", "total_objects", "objects_partial",
	NULL
};

/* Scalar facts recorded in every snapshot (when the file exists). */
static const char * const fact_names[] = {
	"object_size", "slab_size", "sheaf_capacity", "objs_per_slab",
	"order", "min_partial", NULL
};

/*
 * The parking series' files of the cache's debugfs directory (CONFIG_DEBUG_FS
 * and CONFIG_SLUB_DEBUG, caches without debug flags, debugfs mounted): the
 * switch, a fact, and the slabs parked now, a gauge of one number (no
 * per-node parts).
 */
static const struct {
	const char *name;
	enum mtype type;
} debugfs_files[] = {
	{ "park", M_FACT },
	{ "parked", M_GAUGE },
};

/*
 * Writable attributes that are settings or triggers, not statistics.
 * Every other writable file with a plain number is a statistic (they are
 * all 0600 and accept "0" to clear).
 */
static const char * const setting_names[] = {
	"cpu_partial", "remote_node_defrag_ratio", "failslab", "skip_kfence",
	"validate", "shrink", NULL
};

static bool in_list(const char * const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

const char *mtype_name(enum mtype t)
{
	switch (t) {
	case M_COUNTER:
		return "counter";
	case M_GAUGE:
		return "gauge";
	default:
		return "fact";
	}
}

/*
 * Parse "<sum>[ C<n>=<v>...]" or "<sum>[ N<n>=<v>...]".  Returns false
 * for anything else.  *kind is 'C', 'N' or 0 when there are no parts.
 */
static bool parse_stat(const char *text, struct metric *m, char *kind)
{
	const char *p = text;
	char *end;

	*kind = 0;
	m->nparts = 0;
	m->parts = NULL;
	if (!isdigit((unsigned char)*p))
		return false;
	errno = 0;
	m->sum = strtoull(p, &end, 10);
	if (errno)
		return false;
	p = end;
	for (;;) {
		struct part pt;

		while (*p == ' ')
			p++;
		if (*p == '\n' && !p[1])
			p++;
		if (!*p)
			return true;
		if ((*p != 'C' && *p != 'N') || (*kind && *kind != *p))
			goto bad;
		*kind = *p++;
		if (!isdigit((unsigned char)*p))
			goto bad;
		pt.id = (int)strtol(p, &end, 10);
		if (*end != '=' || !isdigit((unsigned char)end[1]))
			goto bad;
		pt.v = strtoull(end + 1, &end, 10);
		p = end;
		m->parts = xrealloc(m->parts, m->nparts + 1, sizeof(*m->parts));
		m->parts[m->nparts++] = pt;
	}
bad:
	free(m->parts);
	m->parts = NULL;
	m->nparts = 0;
	return false;
}

static int cmp_metric(const void *a, const void *b)
{
	return strcmp(((const struct metric *)a)->name,
		      ((const struct metric *)b)->name);
}

static int edit_distance(const char *a, const char *b)
{
	int la = strlen(a), lb = strlen(b), i, j, d = 0;
	int *prev, *cur, *t;

	prev = xcalloc(lb + 1, sizeof(int));
	cur = xcalloc(lb + 1, sizeof(int));
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			int del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? sub : del;
			if (ins < cur[j])
				cur[j] = ins;
		}
		t = prev;
		prev = cur;
		cur = t;
	}
	d = prev[lb];
	free(prev);
	free(cur);
	return d;
}

static int common_prefix(const char *a, const char *b)
{
	int n = 0;

	while (a[n] && a[n] == b[n])
		n++;
	return n;
}

struct hit {
	int dist;
	char *name;
};

static int cmp_hit(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->dist != y->dist)
		return x->dist - y->dist;
	return strcmp(x->name, y->name);
}

/*
 * Unknown cache: list names with the same prefix, containing the name,
 * or at a small edit distance; closest first.
 */
static noreturn void no_such_cache(const char *slabdir, const char *name)
{
	char line[1024] = "";
	struct hit *hits = NULL;
	struct dirent *de;
	int nhits = 0, i, len = strlen(name);
	size_t o = 0;
	DIR *d;

	d = opendir(slabdir);
	if (!d)
		fatal("cannot open %s: %s (is this a SLUB kernel with CONFIG_SYSFS?)",
		      slabdir, strerror(errno));
	while ((de = readdir(d))) {
		int pre = common_prefix(de->d_name, name);
		int maxd = len < 6 ? 1 : len / 4 + 1;
		int dist;

		if (de->d_name[0] == '.' || de->d_name[0] == ':')
			continue;
		dist = edit_distance(de->d_name, name);
		if (pre >= (len < 4 ? len : 4) || strstr(de->d_name, name) ||
		    dist <= maxd) {
			hits = xrealloc(hits, nhits + 1, sizeof(*hits));
			hits[nhits].dist = dist;
			hits[nhits].name = xstrdup(de->d_name);
			nhits++;
		}
	}
	closedir(d);
	if (nhits > 1)
		qsort(hits, nhits, sizeof(*hits), cmp_hit);
	for (i = 0; i < nhits && i < 8; i++)
		o += snprintf(line + o, sizeof(line) - o, "%s%s", i ? ", " : "",
			      hits[i].name);
	if (nhits > 8)
		snprintf(line + o, sizeof(line) - o, ", ... (%d more)", nhits - 8);
	if (nhits)
		fatal("no cache '%s' in %s; close names: %s", name, slabdir, line);
	fatal("no cache '%s' in %s (and no similar names)", name, slabdir);
}

/* The debugfs files of the series, where the kernel has them */
static void read_debugfs(struct cache *c)
{
	char path[4096 + 512];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(debugfs_files); i++) {
		struct metric m;
		char kind, *text;
		int err;

		snprintf(path, sizeof(path), "%s/kernel/debug/slab/%s/%s",
			 sysfs_root, c->name, debugfs_files[i].name);
		text = read_text(path, &err);
		if (!text) {
			if (err == EACCES || err == EPERM)
				fatal("permission denied reading %s: %s", path,
				      "debugfs is readable by root only; run slabstat as root");
			continue;	/* no series, or debugfs not mounted */
		}
		memset(&m, 0, sizeof(m));
		if (!parse_stat(text, &m, &kind) || kind) {
			warn("%s: not a single number: '%.40s'; left out", path, text);
			free(m.parts);
			free(text);
			continue;
		}
		free(text);
		snprintf(m.name, sizeof(m.name), "%s", debugfs_files[i].name);
		m.type = debugfs_files[i].type;
		c->m = xrealloc(c->m, c->nm + 1, sizeof(*c->m));
		c->m[c->nm++] = m;
	}
}

static void read_cache(struct cache *c, const char *name)
{
	char slabdir[4096], dir[4096 + 256], path[4096 + 512], target[4096];
	bool has_objects = false;
	struct dirent *de;
	struct stat st;
	ssize_t n;
	DIR *d;

	snprintf(slabdir, sizeof(slabdir), "%s/kernel/slab", sysfs_root);
	snprintf(dir, sizeof(dir), "%s/%s", slabdir, name);
	if (strchr(name, '/') || !name[0] || name[0] == '.')
		fatal("invalid cache name '%s'", name);
	if (lstat(dir, &st) < 0) {
		if (errno == ENOENT)
			no_such_cache(slabdir, name);
		fatal("cannot access %s: %s", dir, strerror(errno));
	}
	if (S_ISLNK(st.st_mode)) {
		const char *base;

		n = readlink(dir, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		base = strrchr(target, '/');
		base = base ? base + 1 : target;
		fatal("cache '%s' is an alias of the merged cache '%s' (%s -> %s): %s '%s'; %s",
		      name, base, dir, target,
		      "its counters are shared with every cache merged into", base,
		      "boot with slab_nomerge or create the cache with SLAB_NO_MERGE");
	}
	if (!S_ISDIR(st.st_mode))
		fatal("%s is not a directory", dir);

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	d = opendir(dir);
	if (!d)
		fatal("cannot open %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		struct metric m;
		char kind, *text;
		int err;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (in_list(gauge_names, de->d_name) ||
		    !strcmp(de->d_name, "object_size"))
			has_objects = true;
		text = read_text(path, &err);
		if (!text) {
			if (err == EACCES || err == EPERM)
				fatal("permission denied reading %s: %s", path,
				      "SLUB statistics are readable by root only (mode 0400/0600); run slabstat as root");
			continue;	/* e.g. validate without debug flags */
		}
		memset(&m, 0, sizeof(m));
		if (strlen(de->d_name) >= sizeof(m.name) ||
		    !parse_stat(text, &m, &kind)) {
			free(text);
			continue;
		}
		free(text);
		snprintf(m.name, sizeof(m.name), "%s", de->d_name);
		if (kind == 'C')
			m.type = M_COUNTER;
		else if (kind == 'N' || in_list(gauge_names, m.name))
			m.type = M_GAUGE;
		else if (in_list(fact_names, m.name))
			m.type = M_FACT;
		else if ((st.st_mode & 0200) && !in_list(setting_names, m.name))
			m.type = M_COUNTER;
		else
			continue;
		c->m = xrealloc(c->m, c->nm + 1, sizeof(*c->m));
		c->m[c->nm++] = m;
	}
	closedir(d);
	read_debugfs(c);
	if (c->nm > 1)
		qsort(c->m, c->nm, sizeof(*c->m), cmp_metric);
	for (n = 0; n < c->nm; n++)
		if (c->m[n].type == M_COUNTER)
			return;
	if (has_objects)
		fatal("cache '%s' has no statistics files (%s): %s", name,
		      "no alloc_fastpath, free_slowpath, ...",
		      "the kernel lacks CONFIG_SLUB_STATS");
	fatal("%s has no SLUB statistics or object files", dir);
}

/* "0-3,8,10-11" */
static void parse_cpulist(const char *text, int node, struct snapshot *s)
{
	const char *p = text;
	char *end;

	while (*p && *p != '\n') {
		long a, b;

		a = strtol(p, &end, 10);
		if (end == p)
			return;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			p = end;
		}
		if (a < 0 || b > 65535 || b < a)
			return;
		if (b >= s->ncpu) {
			s->cpu_node = xrealloc(s->cpu_node, b + 1, sizeof(int));
			while (s->ncpu <= b)
				s->cpu_node[s->ncpu++] = -1;
		}
		for (; a <= b; a++)
			s->cpu_node[a] = node;
		if (*p == ',')
			p++;
	}
}

static void read_topology(struct snapshot *s)
{
	char dir[4096], path[4096 + 300];
	struct dirent *de;
	int i, err;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/devices/system/node", sysfs_root);
	d = opendir(dir);
	if (d) {
		while ((de = readdir(d))) {
			char *text, *end;
			long node;

			if (strncmp(de->d_name, "node", 4) ||
			    !isdigit((unsigned char)de->d_name[4]))
				continue;
			node = strtol(de->d_name + 4, &end, 10);
			if (*end || node >= MAX_NODES)
				continue;
			snprintf(path, sizeof(path), "%s/%s/cpulist", dir, de->d_name);
			text = read_text(path, &err);
			if (!text)
				continue;
			parse_cpulist(text, (int)node, s);
			free(text);
		}
		closedir(d);
	}
	/* no node directories (!CONFIG_NUMA): everything is node 0 */
	for (i = 0; i < s->ncs; i++) {
		int cpu = s->cs[i].cpu;

		if (cpu >= s->ncpu) {
			s->cpu_node = xrealloc(s->cpu_node, cpu + 1, sizeof(int));
			while (s->ncpu <= cpu)
				s->cpu_node[s->ncpu++] = d ? -1 : 0;
		}
		if (!d)
			s->cpu_node[cpu] = 0;
	}
}

static void read_proc_stat(struct snapshot *s)
{
	char path[4096], *text, *line, *save = NULL;
	int err;

	snprintf(path, sizeof(path), "%s/stat", proc_root);
	text = read_text(path, &err);
	if (!text) {
		warn("cannot read %s: %s; no idle figures", path, strerror(err));
		return;
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v[10] = { 0 };
		struct cpustat cs;
		int cpu, n;

		if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]))
			continue;
		n = sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu",
			   &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6], &v[7]);
		if (n < 5)
			continue;
		/* user nice system idle iowait irq softirq steal */
		cs.cpu = cpu;
		cs.idle = v[3] + v[4];
		cs.busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
		s->cs = xrealloc(s->cs, s->ncs + 1, sizeof(*s->cs));
		s->cs[s->ncs++] = cs;
	}
	free(text);
}

static void read_results(struct snapshot *s, const char *file)
{
	char *text, *line, *save = NULL;
	int err;

	text = read_text(file, &err);
	if (!text)
		fatal("cannot read results file %s: %s", file, strerror(err));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *val, *end, *k;
		size_t klen;
		double v;

		if (!colon)
			continue;
		for (k = line; isspace((unsigned char)*k); k++)
			;
		klen = colon - k;
		while (klen && isspace((unsigned char)k[klen - 1]))
			klen--;
		if (!klen || klen >= MAX_NAME)
			continue;
		val = colon + 1;
		errno = 0;
		v = strtod(val, &end);
		if (end == val || errno)
			continue;
		while (isspace((unsigned char)*end))
			end++;
		if (*end)
			continue;	/* not a single number: placement, lists */
		s->r = xrealloc(s->r, s->nr + 1, sizeof(*s->r));
		memcpy(s->r[s->nr].key, k, klen);
		s->r[s->nr].key[klen] = '\0';
		s->r[s->nr].v = v;
		s->nr++;
	}
	free(text);
}

static void read_kernel(struct snapshot *s)
{
	char path[4096], *text;
	struct utsname u;
	int err;

	snprintf(path, sizeof(path), "%s/sys/kernel/osrelease", proc_root);
	text = read_text(path, &err);
	if (text) {
		text[strcspn(text, "\n")] = '\0';
		snprintf(s->kernel, sizeof(s->kernel), "%s", text);
		free(text);
	} else if (!uname(&u)) {
		snprintf(s->kernel, sizeof(s->kernel), "%s", u.release);
	}
}

void snap_take(struct snapshot *s, char **caches, int ncaches,
	       const char *results)
{
	struct timespec ts;
	struct tm tm;
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < ncaches; i++) {
		int j;

		for (j = 0; j < i; j++)
			if (!strcmp(caches[i], caches[j]))
				fatal("cache '%s' given twice", caches[i]);
	}
	s->c = xcalloc(ncaches, sizeof(*s->c));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->mono = ts.tv_sec + ts.tv_nsec / 1e9;
	read_proc_stat(s);
	for (i = 0; i < ncaches; i++)
		read_cache(&s->c[i], caches[i]);
	s->nc = ncaches;
	clock_gettime(CLOCK_REALTIME, &ts);
	s->timestamp = ts.tv_sec + ts.tv_nsec / 1e9;
	gmtime_r(&ts.tv_sec, &tm);
	strftime(s->time, sizeof(s->time), "%Y-%m-%dT%H:%M:%SZ", &tm);
	read_topology(s);
	read_kernel(s);
	if (results)
		read_results(s, results);
}

const struct metric *snap_metric(const struct cache *c, const char *name)
{
	int i;

	for (i = 0; c && i < c->nm; i++)
		if (!strcmp(c->m[i].name, name))
			return &c->m[i];
	return NULL;
}

int cpu_node_of(const struct snapshot *s, int cpu)
{
	return cpu >= 0 && cpu < s->ncpu ? s->cpu_node[cpu] : -1;
}

static void write_metrics(struct jw *w, const struct cache *c, enum mtype t)
{
	static const char * const section[] = { "counters", "gauges", "facts" };
	int i, j;

	jw_obj(w, section[t]);
	for (i = 0; i < c->nm; i++) {
		const struct metric *m = &c->m[i];
		char id[16];

		if (m->type != t)
			continue;
		if (t == M_FACT) {
			jw_uint(w, m->name, m->sum);
			continue;
		}
		jw_obj(w, m->name);
		jw_uint(w, "sum", m->sum);
		jw_obj(w, t == M_COUNTER ? "cpus" : "nodes");
		for (j = 0; j < m->nparts; j++) {
			snprintf(id, sizeof(id), "%d", m->parts[j].id);
			jw_uint(w, id, m->parts[j].v);
		}
		jw_end_obj(w);
		jw_end_obj(w);
	}
	jw_end_obj(w);
}

void snap_write(const struct snapshot *s, FILE *f)
{
	struct jw w;
	int i;

	jw_open(&w, f);
	jw_obj(&w, NULL);
	jw_str(&w, "slabstat", "snapshot");
	jw_int(&w, "version", 1);
	jw_str(&w, "kernel", s->kernel);
	jw_str(&w, "time", s->time);
	jw_dbl(&w, "timestamp", s->timestamp);
	jw_dbl(&w, "monotonic", s->mono);
	jw_arr(&w, "cpu_node");
	for (i = 0; i < s->ncpu; i++)
		jw_int(&w, NULL, s->cpu_node[i]);
	jw_end_arr(&w);
	jw_arr(&w, "cpus");
	for (i = 0; i < s->ncs; i++) {
		jw_obj(&w, NULL);
		jw_int(&w, "cpu", s->cs[i].cpu);
		jw_uint(&w, "idle", s->cs[i].idle);
		jw_uint(&w, "busy", s->cs[i].busy);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_obj(&w, "caches");
	for (i = 0; i < s->nc; i++) {
		jw_obj(&w, s->c[i].name);
		write_metrics(&w, &s->c[i], M_COUNTER);
		write_metrics(&w, &s->c[i], M_GAUGE);
		write_metrics(&w, &s->c[i], M_FACT);
		jw_end_obj(&w);
	}
	jw_end_obj(&w);
	if (s->nr) {
		jw_obj(&w, "results");
		for (i = 0; i < s->nr; i++)
			jw_dbl(&w, s->r[i].key, s->r[i].v);
		jw_end_obj(&w);
	}
	jw_end_obj(&w);
	jw_close(&w);
}

static void load_metrics(struct cache *c, const struct jval *sec, enum mtype t,
			 const char *path)
{
	int i, j;

	if (!sec)
		return;
	if (sec->type != J_OBJ)
		fatal("%s: cache '%s': bad %s section", path, c->name, mtype_name(t));
	for (i = 0; i < sec->n; i++) {
		const struct jval *v = sec->v[i], *parts;
		struct metric m;
		long long x;

		memset(&m, 0, sizeof(m));
		snprintf(m.name, sizeof(m.name), "%s", sec->keys[i]);
		m.type = t;
		if (t == M_FACT) {
			if (!jint(v, &x))
				fatal("%s: %s.%s is not a number", path, c->name, m.name);
			m.sum = x;
		} else {
			if (!jint(jget(v, "sum"), &x))
				fatal("%s: %s.%s has no sum", path, c->name, m.name);
			m.sum = x;
			parts = jget(v, t == M_COUNTER ? "cpus" : "nodes");
			for (j = 0; parts && parts->type == J_OBJ && j < parts->n; j++) {
				struct part pt;

				pt.id = atoi(parts->keys[j]);
				if (!jint(parts->v[j], &x))
					continue;
				pt.v = x;
				m.parts = xrealloc(m.parts, m.nparts + 1, sizeof(pt));
				m.parts[m.nparts++] = pt;
			}
		}
		c->m = xrealloc(c->m, c->nm + 1, sizeof(m));
		c->m[c->nm++] = m;
	}
}

void snap_load(struct snapshot *s, const char *path)
{
	const struct jval *root, *v, *caches, *cpus;
	long long x;
	double d;
	int i;

	memset(s, 0, sizeof(*s));
	root = json_load(path);
	v = jget(root, "slabstat");
	if (!jstr(v) || strcmp(jstr(v), "snapshot"))
		fatal("%s is not a slabstat snapshot (made by 'slabstat snap')%s",
		      path, jstr(v) && !strcmp(jstr(v), "delta") ?
		      "; it is a delta document, an input of 'slabstat compare'" : "");
	snprintf(s->kernel, sizeof(s->kernel), "%s",
		 jstr(jget(root, "kernel")) ? jstr(jget(root, "kernel")) : "");
	snprintf(s->time, sizeof(s->time), "%s",
		 jstr(jget(root, "time")) ? jstr(jget(root, "time")) : "");
	if (jnum(jget(root, "timestamp"), &d))
		s->timestamp = d;
	if (jnum(jget(root, "monotonic"), &d))
		s->mono = d;
	v = jget(root, "cpu_node");
	if (v && v->type == J_ARR) {
		s->cpu_node = xcalloc(v->n, sizeof(int));
		for (i = 0; i < v->n; i++)
			s->cpu_node[i] = jint(v->v[i], &x) ? (int)x : -1;
		s->ncpu = v->n;
	}
	cpus = jget(root, "cpus");
	for (i = 0; cpus && cpus->type == J_ARR && i < cpus->n; i++) {
		struct cpustat cs = { 0 };

		if (!jint(jget(cpus->v[i], "cpu"), &x))
			continue;
		cs.cpu = (int)x;
		if (jint(jget(cpus->v[i], "idle"), &x))
			cs.idle = x;
		if (jint(jget(cpus->v[i], "busy"), &x))
			cs.busy = x;
		s->cs = xrealloc(s->cs, s->ncs + 1, sizeof(cs));
		s->cs[s->ncs++] = cs;
	}
	caches = jget(root, "caches");
	if (!caches || caches->type != J_OBJ)
		fatal("%s: no caches in snapshot", path);
	s->c = xcalloc(caches->n, sizeof(*s->c));
	for (i = 0; i < caches->n; i++) {
		struct cache *c = &s->c[s->nc++];

		snprintf(c->name, sizeof(c->name), "%s", caches->keys[i]);
		load_metrics(c, jget(caches->v[i], "counters"), M_COUNTER, path);
		load_metrics(c, jget(caches->v[i], "gauges"), M_GAUGE, path);
		load_metrics(c, jget(caches->v[i], "facts"), M_FACT, path);
		if (c->nm > 1)
			qsort(c->m, c->nm, sizeof(*c->m), cmp_metric);
	}
	v = jget(root, "results");
	for (i = 0; v && v->type == J_OBJ && i < v->n; i++) {
		if (!jnum(v->v[i], &d))
			continue;
		s->r = xrealloc(s->r, s->nr + 1, sizeof(*s->r));
		snprintf(s->r[s->nr].key, MAX_NAME, "%s", v->keys[i]);
		s->r[s->nr].v = d;
		s->nr++;
	}
}
