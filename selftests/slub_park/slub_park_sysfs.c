// SPDX-License-Identifier: GPL-2.0
/*
 * slub_park_sysfs - invariants of /sys/kernel/slab/<cache>/ for a quiescent
 * cache, and of the slab parking files when the kernel has them: the
 * counters park_slab and unpark_slab there (CONFIG_SLUB_STATS), the switch
 * and the parked count in /sys/kernel/debug/slab/<cache>/{park,parked}
 * (CONFIG_DEBUG_FS, CONFIG_SLUB_DEBUG; debugfs mounted).
 *
 * The cache is $SLUB_PARK_CACHE (default "nfs_page_test", the cache of the
 * slub_stress module).  Every test SKIPs when the cache is absent, is a merged
 * alias (symlink), or a slub_stress run is active.
 *
 * Select tests with the harness filters, e.g. "-t accounting -t park_switch",
 * or via run_kselftest.sh: KSELFTEST_SLUB_PARK_SYSFS_ARGS="-t accounting".
 * SLUB_PARK_ASSUME_EMPTY=1 lets the shrink test run on a cache that is not
 * the slub_stress cache (the caller vouches that nothing is allocated).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SLAB_ROOT	"/sys/kernel/slab"
#define SLAB_DEBUGFS	"/sys/kernel/debug/slab"
#define STRESS_DBG	"/sys/kernel/debug/slub_stress"
#define DEFAULT_CACHE	"nfs_page_test"
#define MAX_PARTS	1024
/* Parked slabs are unparked by a delayed work (100 ms); allow plenty. */
#define PARK_SETTLE_MS	2000

/* Per-CPU stat counters are raw_cpu_inc(): exact only on x86. */
#if defined(__x86_64__) || defined(__i386__)
#define EXACT_STATS	1
#else
#define EXACT_STATS	0
#endif

struct sumparts {
	unsigned long long sum;
	unsigned long long part[MAX_PARTS];	/* indexed by node or cpu */
	unsigned long long part_sum;
	int nparts;
	int max_idx;
};

static int read_str(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/* Write a string; returns 0 or -errno. */
static int write_str(const char *path, const char *val)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	return 0;
}

/*
 * Parse "<sum> <P><idx>=<n> ..." (P = 'N' for node files, 'C' for stat files).
 * Returns 0, -ENOENT when the file is absent, -EINVAL on a malformed line.
 */
