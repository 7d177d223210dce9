/*
 * mmureport --html FILE: one self-contained page (no script, no external
 * reference, so it opens offline and from an archive): each log's
 * integrity verdict, each run's board, CPU, platform and arguments (an
 * emulated platform said in a banner, a run cut short marked PARTIAL),
 * the tables mmureport prints, the
 * comparisons' differences beyond the noise (the full comparison folded
 * below), and the plots as inline SVG.  The tables and comparisons are
 * mmureport's own text, cut into cells at its column rules, so the page
 * shows what the terminal shows.
 */
#include <stdlib.h>
#include <string.h>

#include "mmureport.h"

static void esc(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++)
		switch (s[i]) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)s[i] >= 0x20 || s[i] == '\n' || s[i] == '\t')
				fputc(s[i], f);
		}
}

static void put(FILE *f, const char *s)
{
	esc(f, s, strlen(s));
}

static const char style[] =
	"body{font-family:sans-serif;margin:1.5em;color:#111;max-width:1300px}"
	"h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #888;margin-top:1.6em}"
	"h3{font-size:1em;margin-bottom:.2em}"
	"table{border-collapse:collapse;margin:.3em 0 1em}"
	"td,th{border:1px solid #bbb;padding:2px 6px;font-size:.85em}"
	"td.n{text-align:right;font-family:monospace}th{background:#eee}"
	".emul{background:#ffe0e0;border:2px solid #c00;color:#900;padding:.4em .8em;"
	"font-size:1.2em;font-weight:bold;margin:.4em 0}"
	".ok{color:#060;font-weight:bold}.bad{color:#b00;font-weight:bold}"
	"pre{background:#f6f6f6;padding:.5em;overflow-x:auto;font-size:.8em}"
	"td pre{font-size:1.05em;margin:0;white-space:pre-wrap}td.ok,td.bad{min-width:16em}"
	".from{font-size:.85em;color:#444}svg{max-width:100%;height:auto}";

/* What a run's times are: its "# timing:" line, else (older logs) its platform's. */
static const char *emulated(const struct run *r)
{
	if (host_timed(r))
		return HOST_TIME_TEXT;
	if (!strcmp(r->timing, "real"))
		return 0;
	if (!strcmp(r->timing, "instructions") || strstr(r->platform, "-icount"))
		return "emulated: instruction counts, not time (QEMU TCG -icount): "
		       "no cache or TLB timing in these figures";
	if (strstr(r->platform, "emulated") || strstr(r->platform, "TCG"))
		return "emulated (QEMU TCG): times are QEMU's host time, not the target's";
	return 0;
}

