/* The LMbench-style tables' sections and columns: lib/table_defs.c,
 * shared by the image's summary (boot/tables.c) and the host tool
 * mmureport, so both print the same tables. */
#ifndef TABLE_DEFS_H
#define TABLE_DEFS_H

struct column {
	const char *head1, *head2;	/* two header lines, as LMbench */
	const char *probe, *metric;
	int width;
	int in_us;			/* a figure in ns, shown in microseconds */
	const char *const *words;	/* a kind, shown as words[value] (0-terminated) */
};

/* The word for a cell of column c holding `value`; 0 when c shows numbers
 * or value has no word. */
const char *table_word(const struct column *c, long long value);
/* The same for a probe's metric, from whichever column shows it (JSON). */
const char *table_metric_word(const char *probe, const char *metric, long long value);

struct table {
	const char *title;
	struct column cols[12];		/* ends with a column whose probe is 0 */
};

/* Ends with a table whose title is 0. */
extern const struct table report_table_defs[];

#endif
