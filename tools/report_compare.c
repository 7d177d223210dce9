/*
 * mmureport --compare A B: per metric, the two sides' medians, ratio and
 * difference, and a verdict in words.
 *
 * - Counts (unit "count": TLB misses, faults, flushes, entries, ...) are
 *   exact: equal or not, with the ratio; no test, no better or worse.
 * - Other figures: the Mann-Whitney U test over the repetitions, and
 *   Holm's correction over every test of the comparison, so that one
 *   comparison of ~100 metrics at alpha 0.05 does not call ~5 of them
 *   different by chance.  Holm, not Benjamini-Hochberg: each verdict is
 *   read on its own ("B is lower"), so the chance that any of them is
 *   wrong (the family-wise error) is what must stay under alpha, and
 *   Holm holds whatever the dependence between tests (a run's ns and
 *   cycles are one timing twice); BH bounds only the expected share of
 *   wrong ones, under independence or positive dependence.
 * - Time-derived figures of emulated runs (QEMU TCG, -icount) are not
 *   time: the verdict says what they are, and claims no better or worse.
 * - A figure the probe gave on one side only is shown as such ("not
 *   counted in B"), never compared with 0.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmureport.h"
#include "sort.h"

#define ALPHA 0.05

enum kind { K_TEST, K_SAME, K_FEW, K_COUNT, K_ABSENT, K_MIXED };
enum emul { E_NONE, E_ICOUNT, E_TCG, E_MIXED };

struct item {
	char name[96];
	const struct meas *m;		/* the first figure seen: unit and decimals */
	const char *mode;		/* by mode: the mode; else 0 */
	double *va, *vb;
	int na, nb;
	enum kind kind;
	enum emul emul;			/* of a time-derived figure; E_NONE otherwise */
	enum emul ea, eb;		/* each side's */
	struct mwu t;
	double holm;			/* Holm-adjusted p; NAN outside the family */
	int left_out;			/* the probe gave nothing on one side */
};

/* The observations of one metric on one side: every repetition's sample
 * where the log has them (reps > 1), else each run's figure. */
static int observations(const struct row *rows, int n, const char *mode, const char *probe,
			const char *metric, double **out)
{
	double *v = 0;
	int k = 0;

	for (int i = 0; i < n; i++) {
		const struct meas *m = mode && strcmp(rows[i].mode, mode) ? 0 :
				       run_find(rows[i].run, probe, rows[i].mode, metric);
		if (!m)
			continue;
		int add = m->nsamples ? m->nsamples : 1;
		if (!(v = realloc(v, (k + add) * sizeof(double)))) {
			fprintf(stderr, "mmureport: out of memory\n");
			exit(3);
		}
		memcpy(v + k, m->nsamples ? m->samples : &m->value, add * sizeof(double));
		k += add;
	}
	*out = v;
	return k;
}

/* Figures timed by a clock (or derived from such: spreads are of timings). */
static int time_unit(const char *u)
{
	static const char *const t[] = { "ns", "us", "ms", "ps", "cycles", "ticks", "MB/s", "MHz",
					 "percent", 0 };
	for (int i = 0; t[i]; i++)
		if (!strcmp(u, t[i]))
			return 1;
	return 0;
}

/* Where a run's clock comes from, by its "# platform:" line. */
static enum emul run_emul(const struct run *r)
{
	if (strstr(r->platform, "-icount"))
		return E_ICOUNT;
	if (strstr(r->platform, "emulated") || strstr(r->platform, "TCG"))
		return E_TCG;
	return E_NONE;
}

static enum emul side_emul(const struct row *rows, int n)
{
	enum emul e = run_emul(rows[0].run);
	for (int i = 1; i < n; i++)
		if (run_emul(rows[i].run) != e)
			return E_MIXED;
	return e;
}

static const char *emul_words(enum emul e)
{
	return e == E_ICOUNT ? "emulated: instruction counts, not time" :
	       e == E_TCG ? "emulated: QEMU's host time, not the target's" :
	       e == E_MIXED ? "a mix of emulated and other figures" : "not emulated";
}

/* Smaller is better for times, bigger for MB/s; 0 neither (clock rates,
 * spreads, ticks: no direction). */