static int parse_sumparts(const char *path, char prefix, struct sumparts *sp)
{
	char buf[16384], *p, *end;
	int ret;

	memset(sp, 0, sizeof(*sp));
	sp->max_idx = -1;
	ret = read_str(path, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	sp->sum = strtoull(buf, &end, 10);
	if (end == buf || errno)
		return -EINVAL;
	p = end;
	while (*p) {
		unsigned long idx;
		unsigned long long val;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (*p != prefix)
			return -EINVAL;
		idx = strtoul(p + 1, &end, 10);
		if (end == p + 1 || *end != '=' || idx >= MAX_PARTS)
			return -EINVAL;
		p = end + 1;
		val = strtoull(p, &end, 10);
		if (end == p)
			return -EINVAL;
		p = end;
		sp->part[idx] += val;
		sp->part_sum += val;
		sp->nparts++;
		if ((int)idx > sp->max_idx)
			sp->max_idx = idx;
	}
	return 0;
}

static long long read_ull(const char *path)
{
	char buf[256], *end;
	long long v;

	if (read_str(path, buf, sizeof(buf)))
		return -1;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (end == buf || errno)
		return -1;
	return v;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

FIXTURE(slab) {
	char cache[NAME_MAX + 1];
	char dir[sizeof(SLAB_ROOT) + NAME_MAX + 2];
	char pdir[sizeof(SLAB_DEBUGFS) + NAME_MAX + 2];	/* park, parked */
	int has_stats;
	int has_parked;
	int has_park_stats;
	int has_park;
	char park_old[32];
};

static void slab_path(FIXTURE_DATA(slab) *self, const char *file, char *out,
		      size_t len)
{
	snprintf(out, len, "%s/%s", self->dir, file);
}

static int slab_file_exists(FIXTURE_DATA(slab) *self, const char *file)
{
	char path[PATH_MAX];

	slab_path(self, file, path, sizeof(path));
	return access(path, F_OK) == 0;
}

static int slab_parse(FIXTURE_DATA(slab) *self, const char *file, char prefix,
		      struct sumparts *sp)
{
	char path[PATH_MAX];

	slab_path(self, file, path, sizeof(path));
	return parse_sumparts(path, prefix, sp);
}

static long long slab_ull(FIXTURE_DATA(slab) *self, const char *file)
{
	char path[PATH_MAX];

	slab_path(self, file, path, sizeof(path));
	return read_ull(path);
}

/* A file of the cache's debugfs directory (park, parked) */
static void park_path(FIXTURE_DATA(slab) *self, const char *file, char *out,
		      size_t len)
{
	snprintf(out, len, "%s/%s", self->pdir, file);
}

static int park_file_exists(FIXTURE_DATA(slab) *self, const char *file)
{
	char path[PATH_MAX];

	park_path(self, file, path, sizeof(path));
	return access(path, F_OK) == 0;
}

/*
 * The parked count: one decimal number and a newline, nothing else (there is
 * no per-node split).  Returns 0, -errno, or -EINVAL for another format.
 */
static int read_parked(FIXTURE_DATA(slab) *self, unsigned long long *val)
{
	char path[PATH_MAX], buf[64], *end;
	int ret;

	park_path(self, "parked", path, sizeof(path));
	ret = read_str(path, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	*val = strtoull(buf, &end, 10);
	if (end == buf || *end || errno || buf[0] == '-' || buf[0] == '+')
		return -EINVAL;
	return 0;
}

/* Is this the slub_stress cache, with no run active? */
static int stress_owns_idle_cache(const char *cache)
{
	char buf[8192], *p;
	char want[NAME_MAX + 32];

	if (read_str(STRESS_DBG "/status", buf, sizeof(buf)) ||
	    strcmp(buf, "idle"))
		return 0;
	if (read_str(STRESS_DBG "/results", buf, sizeof(buf)))
		return 0;
	snprintf(want, sizeof(want), "cache_name: %s", cache);
	for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n"))
		if (!strcmp(p, want))
			return 1;
	/* No run yet: results may not name the cache; trust the default. */
	return !strcmp(cache, DEFAULT_CACHE);
}

FIXTURE_SETUP(slab)
{
	const char *name = getenv("SLUB_PARK_CACHE");
	char buf[64];
	struct stat st;

	if (!name || !*name)
		name = DEFAULT_CACHE;
	snprintf(self->cache, sizeof(self->cache), "%s", name);
	snprintf(self->dir, sizeof(self->dir), SLAB_ROOT "/%s", name);
	snprintf(self->pdir, sizeof(self->pdir), SLAB_DEBUGFS "/%s", name);

	if (geteuid() != 0)
		SKIP(return, "must be root (slab files are 0400)");
	if (lstat(self->dir, &st))
		SKIP(return, "%s absent (load slub_stress.ko or set SLUB_PARK_CACHE)",
		     self->dir);
	if (S_ISLNK(st.st_mode))
		SKIP(return, "%s is a merged alias (symlink); counters are shared",
		     self->dir);
	if (!read_str(STRESS_DBG "/status", buf, sizeof(buf)) &&
	    !strcmp(buf, "running"))
		SKIP(return, "a slub_stress run is active; the cache is not quiescent");

	self->has_stats = slab_file_exists(self, "free_slowpath");
	self->has_parked = park_file_exists(self, "parked");
	self->has_park_stats = slab_file_exists(self, "park_slab");
	self->has_park = park_file_exists(self, "park");
	self->park_old[0] = '\0';
}

FIXTURE_TEARDOWN(slab)
{
	char path[PATH_MAX];

	if (self->park_old[0]) {
		park_path(self, "park", path, sizeof(path));
		write_str(path, self->park_old);
	}
}

/* Wait (read-only) for the parked count to drop to zero. */
static long long wait_parked_zero(FIXTURE_DATA(slab) *self, int *ret)
{
	long long deadline = now_ms() + PARK_SETTLE_MS;
	unsigned long long parked;

	for (;;) {
		*ret = read_parked(self, &parked);
		if (*ret || parked == 0 || now_ms() > deadline)
			return *ret ? -1 : (long long)parked;
		msleep(20);
	}
}

/*
 * Object/slab files: per-node parts add up, objects <= total_objects,
 * total_objects == slabs * objs_per_slab (per node), partial <= slabs.
 */
TEST_F(slab, accounting)
{
	static struct sumparts slabs, objs, tot, part, opart, fb;
	long long per_slab, order_fallback = 0;
	int n;

	ASSERT_EQ(0, slab_parse(self, "slabs", 'N', &slabs));
	ASSERT_EQ(0, slab_parse(self, "objects", 'N', &objs));
	ASSERT_EQ(0, slab_parse(self, "total_objects", 'N', &tot));
	ASSERT_EQ(0, slab_parse(self, "partial", 'N', &part));
	ASSERT_EQ(0, slab_parse(self, "objects_partial", 'N', &opart));
	per_slab = slab_ull(self, "objs_per_slab");
	ASSERT_LT(0, per_slab);
	if (self->has_stats && !slab_parse(self, "order_fallback", 'C', &fb))
		order_fallback = fb.sum;

	TH_LOG("%s: slabs=%llu objects=%llu total_objects=%llu partial=%llu objs_per_slab=%lld",
	       self->cache, slabs.sum, objs.sum, tot.sum, part.sum, per_slab);

	/* With CONFIG_NUMA the parts are printed; their sum is the total. */
	if (slabs.nparts) {
		EXPECT_EQ(slabs.sum, slabs.part_sum);
		EXPECT_EQ(objs.sum, objs.part_sum);
		EXPECT_EQ(tot.sum, tot.part_sum);
	}
	if (part.nparts) {
		EXPECT_EQ(part.sum, part.part_sum);
	}
	if (opart.nparts) {
		EXPECT_EQ(opart.sum, opart.part_sum);
	}

	EXPECT_LE(objs.sum, tot.sum);
	EXPECT_LE(part.sum, slabs.sum);
	EXPECT_LE(opart.sum, objs.sum);
	if (order_fallback == 0) {
		EXPECT_EQ(tot.sum, slabs.sum * per_slab);
	} else {
		EXPECT_LE(tot.sum, slabs.sum * per_slab);
	}

	for (n = 0; n < MAX_PARTS; n++) {
		if (!slabs.part[n] && !tot.part[n] && !objs.part[n])
			continue;
		EXPECT_LE(objs.part[n], tot.part[n])
			TH_LOG("node %d: objects %llu > total_objects %llu",
			       n, objs.part[n], tot.part[n]);
		if (order_fallback == 0) {
			EXPECT_EQ(tot.part[n], slabs.part[n] * per_slab)
				TH_LOG("node %d: total_objects %llu != slabs %llu x %lld",
				       n, tot.part[n], slabs.part[n], per_slab);
		}
		EXPECT_LE(part.part[n], slabs.part[n]);
	}
}

/* Stat files: "<sum> C<cpu>=<n>" and the per-CPU parts add up. */
TEST_F(slab, stat_format)
{
	static const char * const files[] = {
		"alloc_fastpath", "alloc_slowpath", "free_fastpath",
		"free_slowpath", "free_add_partial", "free_remove_partial",
		"alloc_slab", "free_slab", "park_slab", "unpark_slab",
	};
	static struct sumparts sp;
	unsigned int i;
	int ret;

	if (!self->has_stats)
		SKIP(return, "no stat files in %s (CONFIG_SLUB_STATS=n)", self->dir);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		ret = slab_parse(self, files[i], 'C', &sp);
		if (ret == -ENOENT)
			continue;
		ASSERT_EQ(0, ret) TH_LOG("%s: cannot parse", files[i]);
		EXPECT_EQ(sp.sum, sp.part_sum)
			TH_LOG("%s: sum %llu != sum of C parts %llu",
			       files[i], sp.sum, sp.part_sum);
	}
}

/*
 * Nothing stays parked once the cache is idle.  parked is one number, the
 * per-node counts summed (no per-node split).
 */
TEST_F(slab, parked_zero)
{
	long long left;
	int ret;

	if (!self->has_parked)
		SKIP(return, "no %s/parked: no slab parking (or no SLUB_DEBUG/DEBUG_FS)",
		     self->pdir);
	left = wait_parked_zero(self, &ret);
	ASSERT_EQ(0, ret) TH_LOG("%s/parked: %s", self->pdir,
				 ret == -EINVAL ? "not a single number" : strerror(-ret));
	EXPECT_EQ(0, left) TH_LOG("%lld slabs still parked after %d ms idle",
				  left, PARK_SETTLE_MS);
}

/*
 * When quiescent (and the counters were cleared together at a quiescent
 * point): park_slab == unpark_slab.  Always: park_slab <= free_add_partial,
 * as a park counts free_add_partial too (for full -> partial and full ->
 * empty frees alike).
 */
TEST_F(slab, park_counters)
{
	static struct sumparts park, unpark, fap;
	int ret;

	if (!self->has_park_stats)
		SKIP(return, "no %s/park_slab: kernel without parking counters (or SLUB_STATS=n)",
		     self->dir);
	if (self->has_parked) {
		long long left = wait_parked_zero(self, &ret);

		ASSERT_EQ(0, ret) TH_LOG("%s/parked: %s", self->pdir,
					 ret == -EINVAL ? "not a single number" : strerror(-ret));
		ASSERT_EQ(0, left) TH_LOG("not quiescent: %lld parked", left);
	} else {
		msleep(PARK_SETTLE_MS / 4);
	}
	ASSERT_EQ(0, slab_parse(self, "park_slab", 'C', &park));
	ASSERT_EQ(0, slab_parse(self, "unpark_slab", 'C', &unpark));
	ASSERT_EQ(0, slab_parse(self, "free_add_partial", 'C', &fap));
	TH_LOG("park_slab=%llu unpark_slab=%llu free_add_partial=%llu",
	       park.sum, unpark.sum, fap.sum);
	if (EXACT_STATS) {
		EXPECT_EQ(park.sum, unpark.sum);
		EXPECT_LE(park.sum, fap.sum)
			TH_LOG("park_slab %llu > free_add_partial %llu: a park must count both",
			       park.sum, fap.sum);
	}
}

/*
 * The debugfs park switch takes 0/1/2 and refuses anything else with EINVAL,
 * leaving the mode as it was; writing 0 unparks what is parked.  The parked
 * count is read-only.
 */
TEST_F(slab, park_switch)
{
	static const char * const good[] = { "0", "1", "2" };
	static const char * const bad[] = {
		"3", "-1", "abc", "256", "1x", "2.5", "0x3", " ", "99999999999",
	};
	unsigned long long parked;
	char path[PATH_MAX], cur[32], before[32];
	unsigned int i;
	int ret;

	if (!self->has_park)
		SKIP(return, "no %s/park: no parking switch (or no SLUB_DEBUG/DEBUG_FS)",
		     self->pdir);
	park_path(self, "park", path, sizeof(path));
	ASSERT_EQ(0, read_str(path, self->park_old, sizeof(self->park_old)));

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		ASSERT_EQ(0, write_str(path, good[i])) TH_LOG("write %s", good[i]);
		ASSERT_EQ(0, read_str(path, cur, sizeof(cur)));
		EXPECT_STREQ(good[i], cur);
		if (i == 0 && self->has_parked) {
			/* Writing 0 drains what is parked. */
			ASSERT_EQ(0, read_parked(self, &parked))
				TH_LOG("%s/parked: not readable as one number", self->pdir);
			EXPECT_EQ(0, parked);
		}
	}
	ASSERT_EQ(0, read_str(path, before, sizeof(before)));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ret = write_str(path, bad[i]);
		EXPECT_EQ(-EINVAL, ret) TH_LOG("writing '%s' to park returned %d",
					       bad[i], ret);
		ASSERT_EQ(0, read_str(path, cur, sizeof(cur)));
		EXPECT_STREQ(before, cur) TH_LOG("'%s' changed park", bad[i]);
	}
	if (self->has_parked) {
		park_path(self, "parked", path, sizeof(path));
		ret = write_str(path, "0");
		EXPECT_NE(0, ret) TH_LOG("writing 0 to the read-only parked succeeded");
		park_path(self, "park", path, sizeof(path));
	}
	/* Restore now (teardown restores too, should an assert fire). */
	ASSERT_EQ(0, write_str(path, self->park_old));
	ASSERT_EQ(0, read_str(path, cur, sizeof(cur)));
	EXPECT_STREQ(self->park_old, cur);
	self->park_old[0] = '\0';
}

