/*
 * mmureport's tables: LMbench-style, the image's own sections and columns
 * (include/table_defs.h, lib/table_defs.c), a row per run and mode.  CSV
 * and JSON: report_data.c; comparisons: report_compare.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmureport.h"
#include "table_defs.h"

/* A configuration: board, platform and the run line (probes, modes, reps,
 * quick): runs of one configuration go on consecutive rows. */
static int same_config(const struct run *a, const struct run *b)
{
	return !strcmp(a->board, b->board) && !strcmp(a->platform, b->platform) &&
	       !strcmp(a->args, b->args);
}

/* Rows in order: configuration by configuration (first appearance), each
 * mode, each run of that configuration. */
static int table_rows(const struct report *rep, struct row *rows, int max)
{
	int n = 0;
	char *done = calloc(rep->nruns + 1, 1);

	for (int i = 0; i < rep->nruns; i++) {
		if (done[i])
			continue;
		const struct run *first = &rep->runs[i];
		/* The modes of the configuration, in order of appearance. */
		const char **modes = calloc(max + 1, sizeof(*modes));
		int nmodes = 0;
		if (!modes)
			exit(3);
		for (int j = i; j < rep->nruns; j++) {
			if (!same_config(first, &rep->runs[j]))
				continue;
			for (int k = 0; k < rep->runs[j].nmodes; k++) {
				int seen = 0;
				for (int q = 0; q < nmodes; q++)
					seen |= !strcmp(modes[q], rep->runs[j].modes[k]);
				if (!seen && nmodes < max)
					modes[nmodes++] = rep->runs[j].modes[k];
			}
		}
		for (int k = 0; k < nmodes; k++)
			for (int j = i; j < rep->nruns; j++) {
				const struct run *r = &rep->runs[j];
				if (!same_config(first, r))
					continue;
				done[j] = 1;
				for (int q = 0; q < r->nmodes; q++)
					if (!strcmp(r->modes[q], modes[k]) && n < max) {
						rows[n].run = r;
						rows[n].mode = r->modes[q];
						n++;
					}
			}
		free(modes);
	}
	free(done);
	return n;
}

/* A cell as the image prints it: the figure's decimals kept, microsecond
 * columns the scaled value divided by 1000 (truncated, as format_fixed). */
static void cell_text(char *buf, size_t size, const struct meas *m, int in_us)
{
	long long scaled = llround(m->value * pow(10, m->decimals));
	long long p10 = llround(pow(10, m->decimals));

	if (in_us)
		scaled /= 1000;
	if (!m->decimals) {
		snprintf(buf, size, "%lld", scaled);
		return;
	}
	long long mag = scaled < 0 ? -scaled : scaled;
	snprintf(buf, size, "%s%lld.%0*lld", scaled < 0 ? "-" : "", mag / p10, m->decimals,
		 mag % p10);
}

static void pad(char *line, int *n, int width, const char *text)
{
	*n += sprintf(line + *n, " %*.*s", width, width, text);
}

static int row_has_any(const struct row *row, const struct table *t)
{
	for (const struct column *c = t->cols; c->probe; c++)
		if (run_find(row->run, c->probe, row->mode, c->metric))
			return 1;
	return 0;
}

/* "Figures from:" each platform once, in order. */
static void figures_from(const struct report *rep, char *line, size_t size)
{
	size_t n = 0;

	line[0] = 0;
	for (int i = 0, listed = 0; i < rep->nruns && n < size; i++) {
		const struct run *r = &rep->runs[i];
		int seen = 0;
		for (int j = 0; j < i; j++)
			seen |= !strcmp(rep->runs[j].platform, r->platform);
		if (!seen)
			n += snprintf(line + n, size - n, "%s%s", listed++ ? "; " : "", r->platform);
	}
}

/* The title, where the figures come from (one platform, or each run's)
 * and the three header lines. */
static void print_head(FILE *f, const struct report *rep, const struct table *t, int runcol)
{
	char line[400], dash[200];
	int n = fprintf(f, "%s\n", t->title) - 1;

	memset(dash, '-', n);
	dash[n] = 0;
	fprintf(f, "%s\n", dash);
	figures_from(rep, line, sizeof(line) - 14);
	fprintf(f, "Figures from: %s\n", line);

	for (int h = 0; h < 3; h++) {
		n = sprintf(line, "%-9s %-9s", h == 0 ? "Host" : h == 2 ? "---------" : "",
			    h == 0 ? "Mode" : h == 2 ? "---------" : "");
		if (runcol)
			n += sprintf(line + n, " %-3s", h == 0 ? "Run" : h == 2 ? "---" : "");
		for (const struct column *c = t->cols; c->probe; c++) {
			if (h == 2) {
				memset(dash, '-', c->width);
				dash[c->width] = 0;
			}
			pad(line, &n, c->width, h == 0 ? c->head1 : h == 1 ? c->head2 : dash);
		}
		fprintf(f, "%s\n", line);
	}
}

/* A row's cell for column c: a kind's word, the figure as printed, or "". */
static void row_cell(char *cell, size_t size, const struct column *c, const struct row *row)
{
	const struct meas *m = run_find(row->run, c->probe, row->mode, c->metric);
	const char *word = m && !m->decimals ? table_word(c, llround(m->value)) : 0;

	cell[0] = 0;
	if (word)
		snprintf(cell, size, "%s", word);
	else if (m)
		cell_text(cell, size, m, c->in_us);
}

static void print_row(FILE *f, const struct table *t, const struct row *row, int runcol)
{
	const struct run *r = row->run;
	char line[400];
	int n = sprintf(line, "%-9.9s %-9.9s", r->board, row->mode);

	if (runcol)
		n += sprintf(line + n, " %-3d", r->index);
	for (const struct column *c = t->cols; c->probe; c++) {
		char cell[32];
		row_cell(cell, sizeof(cell), c, row);
		pad(line, &n, c->width, cell);
	}
	fprintf(f, "%s\n", line);
}