static int better(const char *unit)
{
	if (!strcmp(unit, "MB/s"))
		return 1;
	if (!strcmp(unit, "ns") || !strcmp(unit, "us") || !strcmp(unit, "ms") ||
	    !strcmp(unit, "ps") || !strcmp(unit, "cycles"))
		return -1;
	return 0;
}

/* "16", or "910-914" where the (sorted) figures vary. */
static void range_text(char *buf, size_t size, const double *v, int n, int decimals)
{
	if (v[0] == v[n - 1])
		snprintf(buf, size, "%.*f", decimals, v[0]);
	else
		snprintf(buf, size, "%.*f-%.*f", decimals, v[0], decimals, v[n - 1]);
}

static void count_verdict(char *buf, size_t size, struct item *it, double ma, double mb)
{
	char ra[48], rb[48];
	int same = it->na == it->nb;

	for (int i = 0; same && i < it->na; i++)
		same = it->va[i] == it->vb[i];
	range_text(ra, sizeof(ra), it->va, it->na, it->m->decimals);
	range_text(rb, sizeof(rb), it->vb, it->nb, it->m->decimals);
	if (!strcmp(ra, rb) && (same || !strchr(ra + 1, '-')))
		snprintf(buf, size, strchr(ra + 1, '-') ? "counts: equal (the same figures on both "
			 "sides, %s)" : "counts: equal (%s in every figure)", ra);
	else if (ma != 0)
		snprintf(buf, size, "counts: not equal: A %s, B %s (B/A %.4g)", ra, rb, mb / ma);
	else
		snprintf(buf, size, "counts: not equal: A %s, B %s", ra, rb);
}

static void verdict(char *buf, size_t size, struct item *it, double ma, double mb, int lost_a,
		    int lost_b)
{
	const struct mwu *t = &it->t;
	char pre[64] = "";

	if (it->emul != E_NONE)
		snprintf(pre, sizeof(pre), "%s; ", emul_words(it->emul));
	switch (it->kind) {
	case K_ABSENT: {
		const char *side = it->na ? "B" : "A";
		const char *what = is_counter(it->m->probe, it->m->metric) ? "counted" : "measured";
		if (it->na ? lost_b : lost_a)
			snprintf(buf, size, "absent from %s's log (not %s there, or its line was lost)",
				 side, what);
		else
			snprintf(buf, size, "not %s in %s (absent from its log)", what, side);
		return;
	}
	case K_COUNT:
		count_verdict(buf, size, it, ma, mb);
		return;
	case K_MIXED:
		snprintf(buf, size, "not comparable as time: A %s; B %s", emul_words(it->ea),
			 emul_words(it->eb));
		return;
	case K_FEW:
		snprintf(buf, size, "%stoo few repetitions for a verdict (%d and %d; %d each can show p<%.2f)",
			 pre, t->n1, t->n2, mwu_needed_reps(ALPHA), ALPHA);
		return;
	case K_SAME:
		snprintf(buf, size, "%sthe same in every repetition: no noise, no difference", pre);
		return;
	case K_TEST:
		break;
	}
	if (it->holm < ALPHA) {
		const char *dir = mb > ma ? "higher" : mb < ma ? "lower" : "different";
		int b = better(it->m->unit);
		const char *judge = it->emul != E_NONE || !b || mb == ma ? "" :
				    (mb > ma) == (b > 0) ? " (better)" : " (worse)";
		snprintf(buf, size, "%sB is %s than A%s%s (p=%.3g, Holm %.3g)", pre, dir, judge,
			 it->emul != E_NONE ? "" : ", beyond the run-to-run noise", t->p, it->holm);
		return;
	}
	snprintf(buf, size, "%sno difference%s%s (p=%.2g, Holm %.2g)", pre,
		 it->emul != E_NONE ? "" : " beyond the run-to-run noise",
		 t->p < ALPHA ? " after Holm's correction" : "", t->p, it->holm);
}

/* Once under the table: where this many tests ask more repetitions than
 * the comparison has (the first of Holm's steps is alpha / ntests). */
