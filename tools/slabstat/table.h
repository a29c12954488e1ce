/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SLABSTAT_TABLE_H
#define SLABSTAT_TABLE_H

#include <stdbool.h>
#include <stdio.h>

struct table {
	int ncol;
	int nrows;
	char ***rows;
};

struct table *tbl_new(int ncol);
void tbl_add(struct table *t, char **cells);
void tbl_print(struct table *t, FILE *f);
void csv_cell(FILE *f, const char *s, bool last);

#endif /* SLABSTAT_TABLE_H */
