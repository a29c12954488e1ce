// SPDX-License-Identifier: GPL-2.0
/*
 * slabstat: error reporting, allocation and number formatting helpers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slabstat.h"

const char *prog = "slabstat";

noreturn void fatal(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void warn(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: warning: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		fatal("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > (size_t)-1 / size)
		fatal("out of memory");
	p = realloc(p, (n && size) ? n * size : 1);
	if (!p)
		fatal("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		fatal("out of memory");
	return p;
}

/*
 * Read a whole file (sysfs attributes are at most a page, JSON documents
 * can be larger).  Returns NULL and sets *err to errno on failure.
 */
char *read_text(const char *path, int *err)
{
	size_t len = 0, cap = 4096;
	char *buf;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		*err = errno;
		return NULL;
	}
	buf = xcalloc(cap + 1, 1);
	for (;;) {
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			*err = errno;
			close(fd);
			free(buf);
			return NULL;
		}
		if (n == 0)
			break;
		len += n;
		if (len == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap + 1, 1);
		}
	}
	close(fd);
	buf[len] = '\0';
	*err = 0;
	return buf;
}

/* 1234567 -> "1,234,567" */
const char *fmt_int(char *buf, size_t len, long long v)
{
	unsigned long long u = v < 0 ? -(unsigned long long)v : (unsigned long long)v;
	char tmp[32];
	int n, i, o = 0;

	n = snprintf(tmp, sizeof(tmp), "%llu", u);
	if (v < 0 && o < (int)len - 1)
		buf[o++] = '-';
	for (i = 0; i < n && o < (int)len - 1; i++) {
		if (i && (n - i) % 3 == 0 && o < (int)len - 2)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

/* Integers with separators, other values with separators and 2 decimals. */
const char *fmt_num(char *buf, size_t len, double v)
{
	char frac[16];
	long long ip;
	double r;

	r = v < 0 ? -v : v;
	if (r == (double)(long long)r && r < 9e18)
		return fmt_int(buf, len, (long long)v);
	r += 0.005;
	ip = (long long)r;
	snprintf(frac, sizeof(frac), "%02d", (int)((r - ip) * 100));
	if (v < 0) {
		buf[0] = '-';
		fmt_int(buf + 1, len - 1, ip);
	} else {
		fmt_int(buf, len, ip);
	}
	snprintf(buf + strlen(buf), len - strlen(buf), ".%s", frac);
	return buf;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v in place. */
double median_of(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_dbl);
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}