static void power_note(FILE *f, const struct item *items, int n, int ntests)
{
	for (int i = 0; i < n; i++) {
		const struct mwu *t = &items[i].t;
		if (items[i].left_out || items[i].kind != K_TEST || t->p_min * ntests <= ALPHA)
			continue;
		int k = mwu_needed_reps(ALPHA / ntests);
		fprintf(f, "Note: Holm's first step over %d tests asks p < %.2g; %d and %d repetitions "
			"cannot give less than p = %.2g (e.g. %s)", ntests, ALPHA / ntests, t->n1, t->n2,
			t->p_min, items[i].name);
		if (k)
			fprintf(f, ": %d a side can", k);
		fprintf(f, "\n");
		return;
	}
}

/* Every metric either side has, once (per mode, by mode): A's in their
 * order, then B's own; curve points are not compared. */
static int collect(const struct row *s, int n, int by_mode, struct item **items, int *count,
		   int *cap)
{
	for (int i = 0; i < n; i++) {
		const struct run *r = s[i].run;
		for (int k = 0; k < r->nm; k++) {
			const struct meas *m = &r->m[k];
			char pfx[48], name[96];
			double x;

			if (strcmp(m->mode, s[i].mode) || isnan(m->value) ||
			    curve_point(m->metric, &x, pfx, sizeof(pfx)))
				continue;
			if (by_mode)
				snprintf(name, sizeof(name), "%s.%s.%s", m->probe, m->mode, m->metric);
			else
				snprintf(name, sizeof(name), "%s.%s", m->probe, m->metric);
			int dup = 0;
			for (int q = 0; q < *count && !dup; q++)
				dup = !strcmp((*items)[q].name, name);
			if (dup)
				continue;
			if (*count == *cap) {
				*cap = *cap ? *cap * 2 : 64;
				*items = realloc(*items, *cap * sizeof(**items));
				if (!*items)
					return -1;
			}
			struct item *it = &(*items)[(*count)++];
			memset(it, 0, sizeof(*it));
			snprintf(it->name, sizeof(it->name), "%s", name);
			it->m = m;
			it->mode = by_mode ? m->mode : 0;
			it->holm = NAN;
		}
	}
	return 0;
}

/* What an item is, from its observations; 0 when the probe gave no figure
 * at all on a side (nothing to say about its metrics there). */
static int classify(struct item *it, const struct row *a, int na, const struct row *b, int nb)
{
	const char *probe = it->m->probe, *metric = it->m->metric;

	it->na = observations(a, na, it->mode, probe, metric, &it->va);
	it->nb = observations(b, nb, it->mode, probe, metric, &it->vb);
	if (it->na)			/* sorted: ranges, counts compared in order */
		sort_double(it->va, it->na);
	if (it->nb)
		sort_double(it->vb, it->nb);
	if (!it->na || !it->nb) {
		it->kind = K_ABSENT;
		return it->na ? probe_ran(b, nb, it->mode, probe) : probe_ran(a, na, it->mode, probe);
	}
	/* Counts, and kinds (what a switch was: a code, no quantity), exactly. */
	if (!strcmp(it->m->unit, "count") || !strcmp(it->m->unit, "kind")) {
		it->kind = K_COUNT;
		return 1;
	}
	if (time_unit(it->m->unit)) {
		it->ea = side_emul(a, na), it->eb = side_emul(b, nb);
		if (it->ea != it->eb || it->ea == E_MIXED) {
			it->kind = K_MIXED;
			return 1;
		}
		it->emul = it->ea;
	}
	mann_whitney(it->va, it->na, it->vb, it->nb, &it->t);
	if (it->na < 2 || it->nb < 2 || it->t.p_min > ALPHA)
		it->kind = K_FEW;	/* not a test: nothing these sizes could show */
	else if (it->t.p < 0)
		it->kind = K_SAME;
	else
		it->kind = K_TEST;
	return 1;
}

/* Holm over the comparison's tests; returns their number. */
static int correct(struct item *items, int n)
{
	double *p = malloc((n + 1) * sizeof(double));
	int m = 0;

	if (!p)
		exit(3);
	for (int i = 0; i < n; i++)
		if (items[i].kind == K_TEST)
			p[m++] = items[i].t.p;
	holm_adjust(p, m);
	for (int i = 0, j = 0; i < n; i++)
		if (items[i].kind == K_TEST)
			items[i].holm = p[j++];
	free(p);
	return m;
}

