// SPDX-License-Identifier: GPL-2.0
/*
 * slub_park_params load KO MODULE CACHE | write DIR | combo DIR: the cases
 * of param_fuzz.txt (its header says what each must give), a line each on
 * stdin (params.sh), against the exact errno.  A "# " line for each that
 * does not hold, then "# N CMD cases, M failed"; exit 0 when all held, 1
 * when one did not or there was none, 2 on bad input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest.h"

#define VAL_LEN	256

/* a case that does not hold: its line, and 1 */
#define BAD(...) (ksft_print_msg(__VA_ARGS__), 1)

static const char *const expects[] = {
	[0] = "ok", [EINVAL] = "einval", [ERANGE] = "erange", [EBUSY] = "ebusy",
	[EACCES] = "eacces",
};

static int expect_errno(const char *word)
{
	for (size_t i = 0; i < ARRAY_SIZE(expects); i++)
		if (expects[i] && !strcmp(word, expects[i]))
			return i;
	fprintf(stderr, "slub_park_params: unknown EXPECT '%s'\n", word);
	exit(2);
}

static const char *errname(int err)
{
	return err ? strerror(err) : "success";
}

/* The first line of @path without its newline; "" when unreadable. */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f && fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

/* Whether a kmsg record after @fd's position names @mod and one of @names. */
static int kmsg_names(int fd, const char *mod, const char *names)
{
	char rec[8192], list[256], *msg, *name, *save;
	ssize_t n;

	while ((n = read(fd, rec, sizeof(rec) - 1)) != 0) {
		if (n < 0 && errno == EPIPE)	/* overwritten: read on */
			continue;
		if (n < 0)			/* EAGAIN: no more */
			return 0;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg || !strstr(msg, mod))
			continue;
		snprintf(list, sizeof(list), "%s", names);
		for (name = strtok_r(list, "|", &save); name; name = strtok_r(NULL, "|", &save))
			if (strstr(msg, name))
				return 1;
	}
	return 0;
}

/* One load case: refused, it leaves neither module nor cache and a kernel
 * message names one of @names; loaded, it has its cache, unloaded none.
 */
static int load_case(int ko, const char *mod, const char *cache, int want,
		     const char *names, const char *params)
{
	const char *cn = strstr(params, " cache_name=");
	char slab[512], modpath[256];
	int kmsg, err, ret = 0;

	if (cn)
		cache = cn + 12;
	snprintf(slab, sizeof(slab), "/sys/kernel/slab/%.*s", (int)strcspn(cache, " "), cache);
	if (!cache[0] || cache[0] == ' ')	/* cache_name= (empty): no directory */
		slab[0] = '\0';
	snprintf(modpath, sizeof(modpath), "/sys/module/%s", mod);
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg < 0)
		return BAD("load %s: /dev/kmsg: %s\n", params, strerror(errno));
	lseek(kmsg, 0, SEEK_END);
	err = syscall(SYS_finit_module, ko, params, 0) ? errno : 0;
	if (err != want)
		ret = BAD("load %s: %s, expected %s\n", params, errname(err), errname(want));
	if (!err) {
		if (*slab && access(slab, F_OK))
			ret = BAD("load %s: loaded without %s\n", params, slab);
		if (syscall(SYS_delete_module, mod, O_NONBLOCK))
			ret = BAD("load %s: delete_module: %s\n", params, strerror(errno));
		else if (!access(slab, F_OK))
			ret = BAD("load %s: %s is left after the unload\n", params, slab);
	} else if (!access(modpath, F_OK) || !access(slab, F_OK)) {
		ret = BAD("load %s: refused, but left %s or %s behind\n", params, modpath, slab);
	} else if (!kmsg_names(kmsg, mod, names)) {
		ret = BAD("load %s: no kernel message of %s naming '%s'\n", params, mod, names);
	}
	close(kmsg);
	return ret;
}

/* Write @val to @dir/@file, reading it @before and @after; 0 or the errno. */
static int write_val(const char *dir, const char *file, const char *val,
		     char before[VAL_LEN], char after[VAL_LEN])
{
	char path[512];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	read_line(path, before, VAL_LEN);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		err = errno;
	if (fd >= 0)
		close(fd);
	read_line(path, after, VAL_LEN);
	return err;
}

