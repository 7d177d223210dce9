/*
 * LMbench 2.0 summary text (scripts/getsummary's) as rows: the original's
 * fixed-width columns, or the same text with its spacing collapsed (as
 * mail archives give it).
 *
 * Every section prints one row per result file, in the same order, each
 * beginning with Host (9 characters) and OS (13, "Linux 2.4.19-"), so the
 * Basic system parameters rows say which host and OS each later row must
 * begin with.  A row with a figure for every column is read in order.  A
 * row with blank cells is read by position where the text is fixed-width
 * (LMbench right-aligns each figure in its column: a figure belongs to the
 * column its last character is in); where the spacing is lost, or a
 * figure ends in no column, which cells are blank cannot be told: those
 * cells are unknown, a diagnostic names the line, and no figure is moved
 * into a column it may not belong to.  A summary that stops early, misses
 * a section or a row, or has other text where a section or row belongs is
 * an error naming the line.
 */
#include <string.h>

#include "report_lmbench2.h"

#define TITLE2 "L M B E N C H 2 . 0 S U M M A R Y"

/* ---- the sections ---- */

enum { HEADS, ROWS, DONE };

struct summary {
	struct lmb_reader rd;
	struct lmb_table *t;
	const char *label;
	int first, nbasic;		/* the summary's rows in t */
	int sec, phase, nrows;
	int heads, fixed;		/* head lines; they keep LMbench's spacing */
	int ng, positions;		/* the rule's groups; usable as positions */
	struct lmb_word g[LMB_MAXCOLS + 3];
};

static int fail(struct summary *s, const char *why, const char *what)
{
	fprintf(stderr, "mmureport: %s: line %lu: %s%s%.60s%s\n", s->rd.name, s->rd.no, why,
		what ? " '" : "", what ? what : "", what ? "'" : "");
	return -1;
}

static const char *short_title(int sec)
{
	static char t[64];

	lmb_short_title(sec < 0 ? 0 : sec, t, sizeof(t));
	return t;
}

static int is_title(const char *line, int sec)
{
	char c[LMB_LINE_LEN];

	lmb_collapse(line, c, sizeof(c));
	return sec < LMB_SECTIONS && !strcmp(c, lmb_sections[sec].title);
}

/* The lines from a title to its column rule: the title's underline, the
 * WARNING line, the column heads; a rule a mailer wrapped is joined. */
static int heads_line(struct summary *s)
{
	const struct lmb_section *sd = &lmb_sections[s->sec];
	struct lmb_word g[LMB_MAXCOLS + 3];
	int want = 2 + sd->ncols, n = lmb_rule(s->rd.line, g, LMB_MAXCOLS + 3);

	if (n == 1 && !s->heads && !s->ng)
		return 0;			/* the title's underline */
	if (n > 1 || (n == 1 && s->ng)) {
		if (s->ng + n > want)
			return fail(s, "a column rule with more columns than LMbench 2.0's section has:",
				    short_title(s->sec));
		memcpy(s->g + s->ng, g, n * sizeof(*g));
		s->positions = !s->ng && s->fixed;	/* a wrapped rule's tail has no positions */
		s->ng += n;
		if (s->ng == want)
			s->phase = ROWS, s->nrows = 0;
		return 0;
	}
	if (s->ng)
		return fail(s, "the column rule stops short (LMbench 2.0 has more columns here):",
			    s->rd.line);
	if (++s->heads > 4)
		return fail(s, "no column rule (----- ----) under the heads of", short_title(s->sec));
	if (strstr(s->rd.line, "  "))
		s->fixed = 1;
	return 0;
}

/* Host and OS as the Basic system parameters row `i` has them: the text
 * after them, or 0 when the line does not begin so. */
static const char *after_host_os(struct summary *s, int i)
{
	const struct lmb_row *r = &s->t->rows[s->first + i];
	const char *l = s->rd.line;
	size_t hl = strlen(r->host), ol = strlen(r->os);

	if (s->fixed) {
		char host[16], os[24];
		lmb_field(l, 0, 9, host, sizeof(host));
		lmb_field(l, 10, 13, os, sizeof(os));
		return strcmp(host, r->host) || strcmp(os, r->os) ? 0 : l + (strlen(l) > 23 ? 23 : strlen(l));
	}
	if (strncmp(l, r->host, hl) || l[hl] != ' ' || strncmp(l + hl + 1, r->os, ol) ||
	    (l[hl + 1 + ol] && l[hl + 1 + ol] != ' '))
		return 0;
	return l + hl + 1 + ol;
}

/* A figure, LMbench's blank "-", or mmureport's own unknown "?" (so that
 * --lmbench's table reads back as it was). */
static void set_cell(struct summary *s, struct lmb_cell *c, const struct lmb_word *w)
{
	double v;

	snprintf(c->text, sizeof(c->text), "%s", w->text);
	c->state = lmb_figure(w->text, &v) > 0 ? LMB_VALUE :
		   strcmp(w->text, "?") ? LMB_BLANK : LMB_UNKNOWN;
	c->value = c->state == LMB_VALUE ? v : 0;
	s->t->unknown += c->state == LMB_UNKNOWN;
}

