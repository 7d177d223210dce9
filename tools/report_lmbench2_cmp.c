/*
 * mmureport --lmbench: its inputs (LMbench 2.0 summaries and mmubench
 * logs, told apart by the summary's title), its table, and --compare
 * NUM/DEN NUM/DEN: the ratio of two rows of one side, column by column,
 * next to the ratio of two rows of the other (e.g. normal/pinned beside
 * nopintlb/2pintlb).  A side's rows are a mode (mmubench) or a host
 * (LMbench: its name, or the first characters of it, as LMbench cuts
 * hosts to 9), optionally after "SOURCE:" (a board's run label, or the
 * summary's label, "lmbench"); several rows give their median.  Where
 * mmubench rows' board counts kernel-page TLB misses for a column's
 * operation (kmisses[]), both sides' counts follow the ratios.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report_lmbench2.h"

static int selects(const struct lmb_row *r, const char *sel)
{
	const char *colon = strrchr(sel, ':'), *name = colon ? colon + 1 : sel;

	if (!name[0])
		return 0;
	if (colon && (strlen(r->source) != (size_t)(colon - sel) ||
		      strncmp(r->source, sel, colon - sel)))
		return 0;
	if (!r->lmbench)
		return !strcmp(r->os, name);
	return !strncmp(r->host, name, strlen(name)) ||
	       (strlen(r->host) == 9 && !strncmp(name, r->host, 9));
}

/* The rows a selector takes: all of one side.  Returns their number, or
 * -1 with a message when none or both sides match. */
static int pick(const struct lmb_table *t, const char *sel, int *rows)
{
	int n = 0, kinds = 0;

	for (int i = 0; i < t->n; i++)
		if (selects(&t->rows[i], sel)) {
			if (n == 256) {
				fprintf(stderr, "mmureport: --compare: '%s' selects more than 256 rows\n", sel);
				return -1;
			}
			rows[n++] = i;
			kinds |= t->rows[i].lmbench ? 1 : 2;
		}
	if (!n)
		fprintf(stderr, "mmureport: --compare: '%s' selects no row (a mode, an LMbench host, "
			"or SOURCE:NAME)\n", sel);
	else if (kinds == 3)
		fprintf(stderr, "mmureport: --compare: '%s' selects both LMbench and mmubench rows: "
			"say which, as SOURCE:%s\n", sel, sel);
	return !n || kinds == 3 ? -1 : n;
}

static double side_median(const struct lmb_table *t, const int *rows, int n, int sec, int col)
{
	double v[256];
	int k = 0;

	for (int i = 0; i < n && k < 256; i++)
		if (t->rows[rows[i]].cell[sec][col].state == LMB_VALUE)
			v[k++] = t->rows[rows[i]].cell[sec][col].value;
	return k ? median_of(v, k) : NAN;
}

struct ratio {
	char spec[64];
	int num[256], den[256], nn, nd;
};

static int parse_ratio(const struct lmb_table *t, const char *spec, struct ratio *r)
{
	const char *slash = strchr(spec, '/');
	char a[64];

	snprintf(r->spec, sizeof(r->spec), "%s", spec);
	if (!slash || slash == spec || !slash[1] || slash - spec >= (long)sizeof(a)) {
		fprintf(stderr, "mmureport: --compare: '%s' is not NUM/DEN\n", spec);
		return -1;
	}
	snprintf(a, sizeof(a), "%.*s", (int)(slash - spec), spec);
	r->nn = pick(t, a, r->num);
	r->nd = pick(t, slash + 1, r->den);
	return r->nn < 0 || r->nd < 0 ? -1 : 0;
}

static double ratio_of(const struct lmb_table *t, const struct ratio *r, int sec, int col)
{
	return side_median(t, r->num, r->nn, sec, col) / side_median(t, r->den, r->nd, sec, col);
}

/* The kernel-page TLB misses of a column's operation, where the board's
 * miss handler tells kernel pages: printed beside the ratio, they say why
 * one mode costs more.  <probe>.<mode>.<dtlb> and .<itlb>, over `over`. */
