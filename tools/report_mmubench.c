/*
 * mmureport's reader of mmubench console logs (QEMU output, tools/console
 * captures, CRLF, stray bytes before "KTAP version 1"; a LAVA job log's
 * console lines, from report_lava.c).
 *
 * Every line of a log goes through the shared integrity check
 * (lib/linecheck.c, as logcheck and console use it); only lines it
 * accepts give values, read by the format's one parser (lib/result_parse.c).
 * A line that is intact but out of sequence (lines were lost before it)
 * still counts: its CRC is good.  A garbled line gives nothing.  A prefix
 * before "KTAP version 1" (a LAVA or capture tool's timestamp) is taken off
 * every later line of the same shape (digits where it has digits, the same
 * other characters).  A report cut short (the log ends, or the board reset
 * and a new report begins, before its status line) keeps what it holds up
 * to there as a run marked partial; an unknown format version is fatal.
 * Under "# timing: host" no time, rate or spread is kept (drop_host_times).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "linecheck.h"
#include "report_read.h"
#include "result_line.h"

/* The banner's lines a run is labelled with. */
static void take_banner(struct run *r, const char *text)
{
	if (!strncmp(text, "# mmubench ", 11) && strstr(text, " on ")) {
		/* "# mmubench <version> on <board> (<arch>), entered by ..." */
		char version[48] = "", board[24] = "", arch[16] = "";
		if (sscanf(text, "# mmubench %47s on %23s (%15[^)])", version, board, arch) < 2)
			board[0] = 0;
		visible_copy(r->version, sizeof(r->version), version);
		visible_copy(r->board, sizeof(r->board), board);
		visible_copy(r->arch, sizeof(r->arch), arch);
	} else if (!strncmp(text, "# cpu: ", 7) && !r->cpu[0]) {
		/* The first names the CPU; the sandbox's second says where it is pinned. */
		visible_copy(r->cpu, sizeof(r->cpu), text + 7);
	} else if (!strncmp(text, "# platform: ", 12)) {
		visible_copy(r->platform, sizeof(r->platform), text + 12);
	} else if (!strncmp(text, "# timing: ", 10)) {
		/* "# timing: <kind> (<why>)": instructions, host or real. */
		if (sscanf(text + 10, "%15[a-z]", r->timing) != 1)
			r->timing[0] = 0;
	} else if (!strncmp(text, "# run: ", 7)) {
		const char *reps = strstr(text, "reps=");
		visible_copy(r->args, sizeof(r->args), text + 7);
		if (reps)
			r->reps = atoi(reps + 5);
	}
}

/* At most this much of one result's diagnostics is kept (a register dump
 * is 2 KiB), so endless "#" lines cost no more than this per result. */
#define DIAG_MAX 65536

static void diag_append(struct run *r, const char *text)
{
	size_t n = strlen(text);

	r->diag = realloc(r->diag, r->ndiag + n + 2);
	if (!r->diag)
		exit(3);
	memcpy(r->diag + r->ndiag, text, n);
	r->diag[r->ndiag + n] = '\n';
	r->diag[r->ndiag + n + 1] = 0;
	r->ndiag += n + 1;
}

/* The lines past DIAG_MAX said, once, at the end of what was kept. */
static void diag_close(struct run *r)
{
	char note[64];

	if (!r->diag_dropped)
		return;
	snprintf(note, sizeof(note), "(%d more diagnostic line(s) left out)", r->diag_dropped);
	r->diag_dropped = 0;
	diag_append(r, note);
}

/* The diagnostics since the last result, handed to the next (KTAP puts a
 * result's diagnostics before it: "# probe.mode: why" before "not ok"). */
static char *diag_take(struct run *r)
{
	char *d;

	diag_close(r);
	d = r->diag;
	r->diag = 0, r->ndiag = 0;
	return d;
}

/* A "# " line that says something about the run (not the report's frame). */
static void take_diag(struct run *r, const char *text)
{
	static const char *const frame[] = { "# measurements end", "# tables begin",
					     "# tables end ", "# measurement ", "# sample ", 0 };

	if (!strcmp(text, "# measurements begin")) {
		free(diag_take(r));	/* the banner: the run's own fields already */
		return;
	}
	if (strncmp(text, "# ", 2))
		return;
	for (int i = 0; frame[i]; i++)
		if (!strncmp(text, frame[i], strlen(frame[i])))
			return;
	if (r->ndiag + strlen(text) + 1 > DIAG_MAX)
		r->diag_dropped++;
	else
		diag_append(r, text);
}

