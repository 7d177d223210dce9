/*
 * mmureport's model of what it read: runs (one mmubench report, from
 * "KTAP version 1" to its status line, or one LMbench lat_mem_rd file),
 * their measurements with each repetition's sample, and their curves.
 * report_parse.c fills it, report_stats.c tests, report_tables.c and
 * report_compare.c (with report_sides.c) print it, report_data.c writes
 * it as JSON for tools/report/ (CSV, JSON, plots, the page).
 */
#ifndef MMUREPORT_H
#define MMUREPORT_H

#include <stdio.h>

struct meas {
	char probe[24], mode[16], metric[48], unit[16];
	double value;			/* the median the image printed */
	int decimals;			/* as printed */
	unsigned long line;		/* its line in the file */
	int nsamples;			/* "# sample" lines (reps > 1), 0 without */
	double *samples;
	int prev;			/* the run's entry of this name before it, or -1 */
};

struct result {
	char name[48];			/* probe.mode */
	char verdict[8];		/* ok, not ok, skip, timeout */
	unsigned long line;		/* its line in the file */
	char *reason;			/* SKIP's or TIMEOUT's reason; 0 when none */
	char *diag;			/* its diagnostics: the "# " lines since the result
					 * before it, each ending in '\n' (--junit); 0: none */
};

struct run {
	char file[256];			/* as given ("-": stdin) */
	char label[64];			/* board, or board-N when a board has several runs */
	int index;			/* 1.. in reading order */
	int lmbench;			/* an LMbench lat_mem_rd import */
	char board[24], arch[16], version[48];
	char cpu[96], platform[160], args[160], date[16];
	int reps;
	char status[8];			/* pass, fail */
	char timing[16];		/* "# timing:": instructions, host, real; "" (older logs) */
	int losses;			/* lines lost or garbled in this run */
	int partial;			/* cut short before its status line: 1 the log ends,
					 * 2 a new report begins; 0 whole */
	unsigned long break_line;	/* where it was cut (partial) */
	char (*modes)[16];		/* in order of appearance */
	int nmodes, modecap;
	struct meas *m;
	int nm, cap;
	int *hash, hashcap;		/* meas_slot's index of m by name */
	struct result *res;
	int nres, rescap;
	unsigned long plan;		/* the plan's N; 0 before it */
	char *diag;			/* diagnostics not yet a result's: once read, those
					 * after the last result (a cut-short run's last words) */
	size_t ndiag;
	int diag_dropped;		/* lines past DIAG_MAX, said at their end */
};

struct report {
	struct run *runs;
	int nruns;
	int losses;			/* over every run */
	int errors;			/* inputs not usable: not a log, unknown version */
};

/* report_parse.c */
/* Read one input (path, or "-" for stdin) into rep; messages on stderr
 * name the file and line.  Returns 0; -2 when a report in it was cut short
 * (its run kept up to there, marked partial); -1 when nothing in it is
 * usable (it adds no run). */
int report_read_file(struct report *rep, const char *path);
/* The same from memory (the fuzz target). */
int report_read_buffer(struct report *rep, const char *name, const char *buf, size_t len,
		       const char *date);
void report_free(struct report *rep);
/* Give each run its label once all are read. */
void report_label(struct report *rep);
/* Find a measurement; 0 when absent. */
const struct meas *run_find(const struct run *r, const char *probe, const char *mode,
			    const char *metric);
/* A curve point's metric: <pattern>_<bytes>_ns, <pages>p_ns, ..._<bytes>_mbs;
 * sets *x (bytes or pages) and prefix (the part before the number). */
int curve_point(const char *metric, double *x, char *prefix, size_t size);

/* A table row or a comparison side's member: a run in one of its modes. */
struct row {
	const struct run *run;
	const char *mode;
};

/* report_stats.c */
double median_of(const double *v, int n);
struct mwu {
	int n1, n2;
	double u;			/* U of the first sample */
	double p;			/* two-sided; -1 when it cannot be computed */
	int exact;			/* exact distribution (no ties, small) */
	double p_min;			/* the smallest p these sizes can give */
};
void mann_whitney(const double *a, int n1, const double *b, int n2, struct mwu *out);
/* The fewest repetitions a side (equal numbers) whose complete separation
 * reaches p <= level; 0 when more than 50 would be needed. */
int mwu_needed_reps(double level);
/* Holm's step-down adjustment of n p-values in place: the i-th smallest
 * becomes max over j <= i of min(1, (n - j + 1) p_(j)). */
void holm_adjust(double *p, int n);

/* report_tables.c */
void print_tables(FILE *f, const struct report *rep);
/* The tables as data: "tables": [...] (mmureport --model). */
void write_tables_json(FILE *f, const struct report *rep);
/* Does print_tables begin with the Runs block? */
int runs_listed(const struct report *rep);
/* The most rows a table or a comparison's side can have. */
int report_rows_max(const struct report *rep);
/* A partial run's mark, as every list of runs gives it: "PARTIAL: the log
 * ends at line N before its status line"; "" for a whole run. */
void partial_text(char *buf, size_t size, const struct run *r);
/* A run timed by the host (QEMU TCG without -icount): its times were dropped. */
int host_timed(const struct run *r);
#define HOST_TIME_TEXT "host time (QEMU TCG): no time figures"

/* report_data.c */
void write_json_runs(FILE *f, const struct report *rep);
/* A count the image prints only where a counter counts it (else absent). */
int is_counter(const char *probe, const char *metric);
void json_str(FILE *f, const char *s);
void json_num(FILE *f, double v);		/* null when not finite */

/* report_sides.c */
/* A comparison's side: "MODE", "BOARD", "RUN" (label, file, #N) or "RUN:MODE". */
int select_rows(const struct report *rep, const char *spec, struct row *rows, int max);
int distinct_modes(const struct row *rows, int n);
/* Did the probe give any figure on this side (in this mode, where given)? */
int probe_ran(const struct row *rows, int n, const char *mode, const char *probe);
int side_lost_lines(const struct row *rows, int n);
void sides_from(FILE *f, const char *which, const struct row *s, int n);

/* report_compare.c */
/* A comparison: returns 0, or -1 (and a message) when a side selects nothing. */
int print_compare(FILE *f, FILE *json, const struct report *rep, const char *a, const char *b);

/* Output through a temporary file renamed into place at the end, so a
 * failure never leaves a half-written file (mmureport.c). */
FILE *out_open(const char *path, char *tmp, size_t size);
int out_close(FILE *f, const char *tmp, const char *path, int ok);

#endif