/* With nothing allocated, shrink leaves no slabs, objects or partials. */
TEST_F(slab, shrink_empty)
{
	static struct sumparts slabs, objs, part, tot;
	unsigned long long parked;
	char path[PATH_MAX];
	const char *assume = getenv("SLUB_PARK_ASSUME_EMPTY");

	if (!(assume && !strcmp(assume, "1")) &&
	    !stress_owns_idle_cache(self->cache))
		SKIP(return,
		     "%s is not the idle slub_stress cache; SLUB_PARK_ASSUME_EMPTY=1 forces it",
		     self->cache);
	slab_path(self, "shrink", path, sizeof(path));
	ASSERT_EQ(0, write_str(path, "1"));
	ASSERT_EQ(0, slab_parse(self, "slabs", 'N', &slabs));
	ASSERT_EQ(0, slab_parse(self, "objects", 'N', &objs));
	ASSERT_EQ(0, slab_parse(self, "partial", 'N', &part));
	ASSERT_EQ(0, slab_parse(self, "total_objects", 'N', &tot));
	EXPECT_EQ(0, slabs.sum);
	EXPECT_EQ(0, objs.sum);
	EXPECT_EQ(0, part.sum);
	EXPECT_EQ(0, tot.sum);
	if (self->has_parked) {
		ASSERT_EQ(0, read_parked(self, &parked))
			TH_LOG("%s/parked: not readable as one number", self->pdir);
		EXPECT_EQ(0, parked) TH_LOG("%llu slabs parked after shrink", parked);
	}
	/* A second shrink is harmless; a bad value is refused. */
	EXPECT_EQ(0, write_str(path, "1"));
	EXPECT_EQ(-EINVAL, write_str(path, "0"));
}

/*
 * Exit 4 (SKIP) as a whole when nothing can run, so that run_kselftest.sh
 * reports a SKIP rather than a PASS of six skipped tests.
 */
int main(int argc, char **argv)
{
	const char *name = getenv("SLUB_PARK_CACHE");
	char dir[sizeof(SLAB_ROOT) + NAME_MAX + 2];
	struct stat st;
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-l") || !strcmp(argv[i], "-h"))
			return test_harness_run(argc, argv);
	if (!name || !*name)
		name = DEFAULT_CACHE;
	snprintf(dir, sizeof(dir), SLAB_ROOT "/%s", name);
	if (geteuid() != 0) {
		ksft_print_header();
		ksft_exit_skip("must be root (slab files are 0400)\n");
	}
	if (lstat(dir, &st)) {
		ksft_print_header();
		ksft_exit_skip("%s absent (load slub_stress.ko or set SLUB_PARK_CACHE)\n", dir);
	}
	if (S_ISLNK(st.st_mode)) {
		ksft_print_header();
		ksft_exit_skip("%s is a merged alias (symlink)\n", dir);
	}
	return test_harness_run(argc, argv);
}