/* A table, unless no row has any of its columns. */
static void print_table(FILE *f, const struct report *rep, const struct table *t,
			const struct row *rows, int nrows)
{
	int any = 0, runcol = rep->nruns > 1;

	for (int i = 0; i < nrows; i++)
		any |= row_has_any(&rows[i], t);
	if (!any)
		return;
	print_head(f, rep, t, runcol);
	for (int i = 0; i < nrows; i++)
		if (!rows[i].run->lmbench || row_has_any(&rows[i], t))
			print_row(f, t, &rows[i], runcol);
	fprintf(f, "\n");
}

void partial_text(char *buf, size_t size, const struct run *r)
{
	if (!r->partial)
		snprintf(buf, size, "%s", "");
	else if (r->partial == 1)
		snprintf(buf, size, "PARTIAL: the log ends at line %lu before its status line",
			 r->break_line);
	else
		snprintf(buf, size, "PARTIAL: a new report begins at line %lu before its status line "
			 "(the board reset)", r->break_line);
}

int host_timed(const struct run *r)
{
	return !strcmp(r->timing, "host");
}

/* Every run in every mode: the most rows a table can have. */
int report_rows_max(const struct report *rep)
{
	int n = 0;

	for (int i = 0; i < rep->nruns; i++)
		n += rep->runs[i].nmodes;
	return n;
}

static struct row *all_rows(const struct report *rep, int *n)
{
	int max = report_rows_max(rep);
	struct row *rows = calloc(max + 1, sizeof(*rows));

	if (!rows)
		exit(3);
	*n = table_rows(rep, rows, max);
	return rows;
}

int runs_listed(const struct report *rep)
{
	int marked = 0;

	/* Listed when there are several, or one the tables alone would misrepresent. */
	for (int i = 0; i < rep->nruns; i++)
		marked |= rep->runs[i].partial || host_timed(&rep->runs[i]);
	return rep->nruns > 1 || marked;
}

/* The Runs block: a line a run, with what the tables alone would hide. */
static void print_runs(FILE *f, const struct report *rep)
{
	fprintf(f, "Runs\n----\n");
	for (int i = 0; i < rep->nruns; i++) {
		const struct run *r = &rep->runs[i];
		char cut[160];
		partial_text(cut, sizeof(cut), r);
		fprintf(f, "%3d  %-9s %s%s%s (%s, reps=%d)%s%s%s%s\n", r->index, r->board, r->file,
			r->cpu[0] ? ": " : "", r->cpu, r->platform, r->reps,
			r->losses ? "  [lines lost or garbled]" : "", cut[0] ? "  " : "", cut,
			host_timed(r) ? "  " HOST_TIME_TEXT : "");
	}
}

void print_tables(FILE *f, const struct report *rep)
{
	int n;
	struct row *rows = all_rows(rep, &n);

	if (runs_listed(rep)) {
		print_runs(f, rep);
		fprintf(f, "\n");
	}
	for (const struct table *t = report_table_defs; t->title; t++)
		print_table(f, rep, t, rows, n);
	free(rows);
}

/* The same tables as data, for the model (mmureport --model). */
void write_tables_json(FILE *f, const struct report *rep)
{
	int n, first = 1, runcol = rep->nruns > 1;
	struct row *rows = all_rows(rep, &n);
	char from[4096], cell[32];

	figures_from(rep, from, sizeof(from));
	if (runs_listed(rep)) {		/* the block as print_tables gives it */
		char *text = 0;
		size_t len = 0;
		FILE *t = open_memstream(&text, &len);
		if (!t)
			exit(3);
		print_runs(t, rep);
		fclose(t);
		fprintf(f, "\"runs_block\": ");
		json_str(f, text);
		fprintf(f, ",\n");
		free(text);
	}
	fprintf(f, "\"tables\": [");
	for (const struct table *t = report_table_defs; t->title; t++) {
		int any = 0, firstrow = 1;
		for (int i = 0; i < n; i++)
			any |= row_has_any(&rows[i], t);
		if (!any)
			continue;
		fprintf(f, "%s\n {\"title\": ", first ? "" : ",");
		first = 0;
		json_str(f, t->title);
		fprintf(f, ", \"figures_from\": ");
		json_str(f, from);
		fprintf(f, ", \"run_column\": %s, \"columns\": [", runcol ? "true" : "false");
		for (const struct column *c = t->cols; c->probe; c++) {
			fprintf(f, "%s{\"head1\": ", c == t->cols ? "" : ", ");
			json_str(f, c->head1);
			fprintf(f, ", \"head2\": ");
			json_str(f, c->head2);
			fprintf(f, ", \"width\": %d}", c->width);
		}
		fprintf(f, "],\n  \"rows\": [");
		for (int i = 0; i < n; i++) {
			if (rows[i].run->lmbench && !row_has_any(&rows[i], t))
				continue;
			fprintf(f, "%s\n   {\"run\": %d, \"board\": ", firstrow ? "" : ",", rows[i].run->index);
			firstrow = 0;
			json_str(f, rows[i].run->board);
			fprintf(f, ", \"mode\": ");
			json_str(f, rows[i].mode);
			fprintf(f, ", \"cells\": [");
			for (const struct column *c = t->cols; c->probe; c++) {
				row_cell(cell, sizeof(cell), c, &rows[i]);
				fprintf(f, "%s", c == t->cols ? "" : ", ");
				json_str(f, cell);
			}
			fprintf(f, "]}");
		}
		fprintf(f, "]}");
	}
	fprintf(f, "]");
	free(rows);
}
