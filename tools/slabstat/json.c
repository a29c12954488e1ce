// SPDX-License-Identifier: GPL-2.0
/*
 * slabstat: a minimal JSON reader (for snapshots and delta documents
 * written by slabstat itself) and a pretty-printing writer.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "slabstat.h"

struct jparser {
	const char *p;
	const char *start;
	char *err;
	size_t errlen;
	int depth;
};

static struct jval *jp_value(struct jparser *jp);

static struct jval *jp_fail(struct jparser *jp, const char *what)
{
	if (!jp->err[0])
		snprintf(jp->err, jp->errlen, "%s at offset %ld", what,
			 (long)(jp->p - jp->start));
	return NULL;
}

static void jp_ws(struct jparser *jp)
{
	while (*jp->p && isspace((unsigned char)*jp->p))
		jp->p++;
}

static char *jp_string(struct jparser *jp)
{
	size_t len = 0, cap = 32;
	char hex[3] = "";
	char *s, c;

	if (*jp->p != '"')
		return NULL;
	jp->p++;
	s = xcalloc(cap, 1);
	while ((c = *jp->p) && c != '"') {
		jp->p++;
		if (c == '\\') {
			c = *jp->p++;
			switch (c) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'u':
				/* only what slabstat writes: \u00XX */
				if (strlen(jp->p) < 4) {
					free(s);
					return NULL;
				}
				hex[0] = jp->p[2];
				hex[1] = jp->p[3];
				c = (char)strtol(hex, NULL, 16);
				jp->p += 4;
				break;
			case '\0':
				free(s);
				return NULL;
			default:
				break;
			}
		}
		if (len + 2 > cap) {
			cap *= 2;
			s = xrealloc(s, cap, 1);
		}
		s[len++] = c;
	}
	if (*jp->p != '"') {
		free(s);
		return NULL;
	}
	jp->p++;
	s[len] = '\0';
	return s;
}

static struct jval *jp_container(struct jparser *jp, bool obj)
{
	struct jval *v = xcalloc(1, sizeof(*v)), *e;
	char close = obj ? '}' : ']';
	char *key = NULL;