static const char *const kind_names[] = { "test", "test", "test", "count", "absent", "not comparable" };

static void json_item(FILE *json, const struct item *it, double ma, double mb, const char *words,
		      int first)
{
	double ratio = it->na && it->nb && ma != 0 ? mb / ma : NAN;

	fprintf(json, "%s\n  {\"metric\": ", first ? "" : ",");
	json_str(json, it->name);
	fprintf(json, ", \"unit\": ");
	json_str(json, it->m->unit);
	fprintf(json, ", \"kind\": \"%s\", \"decimals\": %d, \"a_median\": ", kind_names[it->kind],
		it->m->decimals);
	json_num(json, ma);
	fprintf(json, ", \"b_median\": ");
	json_num(json, mb);
	fprintf(json, ", \"ratio\": ");
	json_num(json, ratio);
	fprintf(json, ", \"difference\": ");
	json_num(json, mb - ma);
	/* Each side's spread: two counts' ranges apart are a difference beyond
	 * the repetitions' own variation (tools/suite-summary shows those). */
	fprintf(json, ", \"a_min\": ");
	json_num(json, it->na ? it->va[0] : NAN);
	fprintf(json, ", \"a_max\": ");
	json_num(json, it->na ? it->va[it->na - 1] : NAN);
	fprintf(json, ", \"b_min\": ");
	json_num(json, it->nb ? it->vb[0] : NAN);
	fprintf(json, ", \"b_max\": ");
	json_num(json, it->nb ? it->vb[it->nb - 1] : NAN);
	fprintf(json, ", \"n_a\": %d, \"n_b\": %d, \"u\": ", it->na, it->nb);
	int tested = it->kind == K_TEST || it->kind == K_FEW || it->kind == K_SAME;
	json_num(json, tested ? it->t.u : NAN);
	fprintf(json, ", \"p\": ");
	json_num(json, tested && it->t.p >= 0 ? it->t.p : NAN);
	fprintf(json, ", \"p_holm\": ");
	json_num(json, it->holm);
	fprintf(json, ", \"method\": \"%s\", \"emulated\": %s, \"verdict\": ",
		!tested || it->t.p < 0 ? "none" : it->t.exact ? "exact" : "normal",
		it->emul == E_ICOUNT ? "\"icount\"" : it->emul == E_TCG ? "\"tcg\"" : "null");
	json_str(json, words);
	fprintf(json, "}");
}

static void print_item(FILE *f, const struct item *it, double ma, double mb, const char *words)
{
	int d = it->m->decimals;
	char sa[32] = "-", sb[32] = "-", sd[32] = "-", rt[16] = "-", p[16] = "-", h[16] = "-";

	if (it->na)
		snprintf(sa, sizeof(sa), "%.*f", d, ma);
	if (it->nb)
		snprintf(sb, sizeof(sb), "%.*f", d, mb);
	if (it->na && it->nb)
		snprintf(sd, sizeof(sd), "%.*f", d, mb - ma);
	if (it->na && it->nb && ma != 0)
		snprintf(rt, sizeof(rt), "%.4g", mb / ma);
	if (it->kind == K_TEST) {
		snprintf(p, sizeof(p), "%.3g", it->t.p);
		snprintf(h, sizeof(h), "%.3g", it->holm);
	}
	fprintf(f, "%-44s %-12s %12s %12s %8s %12s %3d %3d %8s %8s  %s\n", it->name, it->m->unit,
		sa, sb, rt, sd, it->na, it->nb, p, h, words);
}

/* "key": what sides_from prints after its "X from: ", then ", " (the model's a_from, b_from). */
static void json_text(FILE *json, const char *key, void (*from)(FILE *, const char *, const struct row *, int),
		      const struct row *s, int n)
{
	char *text = 0;
	size_t len = 0;
	FILE *t = open_memstream(&text, &len);

	if (!t)
		exit(3);
	from(t, "", s, n);
	fclose(t);
	text[strcspn(text, "\n")] = 0;
	fprintf(json, "\"%s\": ", key);
	json_str(json, text + strlen(" from: "));
	fprintf(json, ", ");
	free(text);
}