/* One accepted line of a run (its suffix already off). */
static void take_line(struct run *r, const char *text, unsigned long lineno)
{
	struct rl_line l;
	struct meas *m;
	struct result *res;
	const char *dot;

	switch (rl_parse(text, &l)) {
	case RL_MEASUREMENT:
		m = meas_slot(r, l.probe, l.mode, l.metric, l.unit);
		m->value = l.v;
		m->decimals = l.decimals;
		m->line = lineno;
		return;
	case RL_SAMPLE:
		m = meas_slot(r, l.probe, l.mode, l.metric, l.unit);
		m->samples = realloc(m->samples, (m->nsamples + 1) * sizeof(double));
		if (!m->samples)
			exit(3);
		m->samples[m->nsamples++] = l.v;
		return;
	case RL_RESULT:
		r->res = grow(r->res, &r->rescap, r->nres + 1, sizeof(*r->res));
		res = &r->res[r->nres++];
		snprintf(res->name, sizeof(res->name), "%s", l.name);
		snprintf(res->verdict, sizeof(res->verdict), "%s",
			 !strcmp(l.directive, "SKIP") ? "skip" :
			 !strcmp(l.directive, "TIMEOUT") ? "timeout" : l.ok ? "ok" : "not ok");
		res->line = lineno;
		res->reason = l.reason && *l.reason ? strdup(l.reason) : 0;
		res->diag = diag_take(r);
		dot = strchr(res->name, '.');
		if (dot && dot[1] && strcmp(dot + 1, "none"))
			add_mode(r, dot + 1);
		return;
	case RL_STATUS:
		snprintf(r->status, sizeof(r->status), "%s", l.status);
		return;
	case RL_PLAN:
		r->plan = l.number;
		return;
	case RL_TOTALS:			/* linecheck holds them against the results */
		return;
	default:
		if (!strncmp(text, "# measurement ", 14) || !strncmp(text, "# sample ", 9))
			fprintf(stderr, "mmureport: %s: line %lu: not a measurement the format allows "
				"(names of letters, digits, '_' and '-', a plain number, a unit): left out\n",
				r->file, lineno);
		take_banner(r, text);
		take_diag(r, text);
		return;
	}
}

/* A time, a rate, or a spread of times: under host time (QEMU TCG without
 * -icount) the host's, meaningless for the target. */
static int host_figure(const struct meas *m)
{
	static const char *const units[] = { "ns", "us", "ms", "s", "ps", "cycles", "ticks",
					     "MHz", "MB/s", 0 };
	size_t n = strlen(m->metric);

	if (n >= 7 && !strcmp(m->metric + n - 7, "_spread"))
		return 1;
	for (int i = 0; units[i]; i++)
		if (!strcmp(m->unit, units[i]))
			return 1;
	return 0;
}

/* Dropped as the run closes, so no output ever shows one. */
static void drop_host_times(struct run *r)
{
	int k = 0;

	if (strcmp(r->timing, "host"))
		return;
	for (int i = 0; i < r->nm; i++) {
		if (host_figure(&r->m[i]))
			free(r->m[i].samples);
		else
			r->m[k++] = r->m[i];
	}
	r->nm = k;
	run_reindex(r);
}

static void finish_run(struct linecheck *lc, struct run *r, struct report *rep)
{
	if (linecheck_finish(lc) == 2 && !r->losses)
		r->losses = 1;		/* plan, Totals or tables did not add up */
	rep->losses += r->losses;
	drop_host_times(r);
	diag_close(r);
}

/* One log being read: its lines' check, the run they go to. */
struct reader {
	struct report *rep;
	const char *name, *date;
	struct linecheck lc;
	char prog[300];
	struct run *r;
	unsigned long no;	/* the line number in the input */
	int ktap, open, intact, partial;
	int garbled;		/* garbled lines since the last intact one */
};

/* The open report cut short (how: 1 the log ends, 2 a new report begins)
 * at line `at`: what it holds up to there is kept, its run marked partial. */
static void cut_run(struct reader *rd, int how, unsigned long at)
{
	struct run *r = rd->r;

	if (how == 1)
		linecheck_finish(&rd->lc);	/* says "truncated", and where */
	fprintf(stderr, "mmureport: %s: line %lu: %s before the status line of the report begun at "
		"line %lu%s: its run is kept up to there, marked partial\n", rd->name, at,
		how == 1 ? "the log ends" : "a new report begins", (unsigned long)r->index,
		how == 1 ? "" : " (the board reset)");
	if (rd->garbled)
		fprintf(stderr, "mmureport: %s: the %d garbled line(s) after its last intact line "
			"are taken for the break, not counted lost\n", rd->name, rd->garbled);
	r->partial = how;
	r->break_line = at;
	rd->rep->losses += r->losses;
	drop_host_times(r);
	diag_close(r);
	rd->open = 0, rd->partial = 1;
}

