/* The human summary: LMbench-2.0-style tables, one row per board+mode,
 * filled from the measurements already reported.  A table whose cells are
 * all empty (its probes did not run) is left out. */
#include <stdio.h>
#include <string.h>
#include "board.h"
#include "config.h"
#include "report.h"
#include "table_defs.h"

static void pad(char *line, int *n, int width, const char *text)
{
	*n += sprintf(line + *n, " %*.*s", width, width, text);
}

static void print_table(const struct table *t)
{
	char line[200], dash[200];
	int n, any = 0;

	/* Leave the table out when none of its cells has a value. */
	for (int m = 0; m < config.nmodes; m++)
		for (const struct column *c = t->cols; c->probe; c++) {
			int64_t v;
			int d;
			any |= report_lookup(c->probe, config.modes[m]->name, c->metric, &v, &d);
		}
	if (!any)
		return;

	n = snprintf(line, sizeof(line), "%s", t->title);
	report_table_line(line);
	memset(dash, '-', n);
	dash[n] = 0;
	report_table_line(dash);
	snprintf(line, sizeof(line), "Figures from: %s", boot_info.platform);
	report_table_line(line);

	for (int h = 0; h < 3; h++) {
		n = sprintf(line, "%-9s %-9s", h == 0 ? "Host" : h == 2 ? "---------" : "",
			    h == 0 ? "Mode" : h == 2 ? "---------" : "");
		for (const struct column *c = t->cols; c->probe; c++) {
			if (h == 2) {
				memset(dash, '-', c->width);
				dash[c->width] = 0;
			}
			pad(line, &n, c->width, h == 0 ? c->head1 : h == 1 ? c->head2 : dash);
		}
		report_table_line(line);
	}
	for (int m = 0; m < config.nmodes; m++) {
		const char *mode = config.modes[m]->name;
		n = sprintf(line, "%-9.9s %-9.9s", board_name, mode);
		for (const struct column *c = t->cols; c->probe; c++) {
			char cell[32] = "";
			int64_t v;
			int d;
			if (report_lookup(c->probe, mode, c->metric, &v, &d)) {
				const char *word = d ? 0 : table_word(c, v);	/* a kind */
				if (word)
					snprintf(cell, sizeof(cell), "%s", word);
				else
					format_fixed(cell, sizeof(cell), c->in_us ? v / 1000 : v, d);
			}
			pad(line, &n, c->width, cell);
		}
		report_table_line(line);
	}
	report_table_line("");
}

void report_tables(void)
{
	report_tables_begin();
	for (const struct table *t = report_table_defs; t->title; t++)
		print_table(t);
	report_tables_end();
}
