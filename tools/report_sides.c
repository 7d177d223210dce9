/*
 * A comparison's sides (mmureport --compare A B): the rows of the report
 * a side names, and what report_compare.c asks about them (their modes,
 * which probes gave figures, lost lines, their platforms).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mmureport.h"

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