/* Each input's verdict: what mmureport's integrity check made of it. */
static void verdicts(FILE *f, const struct report *rep, const struct html_input *in, int nin)
{
	fprintf(f, "<h2 id=\"integrity\">Integrity of each log</h2>\n<table>\n"
		   "<tr><th>log</th><th>verdict</th><th>runs</th><th>messages</th></tr>\n");
	for (int i = 0; i < nin; i++) {
		int lost = 0, lm = 0;
		char cut[160] = "";
		for (int k = in[i].first_run; k < in[i].first_run + in[i].nruns && k < rep->nruns; k++) {
			lost += rep->runs[k].losses, lm |= rep->runs[k].lmbench;
			if (rep->runs[k].partial && !cut[0])
				partial_text(cut, sizeof(cut), &rep->runs[k]);
		}
		fprintf(f, "<tr><td>");
		put(f, in[i].file);
		if (in[i].unusable)
			fprintf(f, "</td><td class=\"bad\">NOT USABLE: nothing from it is in the report");
		else if (cut[0]) {
			fprintf(f, "</td><td class=\"bad\">");
			put(f, cut);
			fprintf(f, "; what it holds up to there is in the report, marked partial");
			if (lost)
				fprintf(f, "; %d line(s) lost or garbled, their values left out", lost);
		} else if (lost)
			fprintf(f, "</td><td class=\"bad\">NOT INTACT: %d line(s) lost or garbled; "
				   "their values are left out", lost);
		else if (lm)
			fprintf(f, "</td><td>LMbench output: no sequence numbers nor CRCs to check");
		else
			fprintf(f, "</td><td class=\"ok\">intact (every line's sequence number and CRC)");
		fprintf(f, "</td><td>");
		for (int k = in[i].first_run; k < in[i].first_run + in[i].nruns && k < rep->nruns; k++)
			fprintf(f, "%s%s: %s", k > in[i].first_run ? "; " : "", rep->runs[k].label,
				rep->runs[k].partial ? "PARTIAL" :
				rep->runs[k].status[0] ? rep->runs[k].status : "no status line");
		fprintf(f, "</td><td>");
		if (in[i].messages && in[i].messages[0]) {
			fprintf(f, "<pre>");
			put(f, in[i].messages);
			fprintf(f, "</pre>");
		}
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
}

/* One row a run; above it, in a banner, what an emulated run's times are. */
static void runs(FILE *f, const struct report *rep)
{
	static const char *const head[] = { "run", "log", "board", "cpu", "platform",
					     "run line (its arguments)", "reps", "date", "status" };

	fprintf(f, "<h2 id=\"runs\">Runs</h2>\n");
	for (int i = 0; i < rep->nruns; i++) {
		const char *e = emulated(&rep->runs[i]);
		int seen = 0;
		for (int j = 0; e && j < i; j++)
			seen |= emulated(&rep->runs[j]) == e;
		if (!e || seen)
			continue;
		fprintf(f, "<div class=\"emul\">");
		for (int j = i, n = 0; j < rep->nruns; j++)
			if (emulated(&rep->runs[j]) == e)
				fprintf(f, "%s%s", n++ ? ", " : "", rep->runs[j].label);
		fprintf(f, ": ");
		put(f, e);
		fprintf(f, "</div>\n");
	}
	fprintf(f, "<table>\n<tr>");
	for (int j = 0; j < 9; j++)
		fprintf(f, "<th>%s</th>", head[j]);
	fprintf(f, "</tr>\n");
	for (int i = 0; i < rep->nruns; i++) {
		const struct run *r = &rep->runs[i];
		char reps[16], cut[160];
		snprintf(reps, sizeof(reps), "%d", r->reps);
		partial_text(cut, sizeof(cut), r);
		/* A partial run has no status line: its mark stands there instead. */
		const char *v[] = { r->label, r->file, r->board, r->cpu, r->platform, r->args, reps,
				    r->date, r->partial ? cut : r->status };
		fprintf(f, "<tr>");
		for (int j = 0; j < 9; j++) {
			fprintf(f, j == 8 && r->partial ? "<td class=\"bad\">" : "<td>");
			put(f, v[j]);
			fprintf(f, "</td>");
		}
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</table>\n");
}

/* The next line of text (without its newline) into line; 0 at the end. */
static int next(const char **p, char *line, size_t size)
{
	size_t n;

	if (!**p)
		return 0;
	n = strcspn(*p, "\n");
	snprintf(line, size, "%.*s", (int)(n < size ? n : size - 1), *p);
	*p += n + ((*p)[n] == '\n');
	return 1;
}

/* A line's cell between columns [a, b), trimmed. */
static void cell(FILE *f, const char *line, int a, int b, const char *tag, const char *cls)
{
	int len = strlen(line);

	if (a > len)
		a = len;
	if (b > len)
		b = len;
	while (a < b && line[a] == ' ')
		a++;
	while (b > a && line[b - 1] == ' ')
		b--;
	fprintf(f, "<%s%s>", tag, cls);
	esc(f, line + a, b - a);
	fprintf(f, "</%s>", tag);
}

/* One of print_tables' blocks: title, rule, "Figures from:", two header
 * lines, the dashes that give the columns, the rows. */
static void table_block(FILE *f, char lines[][400], int n)
{
	int col[24][2], nc = 0;
	const char *d = n > 5 ? lines[5] : "";

	for (int i = 0; d[i] && nc < 24;) {
		if (d[i] != '-') {
			i++;
			continue;
		}
		col[nc][0] = i;
		while (d[i] == '-')
			i++;
		col[nc++][1] = i;
	}
	if (nc < 2 || strncmp(lines[2], "Figures from:", 13)) {
		fprintf(f, "<pre>");
		for (int i = 0; i < n; i++)
			put(f, lines[i]), fputc('\n', f);
		fprintf(f, "</pre>\n");
		return;
	}
	fprintf(f, "<h3>");
	put(f, lines[0]);
	fprintf(f, "</h3>\n<div class=\"from\">");
	put(f, lines[2]);
	fprintf(f, "</div>\n<table>\n");
	for (int h = 3; h < 5; h++) {
		fprintf(f, "<tr>");
		for (int c = 0; c < nc; c++)
			cell(f, lines[h], c ? col[c - 1][1] : 0, col[c][1], "th", "");
		fprintf(f, "</tr>\n");
	}
	for (int i = 6; i < n; i++) {
		fprintf(f, "<tr>");
		for (int c = 0; c < nc; c++)
			cell(f, lines[i], c ? col[c - 1][1] : 0, col[c][1], "td",
			     c >= 2 ? " class=\"n\"" : "");
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</table>\n");
}

static void tables(FILE *f, const char *text)
{
	static char lines[600][400];
	char line[400];
	int n = 0;

	fprintf(f, "<h2 id=\"tables\">Tables</h2>\n");
	for (;;) {
		int more = next(&text, line, sizeof(line));
		if (more && line[0] && n < 600) {
			snprintf(lines[n++], 400, "%s", line);
			continue;
		}
		if (n && strcmp(lines[0], "Runs"))	/* the runs are listed above */
			table_block(f, lines, n);
		n = 0;
		if (!more)
			break;
	}
}

/* A comparison row: 10 fields, then the verdict in words. */
static int compare_row(const char *line, char fld[10][100], const char **words)
{
	const char *p = line;

	for (int i = 0; i < 10; i++) {
		p += strspn(p, " ");
		size_t n = strcspn(p, " ");
		if (!n)
			return 0;
		snprintf(fld[i], 100, "%.*s", (int)n, p);
		p += n;
	}
	*words = p + strspn(p, " ");
	return 1;
}

static void difference_rows(FILE *f, const char *block, const char *which, const char *none)
{
	char line[800], fld[10][100];
	const char *w, *p = block;
	int shown = 0;

	while (next(&p, line, sizeof(line))) {
		if (!compare_row(line, fld, &w) || !strstr(w, which))
			continue;
		if (!shown++)
			fprintf(f, "<table>\n<tr><th>metric</th><th>unit</th><th>A median</th>"
				   "<th>B median</th><th>B/A</th><th>Holm p</th><th>verdict</th></tr>\n");
		fprintf(f, "<tr>");
		for (int i = 0; i < 10; i++) {
			if (i == 5 || i == 6 || i == 7 || i == 8)
				continue;	/* B-A, nA, nB, p: in the full comparison */
			fprintf(f, i < 2 ? "<td>" : "<td class=\"n\">");
			put(f, fld[i]);
			fprintf(f, "</td>");
		}
		fprintf(f, "<td>");
		put(f, w);
		fprintf(f, "</td></tr>\n");
	}
	if (shown)
		fprintf(f, "</table>\n");
	else
		fprintf(f, "<p>%s</p>\n", none);
}

/* Each comparison: its heading, the differences beyond the noise (after
 * Holm's correction), the counts that differ, then all of it folded. */
static void comparisons(FILE *f, const char *text)
{
	const char *p = text;

	if (!text[0])
		return;
	fprintf(f, "<h2 id=\"differences\">Comparisons: the differences beyond the noise</h2>\n");
	while (*p) {
		const char *end = strstr(p, "\n\n");
		size_t n = end ? (size_t)(end - p) + 1 : strlen(p);
		char *block = strndup(p, n), line[800];
		const char *q = block;
		if (!block)
			return;
		fprintf(f, "<h3>");
		if (next(&q, line, sizeof(line)))
			put(f, line);
		fprintf(f, "</h3>\n<div class=\"from\">");
		for (int i = 0; i < 2 && next(&q, line, sizeof(line)); i++)
			put(f, line), fprintf(f, "<br>");
		fprintf(f, "</div>\n");
		difference_rows(f, block, " than A", "No figure differs beyond the noise after "
				"Holm's correction.");
		fprintf(f, "<p>Counts (compared exactly):</p>\n");
		difference_rows(f, block, "counts: not equal", "No count differs.");
		fprintf(f, "<details><summary>The whole comparison</summary><pre>");
		put(f, block);
		fprintf(f, "</pre></details>\n");
		free(block);
		p += n;
		p += strspn(p, "\n");
	}
}

/* An SVG file inline: from its <svg> on (no XML prolog in HTML), its ids
 * made unique to the page (gnuplot names them alike in every file). */
static int svg_inline(FILE *f, const char *path, int k)
{
	FILE *in = fopen(path, "r");
	char *buf = 0, *s;
	size_t cap = 0, len;

	if (!in)
		return 0;
	len = getdelim(&buf, &cap, '\0', in);
	fclose(in);
	if ((ssize_t)len <= 0 || !(s = strstr(buf, "<svg"))) {
		free(buf);
		return 0;
	}
	fprintf(f, "<div>\n");
	for (; *s; s++) {
		if (!strncmp(s, "id='gp", 6) || !strncmp(s, "id=\"gp", 6)) {
			fprintf(f, "id=%cp%d", s[3], k);
			s += 4;			/* on to the name's "gp" */
		} else if (!strncmp(s, "#gp", 3)) {
			fprintf(f, "#p%d", k);
			s++;
		} else if (!strncmp(s, "<script", 7)) {
			break;		/* never: the page runs nothing */
		}
		fputc(*s, f);
	}
	fprintf(f, "\n</div>\n");
	free(buf);
	return 1;
}

static void plots(FILE *f, const struct report *rep, const char *dir, const char *why_none)
{
	static const char *const kinds[] = { "latency", "tlb", "bandwidth", "faults" };
	char path[4400];
	int k = 0;

	fprintf(f, "<h2 id=\"plots\">Plots</h2>\n");
	for (int i = 0; dir && i < rep->nruns; i++)
		for (int j = 0; j < 4; j++) {
			snprintf(path, sizeof(path), "%s/%s-%s.svg", dir, rep->runs[i].label, kinds[j]);
			k += svg_inline(f, path, k);
		}
	if (!k) {
		fprintf(f, "<p>No plots: ");
		put(f, why_none ? why_none : "nothing to plot");
		fprintf(f, ".</p>\n");
	}
}

int write_html(FILE *f, const struct report *rep, const struct html_page *pg)
{
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		   "<title>mmubench report</title>\n<style>%s</style>\n</head>\n<body>\n"
		   "<h1>mmubench report</h1>\n<p>", style);
	put(f, pg->command);
	fprintf(f, "</p>\n<p>Contents: <a href=\"#integrity\">integrity</a>%s%s%s%s</p>\n",
		rep->nruns ? ", <a href=\"#runs\">runs</a>" : "",
		pg->compare && pg->compare[0] ? ", <a href=\"#differences\">differences</a>" : "",
		pg->tables ? ", <a href=\"#tables\">tables</a>" : "",
		pg->tables ? ", <a href=\"#plots\">plots</a>" : "");
	if (pg->verdict)
		fprintf(f, "<p class=\"bad\">%s</p>\n", pg->verdict);
	verdicts(f, rep, pg->inputs, pg->ninputs);
	if (rep->nruns)
		runs(f, rep);
	if (pg->compare)
		comparisons(f, pg->compare);
	if (pg->tables)
		tables(f, pg->tables);
	if (pg->tables)
		plots(f, rep, pg->svgdir, pg->why_no_plots);
	fprintf(f, "</body>\n</html>\n");
	return ferror(f) ? -1 : 0;
}
