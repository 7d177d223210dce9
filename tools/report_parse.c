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
	visible_copy(r->file, sizeof(r->file), file);
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
	r->modes = grow(r->modes, &r->modecap, r->nmodes + 1, sizeof(*r->modes));
	snprintf(r->modes[r->nmodes++], sizeof(*r->modes), "%s", mode);
}

/* FNV-1a of a measurement's name, for meas_slot's index. */
static unsigned name_hash(const char *probe, const char *mode, const char *metric)
{
	const char *part[3] = { probe, mode, metric };
	unsigned h = 2166136261u;

	for (int k = 0; k < 3; k++) {
		for (const char *p = part[k]; *p; p++)
			h = (h ^ (unsigned char)*p) * 16777619u;
		h = (h ^ '.') * 16777619u;
	}
	return h;
}

static int same_name(const struct meas *m, const char *probe, const char *mode, const char *metric)
{
	return !strcmp(m->metric, metric) && !strcmp(m->mode, mode) && !strcmp(m->probe, probe);
}

/* The index's cell for a name: the run's latest entry of that name, or an
 * empty cell (-1).  Open addressing, at most half full: parsing stays
 * linear however many measurements a run has. */
static int *index_cell(struct run *r, const char *probe, const char *mode, const char *metric)
{
	unsigned i = name_hash(probe, mode, metric) & (r->hashcap - 1);

	while (r->hash[i] >= 0 && !same_name(&r->m[r->hash[i]], probe, mode, metric))
		i = (i + 1) & (r->hashcap - 1);
	return &r->hash[i];
}

/* The index of m[0..nm) in cap cells: each name's cell its latest entry,
 * each entry linked to the one of its name before it. */
static void index_build(struct run *r, int cap)
{
	free(r->hash);
	r->hash = malloc(cap * sizeof(*r->hash));
	if (!r->hash) {
		fprintf(stderr, "mmureport: out of memory\n");
		exit(3);
	}
	memset(r->hash, 0xff, cap * sizeof(*r->hash));
	r->hashcap = cap;
	for (int k = 0; k < r->nm; k++) {
		int *cell = index_cell(r, r->m[k].probe, r->m[k].mode, r->m[k].metric);
		r->m[k].prev = *cell;
		*cell = k;
	}
}

void run_reindex(struct run *r)
{
	if (r->hashcap)
		index_build(r, r->hashcap);
}

/* The entry a measurement or sample line fills: see report_read.h.  An
 * open entry (samples before their median) is always the name's latest. */
struct meas *meas_slot(struct run *r, const char *probe, const char *mode,
			      const char *metric, const char *unit)
{
	if (2 * (r->nm + 1) > r->hashcap)
		index_build(r, r->hashcap ? 2 * r->hashcap : 256);
	int *cell = index_cell(r, probe, mode, metric);
	if (*cell >= 0 && isnan(r->m[*cell].value))
		return &r->m[*cell];
	r->m = grow(r->m, &r->cap, r->nm + 1, sizeof(*r->m));
	struct meas *m = &r->m[r->nm];
	memset(m, 0, sizeof(*m));
	snprintf(m->probe, sizeof(m->probe), "%s", probe);
	snprintf(m->mode, sizeof(m->mode), "%s", mode);
	snprintf(m->metric, sizeof(m->metric), "%s", metric);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->value = NAN;
	m->prev = *cell;
	*cell = r->nm++;
	return m;
}

/* The first entry of the name with a value, through the index. */
const struct meas *run_find(const struct run *r, const char *probe, const char *mode,
			    const char *metric)
{
	const struct meas *found = 0;

	if (!r->hashcap)
		return 0;
	for (int k = *index_cell((struct run *)r, probe, mode, metric); k >= 0; k = r->m[k].prev)
		if (!isnan(r->m[k].value))
			found = &r->m[k];
	return found;
}

/* See report_read.h. */
void visible_copy(char *dst, size_t size, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)src;
	size_t n = 0;

	while (*p) {
		char out[5];
		size_t k = 0, len = 1;
		if (*p < 0x20 || *p == 0x7f) {
			out[k++] = '\\', out[k++] = 'x', out[k++] = hex[*p >> 4], out[k++] = hex[*p & 15];
		} else if (*p < 0x80) {
			out[k++] = *p;
		} else {
			len = *p >= 0xc2 && *p <= 0xdf ? 2 : *p >= 0xe0 && *p <= 0xef ? 3 :
			      *p >= 0xf0 && *p <= 0xf4 ? 4 : 0;
			for (size_t j = 1; j < len; j++)
				if ((p[j] & 0xc0) != 0x80)
					len = 0;
			if (len == 3 && ((*p == 0xe0 && p[1] < 0xa0) || (*p == 0xed && p[1] > 0x9f)))
				len = 0;	/* overlong, or a surrogate */
			if (len == 4 && ((*p == 0xf0 && p[1] < 0x90) || (*p == 0xf4 && p[1] > 0x8f)))
				len = 0;
			if (len)
				memcpy(out, p, len), k = len;
			else	/* U+FFFD for one bad byte */
				out[k++] = (char)0xef, out[k++] = (char)0xbf, out[k++] = (char)0xbd, len = 1;
		}
		if (n + k + 1 > size)
			break;
		memcpy(dst + n, out, k);
		n += k;
		p += len;
	}
	if (size)
		dst[n] = 0;
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
	for (int k = 0; k < r->nres; k++)
		free(r->res[k].reason), free(r->res[k].diag);
	free(r->res);
	free(r->diag);
	free(r->modes);
	free(r->hash);
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
