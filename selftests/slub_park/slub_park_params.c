// SPDX-License-Identifier: GPL-2.0
/*
 * slub_park_params - the parameter cases of param_fuzz.txt (its header
 * says what each kind must give), one a line on stdin, the words replaced
 * (params.sh), each checked against the kernel's exact errno:
 *
 *   slub_park_params load KO MODULE CACHE    lines "EXPECT NAMES PARAM..."
 *   slub_park_params write DIR               lines "EXPECT FILE VALUE" (\xHH: a byte)
 *   slub_park_params combo DIR               lines "EXPECT WHAT FILE VALUE..."
 *
 * A load that is refused leaves neither MODULE nor the cache (cache_name=
 * of the line, else CACHE), and a kernel message after the call
 * (/dev/kmsg) names MODULE and one of NAMES ('|' between them).  Prints a
 * "# " line for each case that does not hold, then "# N CMD cases, M
 * failed"; exits 0 when all held, 1 when one did not or there was none, 2
 * on bad usage or input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest.h"

#define LINE_MAX_LEN	4096

static const struct {
	const char *name;
	int err;
} expects[] = {
	{ "ok", 0 }, { "einval", EINVAL }, { "erange", ERANGE }, { "ebusy", EBUSY },
	{ "eacces", EACCES },
};

static int expect_errno(const char *word)
{
	for (size_t i = 0; i < ARRAY_SIZE(expects); i++)
		if (!strcmp(word, expects[i].name))
			return expects[i].err;
	fprintf(stderr, "slub_park_params: unknown EXPECT '%s' (param_fuzz.txt)\n", word);
	exit(2);
}

static const char *errname(int err)
{
	return err ? strerror(err) : "success";
}

/* A case that does not hold: its "# " line; 1 */
static __printf(1, 2) int bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	va_end(ap);
	return 1;
}

/* Whether @path exists; "" never does. */
static int exists(const char *path)
{
	struct stat st;

	return *path && !stat(path, &st);
}

