// SPDX-License-Identifier: GPL-2.0
/*
 * slabstat - sample and compare SLUB statistics.
 *
 *   slabstat snap [--results FILE] CACHE...        JSON snapshot on stdout
 *   slabstat diff [--csv|--json] [--per-node] A B  before/after/delta table
 *   slabstat window -t SECONDS CACHE...            snap, sleep, snap, diff
 *   slabstat compare [--labels a,b[,c]] G1... -- G2... [-- G3...]
 *
 * Unlike tools/mm/slabinfo.c, which reads a fixed list of counters (many
 * of them gone since SLUB moved to sheaves), every statistic is found by
 * reading the cache's sysfs directory, so new counters show up and
 * missing ones are reported as "absent".
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slabstat.h"

#define MAX_GROUPS	8

static const char * const help_text[] = {
	"usage: slabstat [--sysfs-root DIR] [--proc-root DIR] COMMAND ...",
	"",
	"  snap [--results FILE] CACHE...",
	"      JSON snapshot of /sys/kernel/slab/CACHE/ (all counters with their",
	"      per-CPU parts, object/slab gauges with their per-node parts, sizes),",
	"      per-CPU idle/busy time and the CPU->node map; --results folds a",
	"      'key: value' file (e.g. /sys/kernel/debug/slub_stress/results) in.",
	"  diff [--csv|--json] [--per-node] BEFORE.json AFTER.json",
	"      metric/before/after/delta/change table and derived rows; --json",
	"      writes the delta document that 'compare' reads.",
	"  window -t SECONDS [--results FILE] [--csv|--json] CACHE...",
	"      snap, sleep SECONDS, snap, then the diff plus the per-node split of",
	"      every counter and per-node %idle over the same window.",
	"  compare [--labels L1,L2[,L3...]] [--csv|--json] D1... -- D2... [-- D3...]",
	"      median (min-max) of repeated runs per group (each D is the output",
	"      of 'diff --json'), delta and change of each group vs the first.",
	"",
	"  --sysfs-root DIR / --proc-root DIR read a fixture tree instead of",
	"  /sys and /proc.  Exit status: 0 ok, 1 error, 2 usage.",
	NULL
};

static void print_help(FILE *f)
{
	const char * const *line;

	for (line = help_text; *line; line++)
		fprintf(f, "%s\n", *line);
}

static noreturn void usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fputs("\n\n", stderr);
	print_help(stderr);
	exit(2);
}

struct opts {
	enum outfmt fmt;
	bool per_node;
	const char *results;
	const char *labels;
	double seconds;
	bool have_seconds;
	int npos;
	char **pos;
	int ngroups;
	int group[MAX_GROUPS];	/* start of each group in pos */
};

static void set_fmt(struct opts *o, enum outfmt f)
{
	if (o->fmt != OUT_TEXT && o->fmt != f)
		usage_error("%s", "--csv and --json exclude each other");
	o->fmt = f;
}

static const char *need_arg(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		usage_error("option %s needs an argument", argv[*i]);
	return argv[++*i];
}

static void parse(int argc, char **argv, int start, struct opts *o,
		  bool groups)
{
	bool end_opts = false;
	int i;

	o->pos = xcalloc(argc, sizeof(char *));
	o->ngroups = 1;
	o->group[0] = 0;
	for (i = start; i < argc; i++) {
		const char *a = argv[i];

		if (!end_opts && a[0] == '-' && a[1]) {
			if (!strcmp(a, "--")) {
				if (!groups) {
					end_opts = true;
					continue;
				}
				if (o->ngroups == MAX_GROUPS)
					usage_error("at most %s groups", "8");
				o->group[o->ngroups++] = o->npos;
			} else if (!strcmp(a, "--csv")) {
				set_fmt(o, OUT_CSV);
			} else if (!strcmp(a, "--json")) {
				set_fmt(o, OUT_JSON);
			} else if (!strcmp(a, "--per-node")) {
				o->per_node = true;
			} else if (!strcmp(a, "--results")) {
				o->results = need_arg(argc, argv, &i);
			} else if (!strcmp(a, "--labels")) {
				o->labels = need_arg(argc, argv, &i);
			} else if (!strcmp(a, "-t")) {
				const char *s = need_arg(argc, argv, &i);
				char *end;

				errno = 0;
				o->seconds = strtod(s, &end);
				if (errno || *end || end == s || !(o->seconds > 0) ||
				    o->seconds > 86400)
					usage_error("-t needs seconds (0 < t <= 86400), not '%s'",
						    s);
				o->have_seconds = true;
			} else if (!strcmp(a, "--sysfs-root")) {
				sysfs_root = need_arg(argc, argv, &i);
			} else if (!strcmp(a, "--proc-root")) {
				proc_root = need_arg(argc, argv, &i);
			} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
				print_help(stdout);
				exit(0);
			} else {
				usage_error("unknown option '%s'", a);
			}
			continue;
		}
		o->pos[o->npos++] = argv[i];
	}
}

