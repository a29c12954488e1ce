/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabstat: sample and compare SLUB statistics from /sys/kernel/slab.
 *
 * Shared declarations of the snapshot, delta and JSON layers.
 */
#ifndef SLABSTAT_H
#define SLABSTAT_H

#include <stdio.h>
#include <stdbool.h>
#include <stdnoreturn.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define MAX_NAME	128
#define MAX_NODES	64

/* ---- utilities (util.c) ---- */
extern const char *prog;
noreturn void fatal(const char *fmt, ...);
void warn(const char *fmt, ...);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *read_text(const char *path, int *err);
const char *fmt_int(char *buf, size_t len, long long v);
const char *fmt_num(char *buf, size_t len, double v);
double median_of(double *v, int n);

/* ---- JSON (json.c) ---- */
enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype type;
	bool isint;
	long long i;
	double d;
	char *s;
	int n;
	char **keys;
	struct jval **v;
};

struct jval *json_parse(const char *text, char *err, size_t errlen);
struct jval *json_load(const char *path);
struct jval *jget(const struct jval *obj, const char *key);
bool jnum(const struct jval *v, double *out);
bool jint(const struct jval *v, long long *out);
const char *jstr(const struct jval *v);

struct jw {
	FILE *f;
	int depth;
	bool first[32];
};

void jw_open(struct jw *w, FILE *f);
void jw_close(struct jw *w);
void jw_obj(struct jw *w, const char *key);
void jw_arr(struct jw *w, const char *key);
void jw_end_obj(struct jw *w);
void jw_end_arr(struct jw *w);
void jw_int(struct jw *w, const char *key, long long v);
void jw_uint(struct jw *w, const char *key, unsigned long long v);
void jw_dbl(struct jw *w, const char *key, double v);
void jw_str(struct jw *w, const char *key, const char *v);
void jw_null(struct jw *w, const char *key);

/* ---- snapshots (snap.c) ---- */
enum mtype { M_COUNTER, M_GAUGE, M_FACT };

struct part {
	int id;			/* CPU for counters, node for gauges */
	unsigned long long v;
};

struct metric {
	char name[MAX_NAME];
	enum mtype type;
	unsigned long long sum;
	int nparts;
	struct part *parts;
};

struct cache {
	char name[MAX_NAME];
	int nm;
	struct metric *m;
};

struct cpustat {
	int cpu;
	unsigned long long idle;
	unsigned long long busy;
};

struct result {
	char key[MAX_NAME];
	double v;
};

struct snapshot {
	char kernel[MAX_NAME];
	char time[64];
	double timestamp;	/* CLOCK_REALTIME, seconds */
	double mono;		/* CLOCK_MONOTONIC, seconds */
	int ncpu;		/* entries in cpu_node */
	int *cpu_node;		/* CPU -> node, -1 unknown */
	int ncs;
	struct cpustat *cs;
	int nc;
	struct cache *c;
	int nr;
	struct result *r;
};

extern const char *sysfs_root;
extern const char *proc_root;

void snap_take(struct snapshot *s, char **caches, int ncaches,
	       const char *results);
void snap_write(const struct snapshot *s, FILE *f);
void snap_load(struct snapshot *s, const char *path);
const struct metric *snap_metric(const struct cache *c, const char *name);
const char *mtype_name(enum mtype t);
int cpu_node_of(const struct snapshot *s, int cpu);

/* ---- deltas (diff.c) and group comparisons (compare.c) ---- */
enum outfmt { OUT_TEXT, OUT_CSV, OUT_JSON };

int cmd_diff(const struct snapshot *a, const struct snapshot *b,
	     enum outfmt fmt, bool per_node);
int cmd_compare(char ***groups, int *ngroup, int ngroups, char **labels,
		enum outfmt fmt);

#endif /* SLABSTAT_H */