static const struct kmiss {
	int sec, col;
	const char *probe, *dtlb, *itlb, *over;
} kmisses[] = {
	{ LMB_PROC, 1, "trap", "null_kernel_dtlb_misses", "null_kernel_itlb_misses",
	  "64 null calls, less the same rounds without them" },
	{ LMB_PROC, 8, "fork", "fork_kernel_dtlb_misses", "fork_kernel_itlb_misses", "one fork" },
	{ LMB_PROC, 9, "exec", "exec_kernel_dtlb_misses", "exec_kernel_itlb_misses",
	  "one fork + exec" },
	{ LMB_FILEVM, 4, "mmap", "lat_mmap_kernel_dtlb_misses", "lat_mmap_kernel_itlb_misses",
	  "one lat_mmap, the mean of 64 in the steady state" },
	{ LMB_FILEVM, 6, "pagefault", "fault_kernel_dtlb_misses", "fault_kernel_itlb_misses",
	  "the faults of one run, less the run without them" },
	{ LMB_PROC, 7, "signal", "catch_op_kernel_dtlb_misses", "catch_op_kernel_itlb_misses",
	  "one signal caught" },
	{ LMB_FILEVM, 5, "signal", "prot_op_kernel_dtlb_misses", "prot_op_kernel_itlb_misses",
	  "one protection fault caught" },
	{ LMB_LAT, 1, "pipe", "pipe_round_kernel_dtlb_misses", "pipe_round_kernel_itlb_misses",
	  "one round trip" },
#define RING(sec, col, nk) { sec, col, "ctx", nk "_round_kernel_dtlb_misses", \
			     nk "_round_kernel_itlb_misses", "one round of the ring (N switches)" }
	RING(LMB_CTX, 0, "2p_0k"), RING(LMB_CTX, 1, "2p_16k"), RING(LMB_CTX, 2, "2p_64k"),
	RING(LMB_CTX, 3, "8p_16k"), RING(LMB_CTX, 4, "8p_64k"), RING(LMB_CTX, 5, "16p_16k"),
	RING(LMB_CTX, 6, "16p_64k"), RING(LMB_LAT, 0, "2p_0k"),
#undef RING
};

/* Whether an earlier shown row names the same counts (the latencies'
 * 2p/0K is the Context switching one): the note gives each once. */
static int said_before(size_t k, const int *shown)
{
	for (size_t j = 0; j < k; j++)
		if (shown[j] && !strcmp(kmisses[j].probe, kmisses[k].probe) &&
		    !strcmp(kmisses[j].dtlb, kmisses[k].dtlb))
			return 1;
	return 0;
}

static const struct kmiss *kmiss_of(int sec, int col)
{
	for (size_t k = 0; k < sizeof(kmisses) / sizeof(kmisses[0]); k++)
		if (kmisses[k].sec == sec && kmisses[k].col == col)
			return &kmisses[k];
	return 0;
}

/* One count over a row set, as the logs print it: "-" unless every row
 * (mmubench's) has it, a range "lo..hi" where they differ.  1 when found. */
static int side_count(const struct lmb_table *t, const int *rows, int n, const char *probe,
		      const char *metric, char *out, size_t size)
{
	const struct meas *lo = 0, *hi = 0;

	for (int i = 0; i < n; i++) {
		const struct lmb_row *r = &t->rows[rows[i]];
		const struct meas *m = r->run ? run_find(r->run, probe, r->os, metric) : 0;
		if (!m) {
			snprintf(out, size, "-");
			return 0;
		}
		lo = !lo || m->value < lo->value ? m : lo;
		hi = !hi || m->value > hi->value ? m : hi;
	}
	if (!lo)
		snprintf(out, size, "-");
	else if (lo->value == hi->value)
		snprintf(out, size, "%.*f", lo->decimals, lo->value);
	else
		snprintf(out, size, "%.*f..%.*f", lo->decimals, lo->value, hi->decimals, hi->value);
	return lo != 0;
}

/* "D/I vs D/I" for a ratio's column: 1 when any count was found. */
static int misses_cell(const struct lmb_table *t, const struct ratio *r, int sec, int col,
		       char *out, size_t size)
{
	const struct kmiss *k = kmiss_of(sec, col);
	char c[4][48];
	int any = 0;

	out[0] = 0;
	if (!k)
		return 0;
	any |= side_count(t, r->num, r->nn, k->probe, k->dtlb, c[0], sizeof(c[0]));
	any |= side_count(t, r->num, r->nn, k->probe, k->itlb, c[1], sizeof(c[1]));
	any |= side_count(t, r->den, r->nd, k->probe, k->dtlb, c[2], sizeof(c[2]));
	any |= side_count(t, r->den, r->nd, k->probe, k->itlb, c[3], sizeof(c[3]));
	if (any)
		snprintf(out, size, "%s/%s vs %s/%s", c[0], c[1], c[2], c[3]);
	return any;
}