	v->type = obj ? J_OBJ : J_ARR;
	jp->p++;
	jp_ws(jp);
	if (*jp->p == close) {
		jp->p++;
		return v;
	}
	for (;;) {
		jp_ws(jp);
		if (obj) {
			key = jp_string(jp);
			if (!key)
				return jp_fail(jp, "expected a string key");
			jp_ws(jp);
			if (*jp->p != ':')
				return jp_fail(jp, "expected ':'");
			jp->p++;
		}
		e = jp_value(jp);
		if (!e)
			return NULL;
		v->v = xrealloc(v->v, v->n + 1, sizeof(*v->v));
		v->keys = xrealloc(v->keys, v->n + 1, sizeof(*v->keys));
		v->v[v->n] = e;
		v->keys[v->n] = key;
		v->n++;
		jp_ws(jp);
		if (*jp->p == ',') {
			jp->p++;
			continue;
		}
		if (*jp->p == close) {
			jp->p++;
			return v;
		}
		return jp_fail(jp, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static struct jval *jp_value(struct jparser *jp)
{
	struct jval *v;
	char *end;

	if (++jp->depth > 64)
		return jp_fail(jp, "nested too deeply");
	jp_ws(jp);
	switch (*jp->p) {
	case '{':
	case '[':
		v = jp_container(jp, *jp->p == '{');
		jp->depth--;
		return v;
	case '"':
		v = xcalloc(1, sizeof(*v));
		v->type = J_STR;
		v->s = jp_string(jp);
		if (!v->s)
			return jp_fail(jp, "bad string");
		break;
	case 't':
	case 'f':
	case 'n':
		v = xcalloc(1, sizeof(*v));
		if (!strncmp(jp->p, "true", 4)) {
			v->type = J_BOOL;
			v->i = 1;
			jp->p += 4;
		} else if (!strncmp(jp->p, "false", 5)) {
			v->type = J_BOOL;
			jp->p += 5;
		} else if (!strncmp(jp->p, "null", 4)) {
			v->type = J_NULL;
			jp->p += 4;
		} else {
			return jp_fail(jp, "unexpected word");
		}
		break;
	default:
		v = xcalloc(1, sizeof(*v));
		v->type = J_NUM;
		errno = 0;
		v->d = strtod(jp->p, &end);
		if (end == jp->p)
			return jp_fail(jp, "unexpected character");
		if (!memchr(jp->p, '.', end - jp->p) &&
		    !memchr(jp->p, 'e', end - jp->p) &&
		    !memchr(jp->p, 'E', end - jp->p)) {
			errno = 0;
			v->i = strtoll(jp->p, NULL, 10);
			v->isint = errno == 0;
		}
		jp->p = end;
		break;
	}
	jp->depth--;
	return v;
}

struct jval *json_parse(const char *text, char *err, size_t errlen)
{
	struct jparser jp = { .p = text, .start = text, .err = err,
			      .errlen = errlen };
	struct jval *v;

	err[0] = '\0';
	v = jp_value(&jp);
	if (!v)
		return NULL;
	jp_ws(&jp);
	if (*jp.p)
		return jp_fail(&jp, "trailing garbage");
	return v;
}

struct jval *json_load(const char *path)
{
	char errbuf[128];
	struct jval *v;
	char *text;
	int err;

	text = read_text(path, &err);
	if (!text)
		fatal("cannot read %s: %s", path, strerror(err));
	v = json_parse(text, errbuf, sizeof(errbuf));
	if (!v)
		fatal("%s: not valid JSON: %s", path, errbuf);
	free(text);
	return v;
}

struct jval *jget(const struct jval *obj, const char *key)
{
	int i;

	if (!obj || obj->type != J_OBJ)
		return NULL;
	for (i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return obj->v[i];
	return NULL;
}

bool jnum(const struct jval *v, double *out)
{
	if (!v || v->type != J_NUM)
		return false;
	*out = v->isint ? (double)v->i : v->d;
	return true;
}

bool jint(const struct jval *v, long long *out)
{
	if (!v || v->type != J_NUM)
		return false;
	*out = v->isint ? v->i : (long long)v->d;
	return true;
}

const char *jstr(const struct jval *v)
{
	return v && v->type == J_STR ? v->s : NULL;
}

/* ---- writer ---- */

static void jw_indent(struct jw *w)
{
	int i;

	for (i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

static void jw_quote(struct jw *w, const char *v)
{
	const unsigned char *p;

	fputc('"', w->f);
	for (p = (const unsigned char *)v; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(w->f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", w->f);
		else if (*p < 0x20)
			fprintf(w->f, "\\u%04x", *p);
		else
			fputc(*p, w->f);
	}
	fputc('"', w->f);
}

static void jw_item(struct jw *w, const char *key)
{
	if (w->depth) {
		fputs(w->first[w->depth] ? "\n" : ",\n", w->f);
		w->first[w->depth] = false;
		jw_indent(w);
	}
	if (key) {
		jw_quote(w, key);
		fputs(": ", w->f);
	}
}

void jw_open(struct jw *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
}

void jw_close(struct jw *w)
{
	fputc('\n', w->f);
}

static void jw_begin(struct jw *w, const char *key, char c)
{
	jw_item(w, key);
	fputc(c, w->f);
	if (w->depth + 1 >= (int)ARRAY_SIZE(w->first))
		fatal("JSON writer nested too deeply");
	w->depth++;
	w->first[w->depth] = true;
}

static void jw_finish(struct jw *w, char c)
{
	bool empty = w->first[w->depth];

	w->depth--;
	if (!empty) {
		fputc('\n', w->f);
		jw_indent(w);
	}
	fputc(c, w->f);
}

void jw_obj(struct jw *w, const char *key)
{
	jw_begin(w, key, '{');
}

void jw_arr(struct jw *w, const char *key)
{
	jw_begin(w, key, '[');
}

void jw_end_obj(struct jw *w)
{
	jw_finish(w, '}');
}

void jw_end_arr(struct jw *w)
{
	jw_finish(w, ']');
}

void jw_int(struct jw *w, const char *key, long long v)
{
	jw_item(w, key);
	fprintf(w->f, "%lld", v);
}

void jw_uint(struct jw *w, const char *key, unsigned long long v)
{
	jw_item(w, key);
	fprintf(w->f, "%llu", v);
}

void jw_dbl(struct jw *w, const char *key, double v)
{
	jw_item(w, key);
	if (isfinite(v))
		fprintf(w->f, "%.15g", v);
	else
		fputs("null", w->f);
}

void jw_null(struct jw *w, const char *key)
{
	jw_item(w, key);
	fputs("null", w->f);
}

void jw_str(struct jw *w, const char *key, const char *v)
{
	jw_item(w, key);
	jw_quote(w, v);
}