/* A Basic system parameters row: Host, OS (one or two words, 13
 * characters at most), Description (one word), Mhz. */
static int basic_row(struct summary *s)
{
	const char *l = s->rd.line;
	struct lmb_row *r = lmb_new_row(s->t);
	struct lmb_cell *c = r->cell[LMB_BASIC];
	struct lmb_word w[8];
	int fixed = s->fixed && strlen(l) >= 24 && l[9] == ' ' && l[23] == ' ';
	int n = lmb_words(l, fixed ? 24 : 0, w, 8), os = 0, last = n - 1;
	double v;

	if (fixed && n <= 3) {
		lmb_field(l, 0, 9, r->host, sizeof(r->host));
		lmb_field(l, 10, 13, r->os, sizeof(r->os));
	} else if (!fixed && n >= 3 && n <= 6) {
		os = n - 2 - (lmb_figure(w[last].text, &v) >= 0);		/* the OS's words */
		if (os < 1 || os > 2)
			return fail(s, "the OS cell cannot be told from the Description here:", l);
		snprintf(r->host, sizeof(r->host), "%s", w[0].text);
		snprintf(r->os, sizeof(r->os), "%.*s", w[os].end + 1 - w[1].start, l + w[1].start);
		os++;
	} else
		return fail(s, "not a Basic system parameters row (Host OS Description Mhz):", l);
	snprintf(r->source, sizeof(r->source), "%s", s->label);
	r->lmbench = 1;
	if (os < n && lmb_figure(w[last].text, &v) > 0)
		set_cell(s, &c[1], &w[last]);
	else
		last = n;
	if (os < last) {
		c[0].state = LMB_VALUE;
		snprintf(c[0].text, sizeof(c[0].text), "%.*s", w[last - 1].end + 1 - w[os].start,
			 l + w[os].start);
	}
	s->nbasic++;
	return 0;
}

/* The column whose rule group holds a figure's last character; -1 none. */
static int column_of(const struct summary *s, const struct lmb_word *w)
{
	for (int c = 2; c < s->ng; c++)
		if (w->end >= s->g[c].start && w->end <= s->g[c].end)
			return c - 2;
	return -1;
}

/* Figures fewer than columns: by position where the text has them, and
 * unknown where it has not or a figure ends in no column (or in one a
 * figure before it took): the columns it may belong to. */
static void place(struct summary *s, struct lmb_cell *c, int ncols, const struct lmb_word *w, int n)
{
	int col[LMB_MAXCOLS + 1], prev = -1, lost = 0;

	for (int i = 0; i < n; i++) {
		col[i] = s->positions ? column_of(s, &w[i]) : -1;
		if (col[i] <= prev)
			col[i] = -1;
		else
			prev = col[i];
	}
	for (int i = 0; i < n; i++)
		if (col[i] >= 0)
			set_cell(s, &c[col[i]], &w[i]);
	for (int i = 0; i < n; i++) {
		if (col[i] >= 0)
			continue;
		int lo = -1, hi = ncols;
		for (int j = i - 1; j >= 0 && lo < 0; j--)
			lo = col[j] >= 0 ? col[j] : lo;
		for (int j = i + 1; j < n && hi == ncols; j++)
			hi = col[j] >= 0 ? col[j] : hi;
		for (int k = lo + 1; k < hi; k++)
			if (c[k].state == LMB_BLANK && !c[k].text[0])
				c[k].state = LMB_UNKNOWN, s->t->unknown++, lost++;
	}
	if (lost) {
		char title[64];
		lmb_short_title(s->sec, title, sizeof(title));
		fprintf(stderr, "mmureport: %s: line %lu: %d figures for the %d columns of '%s' %s: "
			"which cells are blank cannot be told, %d cell(s) left unknown (?)\n", s->rd.name,
			s->rd.no, n, ncols, title,
			s->positions ? "and a figure ends in no column" : "and the text's spacing is lost",
			lost);
	}
}