/* "KTAP version <digits>" in the line, or 0 ("KTAP version" in prose). */
static char *ktap_header(char *text)
{
	char *k = strstr(text, "KTAP version ");

	if (k && (!k[13] || strspn(k + 13, "0123456789") != strlen(k + 13)))
		return 0;
	return k;
}

/* A new report from its header k (in text); -1: fatal. */
static int begin_run(struct reader *rd, char *text, char *k)
{
	if (strcmp(k + 13, "1")) {
		fprintf(stderr, "mmureport: %s: line %lu: unknown format version '%.40s' "
			"(mmureport reads KTAP version 1)\n", rd->name, rd->no, k);
		return -1;
	}
	if (rd->open)
		cut_run(rd, 2, rd->no);
	rd->r = new_run(rd->rep, rd->name, rd->date);
	rd->garbled = 0;
	rd->r->index = (int)rd->no;	/* for the message above; renumbered later */
	linecheck_init(&rd->lc, rd->prog);
	rd->lc.max_complaints = 20;
	rd->lc.lineno = rd->no - 1;
	/* the whole line: linecheck keeps what is before the header (a
	 * timestamp) and takes it off every later line of its shape */
	linecheck_line(&rd->lc, k - text < (long)sizeof(rd->lc.prefix) ? text : k);
	rd->open = 1, rd->ktap = 1;
	return 0;
}

/* A line of an open report, through the check. */
static void checked_line(struct reader *rd, char *text)
{
	struct linecheck *lc = &rd->lc;
	struct run *r = rd->r;

	lc->lineno = rd->no - 1;
	enum lc_verdict v = linecheck_line(lc, text);
	if (v == LC_OK) {
		rd->intact++;
		take_line(r, lc->text, lc->text_lineno);
	} else if (v == LC_SEQ) {
		/* Intact (its CRC is good): lines before it were lost, or it repeats. */
		r->losses++;
		if (lc->bad_seq > lc->bad_expected) {
			unsigned long lost = lc->bad_seq - lc->bad_expected;
			if (lc->complaints <= lc->max_complaints)
				fprintf(stderr, "mmureport: %s: line %lu: sequence number%s %lu%s%.0lu missing "
				"before this line: what they held is not in the report\n", rd->name, rd->no,
				lost > 1 ? "s" : "", lc->bad_expected, lost > 1 ? "-" : "",
				lost > 1 ? lc->bad_seq - 1 : 0);
			take_line(r, lc->text, lc->text_lineno);
		}
	} else if (v == LC_BAD) {
		rd->garbled++;	/* linecheck named it; nothing on it is used */
	}
	/* Counted lost once an intact line follows: before a break they are the
	 * break (a line cut off, a reset's noise), said by cut_run. */
	if (v == LC_OK || v == LC_SEQ)
		r->losses += rd->garbled, rd->garbled = 0;
	if (lc->ended) {
		rd->open = 0;
		finish_run(lc, r, rd->rep);
	}
}

/* 0; -2 when a report in it was cut short (its run kept, partial); -1 when
 * nothing in it is usable (report_read_buffer drops what it added). */
int read_mmubench(struct report *rep, const char *name, const char *buf, size_t len,
		  const char *date)
{
	static char raw[LINE_MAX_LEN];
	struct reader rd;
	size_t pos = 0;

	memset(&rd, 0, sizeof(rd));
	rd.rep = rep, rd.name = name, rd.date = date;
	snprintf(rd.prog, sizeof(rd.prog), "mmureport: %s", name);
	while (next_line(buf, len, &pos, raw)) {
		char *text = raw, *k;

		rd.no++;
		if ((k = ktap_header(text))) {
			if (begin_run(&rd, text, k) < 0)
				return -1;
		} else if (rd.open) {
			checked_line(&rd, text);
		}
	}
	if (!rd.ktap || !rd.intact) {
		fprintf(stderr, "mmureport: %s: not an mmubench log: %s\n", name, rd.ktap ?
			"'KTAP version 1' but not one intact line after it" : "no 'KTAP version 1' line");
		return -1;
	}
	if (rd.open)
		cut_run(&rd, 1, rd.no);
	return rd.partial ? -2 : 0;
}