/* Does any shown column of this ratio have counts? */
static int has_misses(const struct lmb_table *t, const struct ratio *r)
{
	char cell[200];

	for (size_t k = 0; k < sizeof(kmisses) / sizeof(kmisses[0]); k++)
		if (misses_cell(t, r, kmisses[k].sec, kmisses[k].col, cell, sizeof(cell)))
			return 1;
	return 0;
}

/* The head of a ratio's misses column: "kernel D/I misses NUM vs DEN". */
static void misses_head(const char *spec, char *out, size_t size)
{
	const char *slash = strchr(spec, '/');

	snprintf(out, size, "kernel D/I misses %.*s vs %s", (int)(slash - spec), spec, slash + 1);
}

int lmb_compare(FILE *f, const struct lmb_table *t, const char *a, const char *b)
{
	static struct ratio ra, rb;
	char name[32], cell[2][16], miss[2][200], head[2][160];
	int lines = 0, shown[sizeof(kmisses) / sizeof(kmisses[0])] = { 0 };

	if (parse_ratio(t, a, &ra) < 0 || parse_ratio(t, b, &rb) < 0)
		return -1;
	fprintf(f, "\nRatios, column by column (medians of each row set): %s (%d / %d rows) "
		"beside %s (%d / %d rows)\n", a, ra.nn, ra.nd, b, rb.nn, rb.nd);
	int wa = strlen(a) > 16 ? (int)strlen(a) : 16, wb = strlen(b) > 16 ? (int)strlen(b) : 16;
	int ma = has_misses(t, &ra), mb = has_misses(t, &rb), wm = 0;

	/* a column of kernel-page misses after the ratios for each ratio that has them */
	misses_head(a, head[0], sizeof(head[0]));
	misses_head(b, head[1], sizeof(head[1]));
	if (ma && mb) {				/* the first one padded: the second follows */
		wm = strlen(head[0]);
		for (size_t k = 0; k < sizeof(kmisses) / sizeof(kmisses[0]); k++)
			if (misses_cell(t, &ra, kmisses[k].sec, kmisses[k].col, miss[0], sizeof(miss[0])) &&
			    (int)strlen(miss[0]) > wm)
				wm = strlen(miss[0]);
	}
	fprintf(f, "%-32s %-16s %*s %*s", "Section", "Column", wa, a, wb, b);
	if (ma)
		fprintf(f, "  %-*s", wm, head[0]);
	if (mb)
		fprintf(f, "  %s", head[1]);
	fputc('\n', f);
	for (int s = 0; s < LMB_SECTIONS; s++) {
		const struct lmb_section *sd = &lmb_sections[s];
		char title[64];
		lmb_short_title(s, title, sizeof(title));
		for (int c = 0; c < sd->ncols - sd->text_last * (s != LMB_BASIC); c++) {
			double x = ratio_of(t, &ra, s, c), y = ratio_of(t, &rb, s, c);
			if (s == LMB_BASIC && c == 0)
				continue;		/* Description */
			if (!isfinite(x) && !isfinite(y))
				continue;
			for (int k = 0; k < 2; k++)
				if (isfinite(k ? y : x))
					snprintf(cell[k], sizeof(cell[k]), "%.3f", k ? y : x);
				else
					cell[k][0] = 0;
			int got = misses_cell(t, &ra, s, c, miss[0], sizeof(miss[0])) |
				  misses_cell(t, &rb, s, c, miss[1], sizeof(miss[1]));
			if (got)
				shown[kmiss_of(s, c) - kmisses] = 1;
			lmb_col_name(s, c, name, sizeof(name));
			fprintf(f, "%-32s %-16s %*s %*s", title, name, wa, cell[0], wb, cell[1]);
			if (ma && (miss[0][0] || (mb && miss[1][0])))
				fprintf(f, "  %-*s", mb && miss[1][0] ? wm : 0, miss[0]);
			if (mb && miss[1][0])
				fprintf(f, "  %s", miss[1]);
			fputc('\n', f);
			lines++;
		}
	}
	if (!lines)
		fprintf(f, "(no column has figures in both row sets of either ratio)\n");
	if (ma || mb) {
		fprintf(f, "kernel D/I misses: the data and instruction TLB misses on kernel pages of "
			"the column's operation,\n  counted exactly by the board's miss handler, as the "
			"logs print them (NUM's vs DEN's; lo..hi\n  where a set's rows differ; - where a "
			"row has none):\n");
		for (size_t k = 0; k < sizeof(kmisses) / sizeof(kmisses[0]); k++)
			if (shown[k] && !said_before(k, shown)) {
				lmb_col_name(kmisses[k].sec, kmisses[k].col, name, sizeof(name));
				fprintf(f, "  %s: %s.<mode>.%s, %s: %s\n", name, kmisses[k].probe,
					kmisses[k].dtlb, kmisses[k].itlb, kmisses[k].over);
			}
	}
	return 0;
}

