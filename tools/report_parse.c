/*
 * mmureport's input: which reader an input is for (read_input, the one
 * place an input format hooks in), and what the readers share: runs,
 * their measurements and results, lines.  The readers: report_mmubench.c
 * (mmubench console logs: QEMU output, tools/console captures, LAVA logs
 * and output.yaml), report_lmbench.c (LMbench lat_mem_rd output).
 */
#define _GNU_SOURCE		/* memmem */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "report_read.h"
#include "result_line.h"

void *grow(void *p, int *cap, int need, size_t size)
{
	if (need <= *cap)
		return p;
	*cap = *cap ? *cap * 2 : 64;
	if (*cap < need)
		*cap = need;
	p = realloc(p, *cap * size);
	if (!p) {
		fprintf(stderr, "mmureport: out of memory\n");
		exit(3);
	}
	return p;
}

struct run *new_run(struct report *rep, const char *file, const char *date)
{
	struct run *r;

	rep->runs = realloc(rep->runs, (rep->nruns + 1) * sizeof(*rep->runs));
	if (!rep->runs) {
		fprintf(stderr, "mmureport: out of memory\n");
		exit(3);
	}
	r = &rep->runs[rep->nruns++];
	memset(r, 0, sizeof(*r));
	snprintf(r->file, sizeof(r->file), "%s", file);
	snprintf(r->date, sizeof(r->date), "%s", date);
	r->index = rep->nruns;
	r->reps = 1;
	return r;
}

void add_mode(struct run *r, const char *mode)
{
	for (int i = 0; i < r->nmodes; i++)
		if (!strcmp(r->modes[i], mode))
			return;
	if (r->nmodes < (int)(sizeof(r->modes) / sizeof(r->modes[0])))
		snprintf(r->modes[r->nmodes++], sizeof(r->modes[0]), "%s", mode);
}

const struct meas *run_find(const struct run *r, const char *probe, const char *mode,
			    const char *metric)
{
	for (int i = 0; i < r->nm; i++)
		if (!isnan(r->m[i].value) && !strcmp(r->m[i].metric, metric) &&
		    !strcmp(r->m[i].mode, mode) && !strcmp(r->m[i].probe, probe))
			return &r->m[i];
	return 0;
}

/* The entry a measurement or sample line fills: see report_read.h. */
struct meas *meas_slot(struct run *r, const char *probe, const char *mode,
			      const char *metric, const char *unit)
{
	for (int i = r->nm - 1; i >= 0; i--) {
		struct meas *m = &r->m[i];
		if (isnan(m->value) && !strcmp(m->metric, metric) && !strcmp(m->mode, mode) &&
		    !strcmp(m->probe, probe))
			return m;
	}
	r->m = grow(r->m, &r->cap, r->nm + 1, sizeof(*r->m));
	struct meas *m = &r->m[r->nm++];
	memset(m, 0, sizeof(*m));
	snprintf(m->probe, sizeof(m->probe), "%s", probe);
	snprintf(m->mode, sizeof(m->mode), "%s", mode);
	snprintf(m->metric, sizeof(m->metric), "%s", metric);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->value = NAN;
	return m;
}

/* See report_read.h. */
int next_line(const char *buf, size_t len, size_t *pos, char *line)
{
	size_t n = 0;

	if (*pos >= len)
		return 0;
	while (*pos < len && buf[*pos] != '\n') {
		char c = buf[(*pos)++];
		if (n + 1 < LINE_MAX_LEN)
			line[n++] = c ? c : '?';
	}
	(*pos)++;
	while (n && line[n - 1] == '\r')
		n--;
	line[n] = 0;
	return 1;
}

/* Which reader an input is for.  A new input format adds its test and
 * reader here. */
static int read_input(struct report *rep, const char *name, const char *buf, size_t len,
		      const char *date)
{
	if (lava_log(buf, len))
		return read_lava(rep, name, buf, len, date);
	if (memmem(buf, len, "KTAP version", 12))
		return read_mmubench(rep, name, buf, len, date);
	if (memmem(buf, len, "\"stride=", 8))
		return read_lmbench(rep, name, buf, len, date);
	fprintf(stderr, "mmureport: %s: not an mmubench log (no 'KTAP version 1' line) "
		"nor LMbench lat_mem_rd output (no \"stride= header)\n", name);
	return -1;
}

static void free_run(struct run *r)
{
	for (int k = 0; k < r->nm; k++)
		free(r->m[k].samples);
	free(r->m);
	free(r->res);
}

int report_read_buffer(struct report *rep, const char *name, const char *buf, size_t len,
		       const char *date)
{
	int first = rep->nruns, losses = rep->losses;
	int rc = read_input(rep, name, buf, len, date);

	/* An unusable input contributes nothing, not even the runs before its fault. */
	if (rc == -1) {
		while (rep->nruns > first)
			free_run(&rep->runs[--rep->nruns]);
		rep->losses = losses;
	}
	return rc;
}

int report_read_file(struct report *rep, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char *buf = 0, date[16];
	size_t len = 0, cap = 0, got;
	struct stat st;
	time_t t = time(0);
	int first = rep->nruns, rc;

	if (!f) {
		fprintf(stderr, "mmureport: %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* The log carries no date: the file's, or today's for standard input. */
	if (f != stdin && !fstat(fileno(f), &st))
		t = st.st_mtime;
	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&t));
	do {
		if (len + 65536 > cap) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = realloc(buf, cap);
			if (!buf) {
				fprintf(stderr, "mmureport: %s: out of memory\n", path);
				exit(3);
			}
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got);
	if (ferror(f)) {
		fprintf(stderr, "mmureport: %s: read error\n", path);
		return -1;
	}
	if (f != stdin)
		fclose(f);
	if (!len) {
		fprintf(stderr, "mmureport: %s: empty: not a log\n", path);
		free(buf);
		return -1;
	}
	rc = report_read_buffer(rep, path, buf, len, date);
	free(buf);
	for (int i = first; i < rep->nruns; i++)
		rep->runs[i].index = i + 1;
	return rc;
}

void report_label(struct report *rep)
{
	for (int i = 0; i < rep->nruns; i++) {
		struct run *r = &rep->runs[i];
		int same = 0, nth = 0;
		if (!r->board[0])
			snprintf(r->board, sizeof(r->board), "unknown");
		r->index = i + 1;
		for (int j = 0; j < rep->nruns; j++)
			if (!strcmp(rep->runs[j].board, r->board)) {
				same++;
				if (j <= i)
					nth++;
			}
		if (same > 1)
			snprintf(r->label, sizeof(r->label), "%s-%d", r->board, nth);
		else
			snprintf(r->label, sizeof(r->label), "%s", r->board);
	}
}

void report_free(struct report *rep)
{
	for (int i = 0; i < rep->nruns; i++)
		free_run(&rep->runs[i]);
	free(rep->runs);
	memset(rep, 0, sizeof(*rep));
}

int curve_point(const char *metric, double *x, char *prefix, size_t size)
{
	struct rl_point pt;

	if (!rl_curve_point(metric, &pt))
		return 0;
	*x = (double)pt.number;
	snprintf(prefix, size, "%.*s", (int)pt.prefix_len, metric);
	return 1;
}
