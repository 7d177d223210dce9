/*
 * mmureport's text outputs: the LMbench-style tables (the image's own
 * sections and columns, include/table_defs.h), CSV and JSON (comparisons:
 * report_compare.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmureport.h"
#include "table_defs.h"

/* ---- the tables ---- */

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

/* ---- a comparison's sides ---- */

static int token_matches_run(const struct run *r, const char *tok)
{
	const char *base = strrchr(r->file, '/');
	char idx[16];

	snprintf(idx, sizeof(idx), "#%d", r->index);
	return !strcmp(tok, r->board) || !strcmp(tok, r->label) || !strcmp(tok, r->file) ||
	       (base && !strcmp(tok, base + 1)) || !strcmp(tok, idx);
}

/* A side: "MODE", "BOARD", "RUN" (label, file, #N) or "RUN:MODE". */
int select_rows(const struct report *rep, const char *spec, struct row *rows, int max)
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

int distinct_modes(const struct row *rows, int n)
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

/* Did the probe give any figure on this side (in this mode, where given)? */
int probe_ran(const struct row *rows, int n, const char *mode, const char *probe)
{
	for (int i = 0; i < n; i++) {
		const struct run *r = rows[i].run;
		if (mode && strcmp(rows[i].mode, mode))
			continue;
		for (int k = 0; k < r->nm; k++)
			if (!isnan(r->m[k].value) && !strcmp(r->m[k].mode, rows[i].mode) &&
			    !strcmp(r->m[k].probe, probe))
				return 1;
	}
	return 0;
}

int side_lost_lines(const struct row *rows, int n)
{
	for (int i = 0; i < n; i++)
		if (rows[i].run->losses)
			return 1;
	return 0;
}

/* "A from: <platform>[; <platform>...]": where a side's figures come from. */
void sides_from(FILE *f, const char *which, const struct row *s, int n)
{
	fprintf(f, "%s from: ", which);
	for (int i = 0, listed = 0; i < n; i++) {
		int seen = 0;
		for (int j = 0; j < i; j++)
			seen |= !strcmp(s[j].run->platform, s[i].run->platform);
		if (!seen)
			fprintf(f, "%s%s", listed++ ? "; " : "",
				s[i].run->platform[0] ? s[i].run->platform : "platform unknown");
	}
	fprintf(f, "\n");
}

/* ---- CSV and JSON ---- */

void json_str(FILE *f, const char *s)
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

void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.10g", v);
	else
		fprintf(f, "null");
}

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

/* Counts the image prints only where something counts them (boot/run.c's
 * run-loop counters; the spaces probe's per kind of switch).  Where a
 * probe and mode have the group's anchor (or, without one, any member),
 * the members absent from the log are null in the CSV and JSON: no
 * counter counted them there (or, in a run with lost lines, their line
 * was lost) -- never a 0. */
static const struct {
	const char *probe, *anchor, *names[7];
} counted[] = {
	{ 0, 0, { "dtlb_misses", "itlb_misses", "page_faults", "prot_faults", "tlb_writes",
		  "flushes" } },
	{ "spaces", "flush_switch_ns", { "flush_switch_flushes", "flush_switch_dtlb_misses" } },
	{ "spaces", "tagged_switch_ns", { "tagged_switch_flushes", "tagged_switch_dtlb_misses" } },
};

int is_counter(const char *probe, const char *metric)
{
	for (unsigned g = 0; g < sizeof(counted) / sizeof(counted[0]); g++)
		for (int c = 0; (!counted[g].probe || !strcmp(counted[g].probe, probe)) &&
				counted[g].names[c]; c++)
			if (!strcmp(counted[g].names[c], metric))
				return 1;
	return 0;
}

/* After measurement k, if it is the last of its probe and mode: the
 * counts absent there (names into out, at most 16); their number. */
static int absent_counts(const struct run *r, int k, const char **out)
{
	const struct meas *m = &r->m[k];
	int n = 0;

	if (r->lmbench)
		return 0;
	for (int q = k + 1; q < r->nm; q++)
		if (!isnan(r->m[q].value) && !strcmp(r->m[q].probe, m->probe) &&
		    !strcmp(r->m[q].mode, m->mode))
			return 0;
	for (unsigned g = 0; g < sizeof(counted) / sizeof(counted[0]); g++) {
		int any = 0, first = n;
		if (counted[g].probe && strcmp(counted[g].probe, m->probe))
			continue;
		if (counted[g].anchor)
			any = run_find(r, m->probe, m->mode, counted[g].anchor) != 0;
		for (int c = 0; counted[g].names[c]; c++) {
			if (run_find(r, m->probe, m->mode, counted[g].names[c]))
				any = 1;
			else if (n < 16)
				out[n++] = counted[g].names[c];
		}
		if (!any)
			n = first;
	}
	return n;
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
			const char *absent[16];
			for (int a = 0, na = absent_counts(r, k, absent); a < na; a++) {
				fprintf(f, "%d,", r->index);
				for (unsigned j = 0; j < sizeof(fields) / sizeof(fields[0]) - 1; j++) {
					csv_field(f, fields[j]);
					fputc(',', f);
				}
				fprintf(f, "%s,,count,,\n", absent[a]);	/* value null */
			}
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
			const char *absent[16];
			for (int a = 0, na = absent_counts(r, k, absent); a < na; a++) {
				fprintf(f, ",\n   {\"probe\": ");
				json_str(f, m->probe);
				fprintf(f, ", \"mode\": ");
				json_str(f, m->mode);
				fprintf(f, ", \"metric\": \"%s\", \"value\": null, \"unit\": \"count\", "
					"\"line\": null, \"samples\": []}", absent[a]);
			}
		}
		fprintf(f, "]}");
	}
	fprintf(f, "]");
}