/* ---- the command ---- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 1 << 16, got;
	char *buf = malloc(cap);

	*len = 0;
	if (!f || !buf) {
		fprintf(stderr, "mmureport: %s: cannot read\n", path);
		free(buf);
		return 0;
	}
	while ((got = fread(buf + *len, 1, cap - *len, f)) > 0)
		if ((*len += got) == cap && !(buf = realloc(buf, cap *= 2))) {
			fprintf(stderr, "mmureport: %s: out of memory\n", path);
			exit(3);
		}
	if (ferror(f) || !*len) {
		fprintf(stderr, "mmureport: %s: %s\n", path, *len ? "read error" : "empty: not a log");
		free(buf), buf = 0;
	}
	if (f != stdin)
		fclose(f);
	return buf;
}

static int read_all(const char **files, int nfiles, struct lmb_table *t, struct report *rep)
{
	char **buf = calloc(nfiles + 1, sizeof(*buf));
	size_t *len = calloc(nfiles + 1, sizeof(*len));
	int errors = 0, summaries = 0, nth = 0;
	char date[16], label[64];
	time_t now = time(0);

	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
	if (!buf || !len)
		exit(3);
	for (int i = 0; i < nfiles; i++)
		summaries += (buf[i] = slurp(files[i], &len[i])) && lmb_is_summary(buf[i], len[i]);
	for (int i = 0; i < nfiles; i++) {
		int first = rep->nruns;
		if (!buf[i])
			errors++;
		else if (lmb_is_summary(buf[i], len[i])) {
			snprintf(label, sizeof(label), summaries > 1 ? "lmbench-%d" : "lmbench", ++nth);
			errors += lmb_read_summary(t, files[i], label, buf[i], len[i]) < 0;
		} else
			errors += report_read_buffer(rep, files[i], buf[i], len[i], date) < 0;
		for (int k = first; k < rep->nruns; k++)
			rep->runs[k].index = k + 1;
		free(buf[i]);
	}
	free(buf);
	free(len);
	report_label(rep);
	return errors;
}

int lmbench_main(const char **files, int nfiles, const char *(*cmp)[2], int ncmp,
		 int strict, const char *json)
{
	static struct report rep;
	static struct lmb_table t;
	char *text = 0;
	size_t len = 0;
	int errors = read_all(files, nfiles, &t, &rep);

	if (errors) {
		fprintf(stderr, "mmureport: %d input(s) not usable: no report written\n", errors);
		return 2;
	}
	if (rep.losses) {
		fprintf(stderr, "mmureport: %d line(s) lost or garbled (named above); no value from a "
			"garbled line is used%s\n", rep.losses, strict ? "; --strict: no report written" : "");
		if (strict)
			return 1;
	}
	lmb_add_runs(&t, &rep);
	FILE *m = open_memstream(&text, &len);	/* a bad side is an error before any output */
	if (!m)
		return 3;
	for (int i = 0; i < ncmp; i++)
		if (lmb_compare(m, &t, cmp[i][0], cmp[i][1]) < 0)
			return 3;
	fclose(m);
	lmb_print(stdout, &t, &rep);
	fputs(text, stdout);
	free(text);
	FILE *j = !json ? 0 : strcmp(json, "-") ? fopen(json, "w") : stdout;	/* "-": after the table */
	if (json && (!j || (lmb_write_json(j, &t), j == stdout ? fflush(j) : fclose(j)))) {
		fprintf(stderr, "mmureport: %s: cannot write the table's JSON\n", json);
		return 3;
	}
	lmb_free(&t);
	report_free(&rep);
	return fflush(stdout) ? 3 : 0;
}