/* A row of a section after the Basic one. */
static int data_row(struct summary *s)
{
	const struct lmb_section *sd = &lmb_sections[s->sec];
	const char *rest = after_host_os(s, s->nrows);
	struct lmb_word w[LMB_MAXCOLS + 8];
	int nnum = sd->ncols - sd->text_last, n, k = 0;
	double v;

	if (!rest) {
		const struct lmb_row *r = &s->t->rows[s->first + s->nrows];
		char want[64];
		snprintf(want, sizeof(want), "%s %s", r->host, r->os);
		fprintf(stderr, "mmureport: %s: line %lu: '%.60s' where '%s' prints row %d of %d (host "
			"'%s'): a row lost, or foreign text\n", s->rd.name, s->rd.no, s->rd.line,
			short_title(s->sec), s->nrows + 1, s->nbasic, want);
		return -1;
	}
	n = lmb_words(s->rd.line, rest - s->rd.line, w, LMB_MAXCOLS + 8);
	while (k < n && k < nnum + 1 && k < LMB_MAXCOLS + 8 && lmb_figure(w[k].text, &v) >= 0)
		k++;
	if (k > nnum || n > LMB_MAXCOLS + 8)
		return fail(s, "more figures or words than LMbench 2.0's section has columns:",
			    s->rd.line);
	if (!sd->text_last && k < n)
		return fail(s, "not a figure where LMbench prints figures:", w[k].text);
	struct lmb_cell *c = s->t->rows[s->first + s->nrows].cell[s->sec];
	if (k == nnum)
		for (int i = 0; i < k; i++)
			set_cell(s, &c[i], &w[i]);
	else
		place(s, c, nnum, w, k);
	if (sd->text_last && k < n) {
		c[nnum].state = LMB_VALUE;
		snprintf(c[nnum].text, sizeof(c[nnum].text), "%.*s", w[n - 1].end + 1 - w[k].start,
			 s->rd.line + w[k].start);
	}
	s->nrows++;
	return 0;
}

/* One line after the summary's title. */
static int summary_line(struct summary *s)
{
	int blank = !s->rd.line[0];

	if (s->sec + 1 < LMB_SECTIONS && is_title(s->rd.line, s->sec + 1)) {
		if (s->sec >= 0 && (s->phase != ROWS && s->phase != DONE))
			return fail(s, "a new section begins before the column rule of", short_title(s->sec));
		if (s->sec > 0 && s->nrows < s->nbasic)
			return fail(s, "a new section begins: rows missing in", short_title(s->sec));
		s->sec++, s->phase = HEADS, s->heads = s->fixed = s->ng = s->positions = 0;
		return 0;
	}
	if (s->sec < 0 || (blank && s->phase != ROWS))
		return 0;			/* before Basic system parameters; between sections */
	if (s->phase == HEADS)
		return blank ? 0 : heads_line(s);
	if (s->phase == ROWS && s->sec == LMB_BASIC) {
		if (blank)
			s->phase = DONE;
		return blank ? 0 : basic_row(s);
	}
	if (s->phase == ROWS && s->nrows < s->nbasic) {
		if (blank)
			return fail(s, "a blank line: rows missing in", short_title(s->sec));
		return data_row(s);
	}
	s->phase = DONE;
	if (blank || s->sec == LMB_SECTIONS - 1)
		return 0;
	return fail(s, "other text where LMbench 2.0 prints the section", short_title(s->sec + 1));
}

/* The next summary title: 1, 0 at the end, -1 (a message) for a summary
 * of another LMbench version. */
static int find_title(struct summary *s)
{
	char c[LMB_LINE_LEN];

	while (lmb_next_line(&s->rd)) {
		lmb_collapse(s->rd.line, c, sizeof(c));
		if (strstr(c, TITLE2))
			return 1;
		if (strstr(c, "L M B E N C H") && strstr(c, "S U M M A R Y"))
			return fail(s, "an LMbench summary of another version (mmureport reads 2.0's):", c);
	}
	return 0;
}

/* One summary, from the line after its title to its last row. */
static int one_summary(struct summary *s)
{
	s->first = s->t->n, s->nbasic = 0, s->sec = -1, s->phase = HEADS;
	while (lmb_next_line(&s->rd))
		if (summary_line(s) < 0)
			return -1;
		else if (s->sec == LMB_SECTIONS - 1 && s->phase == DONE) {
			s->rd.again = 1;	/* the line after it: text, or another summary */
			return 0;
		}
	if (s->sec == LMB_SECTIONS - 1 && s->phase == ROWS && s->nrows == s->nbasic && !s->rd.ended)
		return fail(s, "the text ends inside this row (no end of line): truncated", 0);
	if (s->sec < LMB_SECTIONS - 1 || s->nrows < s->nbasic || !s->nbasic) {
		fprintf(stderr, "mmureport: %s: line %lu: the summary ends %s '%s'%s: truncated, or not "
			"LMbench 2.0's layout\n", s->rd.name, s->rd.no, s->sec < 0 ? "before" : "in",
			short_title(s->sec), !s->nbasic ? " (no rows)" : "");
		return -1;
	}
	return 0;
}

int lmb_read_summary(struct lmb_table *t, const char *name, const char *label,
		     const char *buf, size_t len)
{
	struct summary s = { .rd = { .name = name, .buf = buf, .len = len }, .t = t, .label = label };
	int found, n = 0;

	while ((found = find_title(&s)) > 0 && ++n)
		if (one_summary(&s) < 0)
			return -1;
	if (found < 0)
		return -1;
	if (!n)
		fprintf(stderr, "mmureport: %s: no '" TITLE2 "' line\n", name);
	t->summaries += n;
	return n ? 0 : -1;
}
