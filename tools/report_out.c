/*
 * mmureport's text outputs: the LMbench-style tables (the image's own
 * sections and columns, include/table_defs.h), comparisons, CSV and JSON.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmureport.h"
#include "table_defs.h"

#define ALPHA 0.05

/* ---- the tables ---- */

/* A configuration: board, platform and the run line (probes, modes, reps,
 * quick): runs of one configuration go on consecutive rows. */
static int same_config(const struct run *a, const struct run *b)
{
	return !strcmp(a->board, b->board) && !strcmp(a->platform, b->platform) &&
	       !strcmp(a->args, b->args);
}

struct row {
	const struct run *run;
	const char *mode;
};

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
		const char *modes[64];
		int nmodes = 0;
		for (int j = i; j < rep->nruns; j++) {
			if (!same_config(first, &rep->runs[j]))
				continue;
			for (int k = 0; k < rep->runs[j].nmodes; k++) {
				int seen = 0;
				for (int q = 0; q < nmodes; q++)
					seen |= !strcmp(modes[q], rep->runs[j].modes[k]);
				if (!seen && nmodes < 64)
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

static void print_table(FILE *f, const struct report *rep, const struct table *t,
			const struct row *rows, int nrows)
{
	char line[400], dash[200];
	int n, any = 0, runcol = rep->nruns > 1;

	for (int i = 0; i < nrows; i++)
		any |= row_has_any(&rows[i], t);
	if (!any)
		return;

	n = fprintf(f, "%s\n", t->title) - 1;
	memset(dash, '-', n);
	dash[n] = 0;
	fprintf(f, "%s\n", dash);
	/* Where the figures come from: one platform, or each run's. */
	n = snprintf(line, sizeof(line), "Figures from: ");
	for (int i = 0, listed = 0; i < rep->nruns; i++) {
		const struct run *r = &rep->runs[i];
		int seen = 0;
		for (int j = 0; j < i; j++)
			seen |= !strcmp(rep->runs[j].platform, r->platform);
		if (seen)
			continue;
		if (listed++)
			n += snprintf(line + n, sizeof(line) - n, "; ");
		if (n < (int)sizeof(line))
			n += snprintf(line + n, sizeof(line) - n, "%s", r->platform);
	}
	fprintf(f, "%s\n", line);

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
	for (int i = 0; i < nrows; i++) {
		const struct run *r = rows[i].run;
		if (r->lmbench && !row_has_any(&rows[i], t))
			continue;
		n = sprintf(line, "%-9.9s %-9.9s", r->board, rows[i].mode);
		if (runcol)
			n += sprintf(line + n, " %-3d", r->index);
		for (const struct column *c = t->cols; c->probe; c++) {
			char cell[32] = "";
			const struct meas *m = run_find(r, c->probe, rows[i].mode, c->metric);
			const char *word = m && !m->decimals ? table_word(c, llround(m->value)) : 0;
			if (word)			/* a kind */
				snprintf(cell, sizeof(cell), "%s", word);
			else if (m)
				cell_text(cell, sizeof(cell), m, c->in_us);
			pad(line, &n, c->width, cell);
		}
		fprintf(f, "%s\n", line);
	}
	fprintf(f, "\n");
}

void print_tables(FILE *f, const struct report *rep)
{
	struct row rows[512];
	int n = table_rows(rep, rows, 512);

	if (rep->nruns > 1) {
		fprintf(f, "Runs\n----\n");
		for (int i = 0; i < rep->nruns; i++) {
			const struct run *r = &rep->runs[i];
			fprintf(f, "%3d  %-9s %s%s%s (%s, reps=%d)%s\n", r->index, r->board, r->file,
				r->cpu[0] ? ": " : "", r->cpu, r->platform, r->reps,
				r->losses ? "  [lines lost or garbled]" : "");
		}
		fprintf(f, "\n");
	}
	for (const struct table *t = report_table_defs; t->title; t++)
		print_table(f, rep, t, rows, n);
}

/* ---- comparisons ---- */

static int token_matches_run(const struct run *r, const char *tok)
{
	const char *base = strrchr(r->file, '/');
	char idx[16];

	snprintf(idx, sizeof(idx), "#%d", r->index);
	return !strcmp(tok, r->board) || !strcmp(tok, r->label) || !strcmp(tok, r->file) ||
	       (base && !strcmp(tok, base + 1)) || !strcmp(tok, idx);
}

/* A side: "MODE", "BOARD", "RUN" (label, file, #N) or "RUN:MODE". */
static int select_rows(const struct report *rep, const char *spec, struct row *rows, int max)
{
	char run_tok[256] = "", mode_tok[64] = "";
	const char *colon = strrchr(spec, ':');
	int n = 0;

	if (colon) {
		snprintf(run_tok, sizeof(run_tok), "%.*s", (int)(colon - spec), spec);
		snprintf(mode_tok, sizeof(mode_tok), "%s", colon + 1);
	}
	for (int i = 0; i < rep->nruns; i++) {
		const struct run *r = &rep->runs[i];
		for (int k = 0; k < r->nmodes; k++) {
			int ok = colon ? token_matches_run(r, run_tok) && !strcmp(mode_tok, r->modes[k])
				       : !strcmp(spec, r->modes[k]) || token_matches_run(r, spec);
			if (ok && n < max) {
				rows[n].run = r;
				rows[n].mode = r->modes[k];
				n++;
			}
		}
	}
	return n;
}

static int distinct_modes(const struct row *rows, int n)
{
	int d = 0;
	for (int i = 0; i < n; i++) {
		int seen = 0;
		for (int j = 0; j < i; j++)
			seen |= !strcmp(rows[j].mode, rows[i].mode);
		d += !seen;
	}
	return d;
}

/* The observations of one metric on one side: every repetition's sample
 * where the log has them (reps > 1), else each run's figure. */
static int observations(const struct row *rows, int n, const char *mode, const char *probe,
			const char *metric, double **out, const char **unit)
{
	int k = 0, cap = 16;
	double *v = malloc(cap * sizeof(double));

	for (int i = 0; i < n; i++) {
		if (mode && strcmp(rows[i].mode, mode))
			continue;
		const struct meas *m = run_find(rows[i].run, probe, rows[i].mode, metric);
		if (!m)
			continue;
		*unit = m->unit;
		int add = m->nsamples ? m->nsamples : 1;
		if (k + add > cap) {
			cap = (k + add) * 2;
			v = realloc(v, cap * sizeof(double));
		}
		if (m->nsamples)
			memcpy(v + k, m->samples, m->nsamples * sizeof(double));
		else
			v[k] = m->value;
		k += add;
	}
	*out = v;
	return k;
}

/* Smaller is better for times and counts of trouble, bigger for MB/s. */
static int better_when_lower(const char *unit, const char *metric)
{
	if (!strcmp(unit, "MB/s") || !strcmp(unit, "MHz"))
		return 0;
	if (!strcmp(unit, "ns") || !strcmp(unit, "us") || !strcmp(unit, "cycles") ||
	    strstr(metric, "misses") || strstr(metric, "faults") || strstr(metric, "flushes"))
		return 1;
	return -1;		/* no direction: sizes, counts, ticks, percent */
}

/* The fewest repetitions on each side (equal numbers) that can reach ALPHA. */
static int needed_reps(void)
{
	static const double a[] = { 0 }, b[] = { 1 };
	for (int k = 2; k < 20; k++) {
		double x[20], y[20];
		struct mwu t;
		for (int i = 0; i < k; i++)
			x[i] = i, y[i] = 100 + i;
		mann_whitney(x, k, y, k, &t);
		if (t.p_min <= ALPHA)
			return k;
	}
	(void)a, (void)b;
	return 20;
}

static void verdict(char *buf, size_t size, const struct mwu *t, double ma, double mb,
		    const char *unit, const char *metric, const char *an, const char *bn)
{
	int lower = better_when_lower(unit, metric);

	if (t->n1 < 2 || t->n2 < 2 || t->p_min > ALPHA) {
		snprintf(buf, size, "too few repetitions for a verdict (%d and %d; %d each can show p<%.2f)",
			 t->n1, t->n2, needed_reps(), ALPHA);
	} else if (t->p < 0) {
		snprintf(buf, size, "the same in every repetition: no noise, no difference");
	} else if (t->p < ALPHA) {
		const char *dir = mb > ma ? "higher" : mb < ma ? "lower" : "different";
		const char *judge = lower < 0 || mb == ma ? "" :
				    (mb < ma) == (lower == 1) ? " (better)" : " (worse)";
		snprintf(buf, size, "%s is %s than %s%s, beyond the run-to-run noise (p=%.3g)", bn,
			 dir, an, judge, t->p);
	} else {
		snprintf(buf, size, "no difference beyond the run-to-run noise (p=%.2g)", t->p);
	}
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.10g", v);
	else
		fprintf(f, "null");
}

int print_compare(FILE *f, FILE *json, const struct report *rep, const char *an, const char *bn)
{
	struct row a[512], b[512];
	int na = select_rows(rep, an, a, 512), nb = select_rows(rep, bn, b, 512);
	int by_mode, first = 1;

	for (int s = 0; s < 2; s++)
		if (!(s ? nb : na)) {
			fprintf(stderr, "mmureport: --compare: '%s' names no mode, board or run of the input "
				"(a side is MODE, BOARD, RUN or RUN:MODE; RUN a board-N label, a file or #N)\n",
				s ? bn : an);
			return -1;
		}
	/* One mode a side: compare the metrics across them.  Several (two
	 * boards, two runs): mode by mode, the modes both have. */
	by_mode = distinct_modes(a, na) > 1 || distinct_modes(b, nb) > 1;

	fprintf(f, "Comparison: A = %s, B = %s (Mann-Whitney U over the repetitions, two-sided, alpha %.2f)\n",
		an, bn, ALPHA);
	fprintf(f, "%-44s %-12s %12s %12s %8s %12s %3s %3s %8s  %s\n", "metric", "unit", "A median",
		"B median", "B/A", "B-A", "nA", "nB", "p", "verdict");
	if (json) {
		fprintf(json, "{\"a\": ");
		json_str(json, an);
		fprintf(json, ", \"b\": ");
		json_str(json, bn);
		fprintf(json, ", \"alpha\": %.2f, \"metrics\": [", ALPHA);
	}
	int shown = 0;
	for (int i = 0; i < na; i++) {
		const struct run *r = a[i].run;
		for (int k = 0; k < r->nm; k++) {
			const struct meas *m = &r->m[k];
			double x;
			char pfx[48], name[96], words[160];
			const char *unit = m->unit;

			if (strcmp(m->mode, a[i].mode) || isnan(m->value) ||
			    curve_point(m->metric, &x, pfx, sizeof(pfx)))
				continue;
			/* Once per metric (and mode): at its first row on side A. */
			int dup = 0;
			for (int j = 0; j < i && !dup; j++)
				if ((!by_mode || !strcmp(a[j].mode, m->mode)) &&
				    run_find(a[j].run, m->probe, a[j].mode, m->metric))
					dup = 1;
			for (int q = 0; q < k && !dup; q++)
				dup = !strcmp(r->m[q].probe, m->probe) && !strcmp(r->m[q].metric, m->metric) &&
				      !strcmp(r->m[q].mode, m->mode) && !isnan(r->m[q].value);
			if (dup)
				continue;
			double *va, *vb;
			int n1 = observations(a, na, by_mode ? m->mode : 0, m->probe, m->metric, &va, &unit);
			int n2 = observations(b, nb, by_mode ? m->mode : 0, m->probe, m->metric, &vb, &unit);
			if (!n1 || !n2) {
				free(va), free(vb);
				continue;
			}
			struct mwu t;
			mann_whitney(va, n1, vb, n2, &t);
			double ma = median_of(va, n1), mb = median_of(vb, n2);
			double ratio = ma != 0 ? mb / ma : NAN;
			verdict(words, sizeof(words), &t, ma, mb, unit, m->metric, "A", "B");
			if (by_mode)
				snprintf(name, sizeof(name), "%s.%s.%s", m->probe, m->mode, m->metric);
			else
				snprintf(name, sizeof(name), "%s.%s", m->probe, m->metric);
			char p[16] = "-";
			if (t.p >= 0 && t.p_min <= ALPHA)
				snprintf(p, sizeof(p), "%.3g", t.p);
			char rt[16] = "-";
			if (isfinite(ratio))
				snprintf(rt, sizeof(rt), "%.4g", ratio);
			fprintf(f, "%-44s %-12s %12.*f %12.*f %8s %12.*f %3d %3d %8s  %s\n", name, unit,
				m->decimals, ma, m->decimals, mb, rt, m->decimals, mb - ma, n1, n2, p, words);
			if (json) {
				fprintf(json, "%s\n  {\"metric\": ", first ? "" : ",");
				json_str(json, name);
				fprintf(json, ", \"unit\": ");
				json_str(json, unit);
				fprintf(json, ", \"a_median\": ");
				json_num(json, ma);
				fprintf(json, ", \"b_median\": ");
				json_num(json, mb);
				fprintf(json, ", \"ratio\": ");
				json_num(json, ratio);
				fprintf(json, ", \"difference\": ");
				json_num(json, mb - ma);
				fprintf(json, ", \"n_a\": %d, \"n_b\": %d, \"u\": ", n1, n2);
				json_num(json, t.u);
				fprintf(json, ", \"p\": ");
				json_num(json, t.p >= 0 ? t.p : NAN);
				fprintf(json, ", \"method\": \"%s\", \"verdict\": ", t.p < 0 ? "none" :
					t.exact ? "exact" : "normal");
				json_str(json, words);
				fprintf(json, "}");
				first = 0;
			}
			shown++;
			free(va), free(vb);
		}
	}
	if (json)
		fprintf(json, "]}");
	if (!shown) {
		fprintf(stderr, "mmureport: --compare %s %s: no metric in common%s\n", an, bn,
			by_mode ? " (mode by mode: name one mode a side as RUN:MODE)" : "");
		return -1;
	}
	fprintf(f, "\n");
	return 0;
}

/* ---- CSV and JSON ---- */

static void csv_field(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\n")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else
		fputs(s, f);
}

int write_csv(FILE *f, const struct report *rep)
{
	fprintf(f, "run,label,file,board,cpu,platform,date,mode,probe,metric,value,unit,line,samples\n");
	for (int i = 0; i < rep->nruns; i++) {
		const struct run *r = &rep->runs[i];
		for (int k = 0; k < r->nm; k++) {
			const struct meas *m = &r->m[k];
			if (isnan(m->value))
				continue;
			fprintf(f, "%d,", r->index);
			const char *fields[] = { r->label, r->file, r->board, r->cpu, r->platform, r->date,
						 m->mode, m->probe, m->metric };
			for (unsigned j = 0; j < sizeof(fields) / sizeof(fields[0]); j++) {
				csv_field(f, fields[j]);
				fputc(',', f);
			}
			fprintf(f, "%.*f,", m->decimals, m->value);
			csv_field(f, m->unit);
			fprintf(f, ",%lu,", m->line);
			for (int s = 0; s < m->nsamples; s++)
				fprintf(f, "%s%.*f", s ? ";" : "", m->decimals, m->samples[s]);
			fputc('\n', f);
		}
	}
	return 0;
}

void write_json_runs(FILE *f, const struct report *rep)
{
	fprintf(f, "\"runs\": [");
	for (int i = 0; i < rep->nruns; i++) {
		const struct run *r = &rep->runs[i];
		fprintf(f, "%s\n {\"run\": %d, \"label\": ", i ? "," : "", r->index);
		json_str(f, r->label);
		const char *keys[] = { "file", "board", "arch", "version", "cpu", "platform", "args",
				       "date", "status" };
		const char *vals[] = { r->file, r->board, r->arch, r->version, r->cpu, r->platform,
				       r->args, r->date, r->status };
		for (unsigned j = 0; j < sizeof(keys) / sizeof(keys[0]); j++) {
			fprintf(f, ", \"%s\": ", keys[j]);
			json_str(f, vals[j]);
		}
		fprintf(f, ", \"source\": \"%s\", \"reps\": %d, \"lines_lost_or_garbled\": %d, \"modes\": [",
			r->lmbench ? "lmbench" : "mmubench", r->reps, r->losses);
		for (int k = 0; k < r->nmodes; k++) {
			fprintf(f, "%s", k ? ", " : "");
			json_str(f, r->modes[k]);
		}
		fprintf(f, "],\n  \"results\": [");
		for (int k = 0; k < r->nres; k++) {
			fprintf(f, "%s{\"name\": ", k ? ", " : "");
			json_str(f, r->res[k].name);
			fprintf(f, ", \"result\": ");
			json_str(f, r->res[k].verdict);
			fprintf(f, "}");
		}
		fprintf(f, "],\n  \"measurements\": [");
		int first = 1;
		for (int k = 0; k < r->nm; k++) {
			const struct meas *m = &r->m[k];
			if (isnan(m->value))
				continue;
			fprintf(f, "%s\n   {\"probe\": ", first ? "" : ",");
			json_str(f, m->probe);
			fprintf(f, ", \"mode\": ");
			json_str(f, m->mode);
			fprintf(f, ", \"metric\": ");
			json_str(f, m->metric);
			fprintf(f, ", \"value\": ");
			json_num(f, m->value);
			fprintf(f, ", \"unit\": ");
			json_str(f, m->unit);
			const char *word = m->decimals ? 0 :
				table_metric_word(m->probe, m->metric, llround(m->value));
			if (word) {			/* a kind: its word too */
				fprintf(f, ", \"word\": ");
				json_str(f, word);
			}
			fprintf(f, ", \"line\": %lu, \"samples\": [", m->line);
			for (int s = 0; s < m->nsamples; s++) {
				fprintf(f, "%s", s ? ", " : "");
				json_num(f, m->samples[s]);
			}
			fprintf(f, "]}");
			first = 0;
		}
		fprintf(f, "]}");
	}
	fprintf(f, "]");
}
