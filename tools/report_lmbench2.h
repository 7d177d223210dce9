/*
 * mmureport --lmbench: the LMbench 2.0 summary's layout with rows read
 * from LMbench 2.0 summary text (report_lmbench2.c, its lines and words in
 * report_lmbench2_text.c) and rows made of
 * mmubench figures that mean what LMbench's columns mean
 * (report_lmbench2_out.c), one table; and the ratios of two rows of each
 * side next to each other (report_lmbench2_cmp.c).
 */
#ifndef REPORT_LMBENCH2_H
#define REPORT_LMBENCH2_H

#include <stdio.h>

#include "mmureport.h"

enum { LMB_SECTIONS = 7, LMB_MAXCOLS = 11 };

struct lmb_col {
	const char *head[2];		/* LMbench's two head lines */
	int width;
};

/* One section of the summary as LMbench 2.0's getsummary prints it:
 * Host (9) and OS (13), then the columns. */
struct lmb_section {
	const char *title;
	const char *extra;		/* a line under the title's rule, or 0 */
	int ncols;
	int text_last;			/* the last column is free text (Description, Guesses) */
	struct lmb_col col[LMB_MAXCOLS];
};
extern const struct lmb_section lmb_sections[LMB_SECTIONS];
enum { LMB_BASIC, LMB_PROC, LMB_CTX, LMB_LAT, LMB_FILEVM, LMB_BW, LMB_MEM };

enum lmb_state { LMB_BLANK, LMB_VALUE, LMB_UNKNOWN };

struct lmb_cell {
	unsigned char state;
	double value;			/* in LMbench's unit: us, MB/s, ns, MHz */
	char text[24];			/* as the summary printed it; "" for mmubench's */
};

struct lmb_row {
	char source[64];		/* the summary's label, or the run's */
	char host[16], os[24];		/* mmubench: the board and the mode */
	int lmbench;			/* read from a summary */
	const struct run *run;		/* mmubench rows */
	struct lmb_cell cell[LMB_SECTIONS][LMB_MAXCOLS];
};

struct lmb_table {
	struct lmb_row *rows;
	int n, cap;
	int summaries;			/* how many summaries were read */
	int unknown;			/* cells a summary has but that cannot be placed */
};

/* report_lmbench2.c */
/* Does the text hold an LMbench summary title (of any version)? */
int lmb_is_summary(const char *buf, size_t len);
/* Read one LMbench 2.0 summary's rows into t, labelled `label`.  Messages
 * on stderr name the file and line.  Returns 0, or -1 on a fatal error
 * (truncated, foreign, another LMbench version). */
int lmb_read_summary(struct lmb_table *t, const char *name, const char *label,
		     const char *buf, size_t len);

/* report_lmbench2_text.c */
enum { LMB_LINE_LEN = 1024 };
struct lmb_reader {
	const char *name, *buf;
	size_t len, pos;
	unsigned long no;
	int ended;			/* the last line read had its newline */
	int again;			/* give the last line once more */
	char line[LMB_LINE_LEN];		/* tabs expanded, CR off */
};

struct lmb_word {
	int start, end;			/* columns, end inclusive */
	char text[24];
};

/* The text's words joined by single spaces; characters from..from+width-1
 * of a line, so joined. */
void lmb_collapse(const char *s, char *out, size_t size);
void lmb_field(const char *l, size_t from, int width, char *out, size_t size);
/* The next line into rd->line: 1, or 0 at the end. */
int lmb_next_line(struct lmb_reader *rd);
/* The words of s from column `from`: their number, max + 1 when more. */
int lmb_words(const char *s, int from, struct lmb_word *w, int max);
/* A column rule (dash groups only): its groups, 0 when not one. */
int lmb_rule(const char *s, struct lmb_word *g, int max);
/* One of LMbench's figures (1.40, 917., 30.K, 20.2K, 1.5M): 1 and the
 * value, 0 for "-" (LMbench's blank) and "?" (mmureport's unknown), -1
 * for anything else. */
int lmb_figure(const char *s, double *v);

/* report_lmbench2_out.c (with the sections' table, lmb_sections) */
struct lmb_row *lmb_new_row(struct lmb_table *t);
void lmb_free(struct lmb_table *t);
/* One row per run x mode, filled where an mmubench figure means what the
 * LMbench column means. */
void lmb_add_runs(struct lmb_table *t, const struct report *rep);
void lmb_print(FILE *f, const struct lmb_table *t, const struct report *rep);
void lmb_write_json(FILE *f, const struct lmb_table *t);
/* A column's name from its heads ("null call", "2p/16K ctxsw"), and a
 * section's title up to " in " or " - ". */
void lmb_col_name(int sec, int col, char *out, size_t size);
void lmb_short_title(int sec, char *out, size_t size);
/* LMbench's way to print a figure in `width` characters (blank <= 0). */
void lmb_format(double v, int width, int whole, char *out, size_t size);

/* report_lmbench2_cmp.c */
/* Ratios a (NUM/DEN) next to ratios b: returns 0, or -1 with a message
 * when a selector selects nothing or is ambiguous. */
int lmb_compare(FILE *f, const struct lmb_table *t, const char *a, const char *b);
/* The whole of `mmureport --lmbench`: returns the exit status.  json: a
 * file for the table as JSON too (lmb_write_json), or 0. */
int lmbench_main(const char **files, int nfiles, const char *(*cmp)[2], int ncmp,
		 int strict, const char *json);

#endif