int print_compare(FILE *f, FILE *json, const struct report *rep, const char *an, const char *bn)
{
	int max = report_rows_max(rep);
	struct row *a = calloc(max + 1, sizeof(*a)), *b = calloc(max + 1, sizeof(*b));
	if (!a || !b)
		exit(3);
	int na = select_rows(rep, an, a, max), nb = select_rows(rep, bn, b, max);
	struct item *items = 0;
	int n = 0, cap = 0, by_mode, ntests, shown = 0;

	for (int s = 0; s < 2; s++)
		if (!(s ? nb : na)) {
			fprintf(stderr, "mmureport: --compare: '%s' names no mode, board or run of the input "
				"(a side is MODE, BOARD, RUN or RUN:MODE; RUN a board-N label, a file or #N)\n",
				s ? bn : an);
			free(a), free(b);
			return -1;
		}
	/* One mode a side: compare the metrics across them.  Several (two
	 * boards, two runs): mode by mode, the modes both have. */
	by_mode = distinct_modes(a, na) > 1 || distinct_modes(b, nb) > 1;
	if (collect(a, na, by_mode, &items, &n, &cap) < 0 ||
	    collect(b, nb, by_mode, &items, &n, &cap) < 0) {
		fprintf(stderr, "mmureport: out of memory\n");
		exit(3);
	}
	for (int i = 0; i < n; i++)
		items[i].left_out = !classify(&items[i], a, na, b, nb);
	ntests = correct(items, n);

	fprintf(f, "Comparison: A = %s, B = %s (Mann-Whitney U over the repetitions, two-sided, alpha %.2f, ",
		an, bn, ALPHA);
	if (ntests)
		fprintf(f, "Holm's correction over the %d test%s below", ntests, ntests == 1 ? "" : "s");
	else
		fprintf(f, "no test below, nothing to correct");
	fprintf(f, "; counts compared exactly)\n");
	sides_from(f, "A", a, na);
	sides_from(f, "B", b, nb);
	fprintf(f, "%-44s %-12s %12s %12s %8s %12s %3s %3s %8s %8s  %s\n", "metric", "unit", "A median",
		"B median", "B/A", "B-A", "nA", "nB", "p", "Holm p", "verdict");
	if (json) {
		fprintf(json, "{\"a\": ");
		json_str(json, an);
		fprintf(json, ", \"b\": ");
		json_str(json, bn);
		fprintf(json, ", \"alpha\": %.2f, \"correction\": \"holm\", \"tests\": %d, ", ALPHA, ntests);
		json_text(json, "a_from", sides_from, a, na);
		json_text(json, "b_from", sides_from, b, nb);
		fprintf(json, "\"metrics\": [");
	}
	for (int i = 0; i < n; i++) {
		struct item *it = &items[i];
		char words[240];

		if (!it->left_out) {
			double ma = it->na ? median_of(it->va, it->na) : NAN;
			double mb = it->nb ? median_of(it->vb, it->nb) : NAN;
			verdict(words, sizeof(words), it, ma, mb, side_lost_lines(a, na),
				side_lost_lines(b, nb));
			print_item(f, it, ma, mb, words);
			if (json)
				json_item(json, it, ma, mb, words, !shown);
			shown++;
		}
	}
	power_note(f, items, n, ntests);
	if (json) {
		char *note = 0;
		size_t len = 0;
		FILE *t = open_memstream(&note, &len);
		if (!t)
			exit(3);
		power_note(t, items, n, ntests);
		fclose(t);
		note[strcspn(note, "\n")] = 0;
		fprintf(json, "], \"note\": ");
		json_str(json, note);
		fprintf(json, "}");
		free(note);
	}
	for (int i = 0; i < n; i++)
		free(items[i].va), free(items[i].vb);
	free(items);
	free(a), free(b);
	if (!shown) {
		fprintf(stderr, "mmureport: --compare %s %s: no metric in common%s\n", an, bn,
			by_mode ? " (mode by mode: name one mode a side as RUN:MODE)" : "");
		return -1;
	}
	fprintf(f, "\n");
	return 0;
}