/* The first line of @path without its newline; "" when unreadable. */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Whether a kmsg record after @fd's position names @mod and one of @names. */
static int kmsg_names(int fd, const char *mod, const char *names)
{
	char rec[8192], list[256];	/* a record: up to CONSOLE_EXT_LOG_MAX */
	char *msg, *name, *save;
	ssize_t n;

	while ((n = read(fd, rec, sizeof(rec) - 1)) != 0) {
		if (n < 0 && errno == EPIPE)	/* overwritten: read on */
			continue;
		if (n < 0 && errno != EAGAIN)	/* EAGAIN: no more */
			printf("# /dev/kmsg: %s\n", strerror(errno));
		if (n < 0)
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

/* One load case; 0 when it held. */
static int load_case(int ko, const char *mod, const char *cache, int want,
		     const char *names, const char *params)
{
	char slab[512], modpath[256];
	const char *cn = strstr(params, "cache_name=");
	int kmsg, kmsg_err, err, ret = 0;

	if (!cn || (cn != params && cn[-1] != ' '))
		snprintf(slab, sizeof(slab), "/sys/kernel/slab/%s", cache);
	else if (cn[11] && cn[11] != ' ')
		snprintf(slab, sizeof(slab), "/sys/kernel/slab/%.*s",
			 (int)strcspn(cn + 11, " "), cn + 11);
	else	/* cache_name= (empty): no directory to look for */
		slab[0] = '\0';
	snprintf(modpath, sizeof(modpath), "/sys/module/%s", mod);
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	kmsg_err = errno;
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
	err = syscall(SYS_finit_module, ko, params, 0) ? errno : 0;
	if (err != want)
		ret = bad("load %s: %s, expected %s\n", params, errname(err), errname(want));
	if (!err) {
		if (*slab && !exists(slab))
			ret = bad("load %s: loaded without %s\n", params, slab);
		if (syscall(SYS_delete_module, mod, O_NONBLOCK))
			ret = bad("load %s: delete_module: %s\n", params, strerror(errno));
		else if (exists(slab))
			ret = bad("load %s: %s is left after the unload\n", params, slab);
	} else if (exists(modpath) || exists(slab)) {
		ret = bad("load %s: refused, but left %s or %s behind\n", params, modpath, slab);
	} else if (kmsg < 0) {
		ret = bad("load %s: cannot read /dev/kmsg: %s\n", params, strerror(kmsg_err));
	} else if (!kmsg_names(kmsg, mod, names)) {
		ret = bad("load %s: no kernel message of %s naming '%s'\n", params, mod, names);
	}
	if (kmsg >= 0)
		close(kmsg);
	return ret;
}

/* Write @val to @dir/@file; 0 or the errno.  @before: what it read first. */
static int write_val(const char *dir, const char *file, const char *val,
		     char *before, size_t len)
{
	char path[512];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	read_line(path, before, len);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		err = errno;
	if (fd >= 0)
		close(fd);
	return err;
}

/* @arg with each "\xHH" the byte HH (a value the words cannot hold: " ") */
static void unescape(const char *arg, char *buf, size_t len)
{
	unsigned int byte;
	size_t n = 0;
	int used;

	while (*arg && n + 1 < len) {
		if (sscanf(arg, "\\x%2x%n", &byte, &used) == 1) {
			buf[n++] = byte;
			arg += used;
		} else {
			buf[n++] = *arg++;
		}
	}
	buf[n] = '\0';
}

/* One write case, its value @arg unescaped; 0 when it held. */
static int write_case(const char *dir, int want, const char *file, const char *arg)
{
	char before[256], after[256], path[512], val[256];
	int err;

	unescape(arg, val, sizeof(val));
	err = write_val(dir, file, val, before, sizeof(before));
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	read_line(path, after, sizeof(after));
	if (err != want)
		return bad("write '%s' to %s: %s, expected %s\n", arg, file, errname(err),
			   errname(want));
	if (!err && strcmp(after, val))
		return bad("%s reads '%s' after writing '%s'\n", file, after, arg);
	if (err && strcmp(before, after))
		return bad("%s changed from '%s' to '%s' by a refused write\n", file, before,
			   after);
	return 0;
}

/*
 * One combo case: "FILE VALUE..." pairs written in turn; the first refused
 * write, or when none is the start of a run, must give @want.  The files
 * get their values back.  0 when it held.
 */
static int combo_case(const char *dir, int want, const char *what, char *pairs)
{
	char *file[8], *val[8], old[8][256], scratch[256], state[64], *save;
	const char *at = "";
	int n = 0, i, err = 0, ret = 0;

	for (char *w = strtok_r(pairs, " ", &save); w; n++) {
		char *v = strtok_r(NULL, " ", &save);

		if (n == 8 || !v) {
			fprintf(stderr, "slub_park_params: combo %s: not 1-8 FILE VALUE pairs\n",
				what);
			exit(2);
		}
		file[n] = w;
		val[n] = v;
		w = strtok_r(NULL, " ", &save);
	}
	for (i = 0; i < n && !err; i++)
		err = write_val(dir, file[i], val[i], old[i], sizeof(old[i]));
	if (!err) {
		at = "run: ";
		err = write_val(dir, "run", "1", scratch, sizeof(scratch));
		if (!err) {	/* started: stop it, wait for its end */
			write_val(dir, "stop", "1", scratch, sizeof(scratch));
			snprintf(scratch, sizeof(scratch), "%s/wait", dir);
			read_line(scratch, state, sizeof(state));
		}
	}
	if (err != want)
		ret = bad("combo %s: %s%s, expected %s\n", what, at, errname(err), errname(want));
	while (i-- > 0) {
		err = write_val(dir, file[i], old[i], scratch, sizeof(scratch));
		if (err)
			ret = bad("combo %s: cannot put back %s %s: %s\n", what, file[i], old[i],
				  strerror(err));
	}
	return ret;
}

static void bad_usage(void)
{
	fprintf(stderr, "usage: slub_park_params load KO MODULE CACHE < cases\n"
			"       slub_park_params write|combo DIR < cases\n");
	exit(2);
}

int main(int argc, char **argv)
{
	char line[LINE_MAX_LEN], expect[32], names[256];
	int load, combo, ko = -1, n = 0, failed = 0, off = 0;

	if (argc < 2)
		bad_usage();
	load = !strcmp(argv[1], "load");
	combo = !strcmp(argv[1], "combo");
	if (load ? argc != 5 : argc != 3 || (!combo && strcmp(argv[1], "write")))
		bad_usage();
	if (load) {
		ko = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (ko < 0) {
			fprintf(stderr, "slub_park_params: %s: %s\n", argv[2], strerror(errno));
			return 2;
		}
	}
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, " %31s %255s %n", expect, names, &off) < 2) {
			if (strspn(line, " \t") == strlen(line))
				continue;
			fprintf(stderr, "slub_park_params: bad case '%s' (EXPECT %s)\n", line,
				load ? "NAMES PARAM..." :
				combo ? "WHAT FILE VALUE..." : "FILE VALUE");
			return 2;
		}
		n++;
		if (load)
			failed += load_case(ko, argv[3], argv[4], expect_errno(expect),
					    names, line + off);
		else if (combo)
			failed += combo_case(argv[2], expect_errno(expect), names, line + off);
		else
			failed += write_case(argv[2], expect_errno(expect), names, line + off);
	}
	printf("# %d %s cases, %d failed\n", n, argv[1], failed);
	return failed || !n ? 1 : 0;
}