static void only(const struct opts *o, const char *cmd, bool fmt, bool results,
		 bool seconds, bool labels, bool per_node)
{
	if (!fmt && o->fmt != OUT_TEXT)
		usage_error("'%s' takes no --csv/--json", cmd);
	if (!results && o->results)
		usage_error("'%s' takes no --results", cmd);
	if (!seconds && o->have_seconds)
		usage_error("'%s' takes no -t", cmd);
	if (!labels && o->labels)
		usage_error("'%s' takes no --labels", cmd);
	if (!per_node && o->per_node)
		usage_error("'%s' takes no --per-node", cmd);
}

static void sleep_for(double seconds)
{
	struct timespec ts;

	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static char **split_labels(const char *s, int want)
{
	char **labels = xcalloc(want, sizeof(char *));
	char *copy, *tok, *save = NULL;
	int n = 0;

	if (!s) {
		for (n = 0; n < want; n++) {
			labels[n] = xcalloc(8, 1);
			snprintf(labels[n], 8, "G%d", n + 1);
		}
		return labels;
	}
	copy = xstrdup(s);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == want)
			usage_error("--labels names more groups than given ('%s')", s);
		labels[n++] = tok;
	}
	if (n != want)
		usage_error("--labels names fewer groups than given ('%s')", s);
	return labels;
}

int main(int argc, char **argv)
{
	struct snapshot a, b;
	struct opts o = { 0 };
	const char *cmd = NULL;
	int i;

	/* global options may precede the command */
	for (i = 1; i < argc; i++) {
		const char *v;

		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			print_help(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--sysfs-root") && strcmp(argv[i], "--proc-root"))
			break;
		v = need_arg(argc, argv, &i);
		if (argv[i - 1][2] == 's')
			sysfs_root = v;
		else
			proc_root = v;
	}
	if (i >= argc)
		usage_error("%s", "missing command");
	cmd = argv[i];

	if (!strcmp(cmd, "snap")) {
		parse(argc, argv, i + 1, &o, false);
		only(&o, cmd, false, true, false, false, false);
		if (!o.npos)
			usage_error("%s", "snap needs at least one CACHE");
		snap_take(&a, o.pos, o.npos, o.results);
		snap_write(&a, stdout);
		return fflush(stdout) ? 1 : 0;
	}
	if (!strcmp(cmd, "diff")) {
		parse(argc, argv, i + 1, &o, false);
		only(&o, cmd, true, false, false, false, true);
		if (o.npos != 2)
			usage_error("%s", "diff needs two snapshots: BEFORE.json AFTER.json");
		snap_load(&a, o.pos[0]);
		snap_load(&b, o.pos[1]);
		return cmd_diff(&a, &b, o.fmt, o.per_node);
	}
	if (!strcmp(cmd, "window")) {
		parse(argc, argv, i + 1, &o, false);
		only(&o, cmd, true, true, true, false, true);
		if (!o.have_seconds)
			usage_error("%s", "window needs -t SECONDS");
		if (!o.npos)
			usage_error("%s", "window needs at least one CACHE");
		snap_take(&a, o.pos, o.npos, NULL);
		sleep_for(o.seconds);
		snap_take(&b, o.pos, o.npos, o.results);
		return cmd_diff(&a, &b, o.fmt, true);
	}
	if (!strcmp(cmd, "compare")) {
		char **groups[MAX_GROUPS];
		int ngroup[MAX_GROUPS], g;

		parse(argc, argv, i + 1, &o, true);
		only(&o, cmd, true, false, false, true, false);
		for (g = 0; g < o.ngroups; g++) {
			int end = g + 1 < o.ngroups ? o.group[g + 1] : o.npos;

			groups[g] = o.pos + o.group[g];
			ngroup[g] = end - o.group[g];
			if (!ngroup[g])
				usage_error("compare: empty group %s",
					    "(runs are separated by '--')");
		}
		return cmd_compare(groups, ngroup, o.ngroups,
				   split_labels(o.labels, o.ngroups), o.fmt);
	}
	usage_error("unknown command '%s'", cmd);
}
