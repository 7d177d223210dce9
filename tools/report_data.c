/*
 * mmureport's model as JSON (tools/report/ writes CSV, JSON, plots and the
 * page from it): one object per measurement, with its samples, its
 * decimals as printed and its line in the log; a count the image did not
 * print where its group was counted is null, never a 0.  A run cut short
 * says so (partial).  Comparisons' JSON: report_compare.c.  Strings are
 * already visible text (visible_copy): valid UTF-8, no control character.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmureport.h"
#include "report_read.h"
#include "table_defs.h"

/* Any string, as visible_copy shows it, its newlines kept (messages, the
 * Runs block): the model is always valid UTF-8 JSON, whatever reached it
 * (a command line's bytes too). */
void json_str(FILE *f, const char *s)
{
	size_t size = 4 * strlen(s) + 1;
	char *line = malloc(size), *v = malloc(size);

	if (!line || !v)
		exit(3);
	fputc('"', f);
	for (;;) {
		size_t n = strcspn(s, "\n");
		memcpy(line, s, n);
		line[n] = 0;
		visible_copy(v, size, line);
		for (const char *p = v; *p; p++) {
			if (*p == '"' || *p == '\\')
				fputc('\\', f);
			fputc(*p, f);
		}
		if (!s[n])
			break;
		fputs("\\n", f);
		s += n + 1;
	}
	fputc('"', f);
	free(line);
	free(v);
}

/* A figure as the log printed it (its decimals): the model keeps it exact. */
static void json_fixed(FILE *f, double v, int decimals)
{
	if (isfinite(v))
		fprintf(f, "%.*f", decimals, v);
	else
		fprintf(f, "null");
}

void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.10g", v);
	else
		fprintf(f, "null");
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

/* One measurement, then the counts absent after it (absent_counts). */
static void json_measurement(FILE *f, const struct run *r, int k, int first)
{
	const struct meas *m = &r->m[k];
	const char *word = m->decimals ? 0 : table_metric_word(m->probe, m->metric, llround(m->value));
	const char *absent[16];

	fprintf(f, "%s\n   {\"probe\": ", first ? "" : ",");
	json_str(f, m->probe);
	fprintf(f, ", \"mode\": ");
	json_str(f, m->mode);
	fprintf(f, ", \"metric\": ");
	json_str(f, m->metric);
	fprintf(f, ", \"value\": ");
	json_fixed(f, m->value, m->decimals);
	fprintf(f, ", \"unit\": ");
	json_str(f, m->unit);
	if (word) {			/* a kind: its word too */
		fprintf(f, ", \"word\": ");
		json_str(f, word);
	}
	fprintf(f, ", \"decimals\": %d, \"line\": %lu, \"samples\": [", m->decimals, m->line);
	for (int s = 0; s < m->nsamples; s++) {
		fprintf(f, "%s", s ? ", " : "");
		json_fixed(f, m->samples[s], m->decimals);
	}
	fprintf(f, "]}");
	for (int a = 0, na = absent_counts(r, k, absent); a < na; a++) {
		fprintf(f, ",\n   {\"probe\": ");
		json_str(f, m->probe);
		fprintf(f, ", \"mode\": ");
		json_str(f, m->mode);
		fprintf(f, ", \"metric\": \"%s\", \"value\": null, \"unit\": \"count\", "
			"\"line\": null, \"samples\": []}", absent[a]);
	}
}

/* Lines ending in '\n' (a run's or a result's diagnostics) as an array. */
static void json_lines(FILE *f, const char *s)
{
	fputc('[', f);
	for (int first = 1; s && *s; first = 0) {
		size_t n = strcspn(s, "\n");
		char *line = strndup(s, n);
		if (!line)
			exit(3);
		fprintf(f, "%s", first ? "" : ", ");
		json_str(f, line);
		free(line);
		s += n + (s[n] != 0);
	}
	fputc(']', f);
}

/* A run's header fields, its modes and its results. */
static void json_run_head(FILE *f, const struct run *r)
{
	const char *keys[] = { "file", "board", "arch", "version", "cpu", "platform", "args",
			       "date", "status", "timing" };
	const char *vals[] = { r->file, r->board, r->arch, r->version, r->cpu, r->platform,
			       r->args, r->date, r->status, r->timing };

	fprintf(f, "{\"run\": %d, \"label\": ", r->index);
	json_str(f, r->label);
	for (unsigned j = 0; j < sizeof(keys) / sizeof(keys[0]); j++) {
		fprintf(f, ", \"%s\": ", keys[j]);
		json_str(f, vals[j]);
	}
	fprintf(f, ", \"source\": \"%s\", \"reps\": %d, \"lines_lost_or_garbled\": %d, ",
		r->lmbench ? "lmbench" : "mmubench", r->reps, r->losses);
	/* Cut short: what it holds up to break_line, no more. */
	if (r->partial)
		fprintf(f, "\"partial\": true, \"break_line\": %lu, \"break_reason\": \"%s\", "
			"\"modes\": [", r->break_line, r->partial == 1 ? "end" : "reset");
	else
		fprintf(f, "\"partial\": false, \"break_line\": null, \"break_reason\": null, \"modes\": [");
	for (int k = 0; k < r->nmodes; k++) {
		fprintf(f, "%s", k ? ", " : "");
		json_str(f, r->modes[k]);
	}
	/* The plan, and what the run said after its last result (--junit). */
	fprintf(f, "], \"plan\": %lu, \"diagnostics\": ", r->plan);
	json_lines(f, r->diag);
	fprintf(f, ",\n  \"results\": [");
	for (int k = 0; k < r->nres; k++) {
		fprintf(f, "%s{\"name\": ", k ? ",\n   " : "");
		json_str(f, r->res[k].name);
		fprintf(f, ", \"result\": ");
		json_str(f, r->res[k].verdict);
		fprintf(f, ", \"line\": %lu, \"reason\": ", r->res[k].line);
		json_str(f, r->res[k].reason ? r->res[k].reason : "");
		fprintf(f, ", \"diagnostics\": ");
		json_lines(f, r->res[k].diag);
		fprintf(f, "}");
	}
}

void write_json_runs(FILE *f, const struct report *rep)
{
	fprintf(f, "\"runs\": [");
	for (int i = 0; i < rep->nruns; i++) {
		const struct run *r = &rep->runs[i];
		fprintf(f, "%s\n ", i ? "," : "");
		json_run_head(f, r);
		fprintf(f, "],\n  \"measurements\": [");
		for (int k = 0, first = 1; k < r->nm; k++)
			if (!isnan(r->m[k].value)) {
				json_measurement(f, r, k, first);
				first = 0;
			}
		fprintf(f, "]}");
	}
	fprintf(f, "]");
}