/* One write case, "\xHH" in @arg the byte: a refused write changes nothing,
 * a value written reads back.
 */
static int write_case(const char *dir, int want, const char *file, const char *arg)
{
	char before[VAL_LEN], after[VAL_LEN], val[VAL_LEN];
	unsigned int byte;
	size_t n = 0;
	int used, err;

	for (const char *a = arg; *a && n + 1 < sizeof(val); ) {
		if (sscanf(a, "\\x%2x%n", &byte, &used) == 1) {
			val[n++] = byte;
			a += used;
		} else {
			val[n++] = *a++;
		}
	}
	val[n] = '\0';
	err = write_val(dir, file, val, before, after);
	if (err != want)
		return BAD("write '%s' to %s: %s, expected %s\n", arg, file, errname(err),
			   errname(want));
	if (!err && strcmp(after, val))
		return BAD("%s reads '%s' after writing '%s'\n", file, after, arg);
	if (err && strcmp(before, after))
		return BAD("%s changed from '%s' to '%s' by a refused write\n", file, before,
			   after);
	return 0;
}

/* One combo case: "FILE VALUE..." written in turn; the first refused write,
 * or else the start of a run, gives @want.  The values are put back.
 */
static int combo_case(const char *dir, int want, const char *what, char *pairs)
{
	char *file[8], *val[8], old[8][VAL_LEN], scratch[VAL_LEN], path[512], *save;
	const char *at = "";
	int n = 0, i, err = 0, ret = 0;

	for (char *w = strtok_r(pairs, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char *v = strtok_r(NULL, " ", &save);

		if (n == 8 || !v) {
			fprintf(stderr, "slub_park_params: combo %s: not 1-8 FILE VALUE pairs\n",
				what);
			exit(2);
		}
		file[n] = w;
		val[n++] = v;
	}
	for (i = 0; i < n && !err; i++)
		err = write_val(dir, file[i], val[i], old[i], scratch);
	if (!err) {
		at = "run: ";
		err = write_val(dir, "run", "1", scratch, scratch);
		if (!err) {	/* started: stop it, wait for its end */
			write_val(dir, "stop", "1", scratch, scratch);
			snprintf(path, sizeof(path), "%s/wait", dir);
			read_line(path, scratch, sizeof(scratch));
		}
	}
	if (err != want)
		ret = BAD("combo %s: %s%s, expected %s\n", what, at, errname(err), errname(want));
	while (i-- > 0) {
		err = write_val(dir, file[i], old[i], scratch, scratch);
		if (err)
			ret = BAD("combo %s: cannot put back %s %s: %s\n", what, file[i], old[i],
				  strerror(err));
	}
	return ret;
}

int main(int argc, char **argv)
{
	char line[4096], expect[32], names[256];
	const char *cmd = argc > 1 ? argv[1] : "";
	int load = !strcmp(cmd, "load"), combo = !strcmp(cmd, "combo");
	int ko = -1, n = 0, failed = 0, off = 0, want;

	if (load ? argc != 5 : argc != 3 || (!combo && strcmp(cmd, "write"))) {
		fprintf(stderr, "usage: slub_park_params load KO MODULE CACHE | write|combo DIR\n");
		return 2;
	}
	if (load)
		ko = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (load && ko < 0) {
		fprintf(stderr, "slub_park_params: %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, " %31s %255s %n", expect, names, &off) < 2) {
			if (strspn(line, " \t") == strlen(line))
				continue;
			fprintf(stderr, "slub_park_params: bad case '%s'\n", line);
			return 2;
		}
		n++;
		want = expect_errno(expect);
		if (load)
			failed += load_case(ko, argv[3], argv[4], want, names, line + off);
		else if (combo)
			failed += combo_case(argv[2], want, names, line + off);
		else
			failed += write_case(argv[2], want, names, line + off);
	}
	printf("# %d %s cases, %d failed\n", n, cmd, failed);
	return failed || !n ? 1 : 0;
}
