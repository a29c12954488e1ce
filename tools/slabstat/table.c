// SPDX-License-Identifier: GPL-2.0
/*
 * slabstat: plain-text tables in the style of the "Detailed data" tables
 * on linux-mm (first column left-aligned, numbers right-aligned, a '='
 * rule under the header) and CSV rows.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "slabstat.h"
#include "table.h"

struct table *tbl_new(int ncol)
{
	struct table *t = xcalloc(1, sizeof(*t));

	t->ncol = ncol;
	return t;
}

/* Append a row of ncol cells; NULL cells print as "-". */
void tbl_add(struct table *t, char **cells)
{
	char **row = xcalloc(t->ncol, sizeof(*row));
	int i;

	for (i = 0; i < t->ncol; i++)
		row[i] = xstrdup(cells[i] ? cells[i] : "-");
	t->rows = xrealloc(t->rows, t->nrows + 1, sizeof(*t->rows));
	t->rows[t->nrows++] = row;
}

void tbl_print(struct table *t, FILE *f)
{
	int *w = xcalloc(t->ncol, sizeof(int));
	int i, j, total = 0;

	for (i = 0; i < t->nrows; i++)
		for (j = 0; j < t->ncol; j++) {
			int len = strlen(t->rows[i][j]);

			if (len > w[j])
				w[j] = len;
		}
	for (j = 0; j < t->ncol; j++) {
		w[j] += j ? 3 : 0;
		total += w[j];
	}
	for (i = 0; i < t->nrows; i++) {
		for (j = 0; j < t->ncol; j++) {
			if (!j)
				fprintf(f, "%-*s", w[j], t->rows[i][j]);
			else
				fprintf(f, "%*s", w[j], t->rows[i][j]);
		}
		fputc('\n', f);
		if (i == 0) {
			for (j = 0; j < total; j++)
				fputc('=', f);
			fputc('\n', f);
		}
	}
	for (i = 0; i < t->nrows; i++) {
		for (j = 0; j < t->ncol; j++)
			free(t->rows[i][j]);
		free(t->rows[i]);
	}
	free(t->rows);
	free(w);
	free(t);
}

/* CSV cell: quoted only when needed. */
void csv_cell(FILE *f, const char *s, bool last)
{
	if (strpbrk(s, ",\"\n")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
	fputc(last ? '\n' : ',', f);
}
