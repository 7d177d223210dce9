/* Cache levels from a latency curve (include/guess.h).  Shared by the
 * image and the host tools (mmuguess, mmureport), as crc32.c is.
 *
 * Every threshold is here, each with its reason; none is fitted to one
 * machine's runs.  The facts they rest on: a cache level's latency is at
 * least twice the one below it on every CPU in use (L1 4-5 cycles, L2
 * 12-17, L3 40-80, memory 200 or more; the smallest ratio, memory over a
 * large L3, still about 2); the next level is at least 4x larger (L1
 * 8-80 KiB, L2 256 KiB-4 MiB, L3 4 MiB and up); noise is 1-3 % a point,
 * more at single points another job disturbed.
 *
 * 1. Smooth: each point but the ends becomes the median of itself and
 *    its two neighbours, so that one disturbed point makes no step.
 * 2. Plateaus: runs of at least PLATEAU_POINTS points spanning at least
 *    an octave, whose largest latency is within PLATEAU_TOL percent of
 *    their smallest; adjacent plateaus less than STEP_RATIO percent apart
 *    are one.  Both sit between the noise (3 %) and the smallest step
 *    (2x), with room for a smeared step's slope; the octave because
 *    levels are 4x apart in size, so the ramp of a smeared step or a
 *    steady rise is never a level of its own.
 * 3. Steps, between two plateaus.  Sharp: where the last point below the
 *    half-way latency is still on the lower plateau (under a quarter of
 *    the way up: SHARP_QUARTER) and the next is on the upper one (over
 *    three quarters), that point holds the whole cache and the next one
 *    misses; caches come in the sweep's sizes, so it is the size.
 *    Smeared: where half the loads miss, the crossing of the two
 *    plateaus' mean, interpolated between the points either side.  A
 *    physically indexed cache filled from randomly placed 4 KiB pages (a
 *    guest's memory on the host's 4 KiB pages, whatever the guest's page
 *    size) misses before it is full: P(Binomial(pages - 1, 1 / colours)
 *    >= ways) is one half at 0.94-0.98 of the size for 256 KiB 4-way up
 *    to 32 MiB 16-way; where a neighbour's lines (a busy SMT sibling)
 *    hold one way of every set, P(... >= ways - 1) is, at 0.84 of the size
 *    for 8 ways, 0.92 for 16.  Measured crossings, on curves that are
 *    already each point's fastest over repetitions and modes: 0.86 (Zen 3
 *    guest, 512 KiB L2), 0.83-0.88 and 1.12 (Zen 4 guests, 1 MiB 8-way L2:
 *    one way taken, as above; L3 refills that ramp).  The crossing is
 *    raised by 1/SMEAR_SHIFT (8 %: the middle of 0.84-1.12, in ratio, goes
 *    to the middle of the 2^n window) and taken down to the sweep's grid
 *    (k * 2^n, k = 1, 1.25, 1.5, 1.75): a crossing gives the size or the
 *    point below it, never the point above, from 0.81 to 1.15 of a 2^n
 *    size, 0.74-1.10 of 1.25 x 2^n, 0.77-1.07 of 1.5 x 2^n and 0.79-1.05
 *    of 1.75 x 2^n (the points either side are 1.14-1.25x away: no one
 *    shift serves every crossing there could be, and a curve that crosses
 *    outside these is named a point off).
 * 4. TLB steps set aside: a random chase also steps where its pages
 *    outgrow a TLB.  The lat_mem probe's levels come from its TLB-local
 *    curve, which has no such step, so it sets none aside.  A caller with
 *    a page-spread curve gives `limit` (steps at or above it may be the
 *    TLB's) or TLB reaches measured apart (tools/pagechase, the tlb
 *    probe): a step within TLB_FACTOR of one is the TLB's (the reach
 *    moves with what else shares the TLB: an SMT sibling, the walker's
 *    own entries).  A TLB step followed within an octave by a cache's is
 *    a ramp, not a level: it names nothing.
 * 5. Levels: each plateau before a cache step starts a level (its
 *    latency), ended by that step (its size).  Memory is the plateau past
 *    the last level, claimed only if the curve ends in it, nothing was
 *    set aside after the last level, and it reaches twice every cache
 *    the CPU reports (where none does, the sweep reached 4x the last level).
 *    At most GUESS_LEVELS levels: more steps name no memory. */
#include <stdio.h>
#include <string.h>
#include "guess.h"

#define PLATEAU_POINTS	3
#define PLATEAU_TOL	30	/* percent */
#define STEP_RATIO	130	/* percent: upper plateau over lower */
#define SHARP_QUARTER	4	/* sharp: from under 1/4 of the way up to over 3/4 */
#define SMEAR_SHIFT	12	/* smeared: the crossing raised by 1/12 (8 %) */
#define TLB_FACTOR_NUM	3	/* a TLB's step: within 3/2 of its reach */
#define TLB_FACTOR_DEN	2
#define MAX_PLATEAUS	32

struct plateau { int lo, hi; int64_t ns100; };

static int64_t med3(int64_t a, int64_t b, int64_t c)
{
	if (a > b) { int64_t t = a; a = b; b = t; }
	return c < a ? a : c > b ? b : c;
}

/* Median of v[lo..hi] (at most GUESS_MAX_POINTS). */
static int64_t median(const int64_t *v, int lo, int hi)
{
	int64_t s[GUESS_MAX_POINTS];
	int n = 0;

	for (int i = lo; i <= hi; i++) {	/* insertion sort: few points */
		int j = n++;
		while (j > 0 && s[j - 1] > v[i]) {
			s[j] = s[j - 1];
			j--;
		}
		s[j] = v[i];
	}
	return s[n / 2];
}

/* The largest k * 2^n bytes, k in {1, 1.25, 1.5, 1.75}, at or below
 * `bytes`: the grid of the probe's sweep (4 points an octave), which holds
 * the sizes caches come in (2^n, 3 * 2^n, and 1.25 MiB or 5 MiB as Intel's
 * 10- and 20-way caches are); no finer grid than the sweep can tell apart.
 * Below 8 bytes the size as it is. */
uint64_t guess_grid_floor(uint64_t bytes)
{
	uint64_t p = 8;

	if (bytes < 8 || bytes >= 1ull << 40)
		return bytes;
	while (p * 2 <= bytes)
		p *= 2;
	for (int q = 7; q > 4; q--)
		if (p * q / 4 <= bytes)
			return p * q / 4;
	return p;
}

/* Is the step at `t` bytes (before rounding) a TLB's?  Within a factor
 * 1.5 of a reach: the reach measured apart moves a little with what
 * else shares the TLB (an SMT sibling, the page walker's own entries). */
static int tlb_step(uint64_t t, const uint64_t *reach, int nreach)
{
	for (int i = 0; i < nreach; i++)
		if (t * TLB_FACTOR_NUM >= reach[i] * TLB_FACTOR_DEN &&
		    t * TLB_FACTOR_DEN <= reach[i] * TLB_FACTOR_NUM)
			return 1;
	return 0;
}

static void add_note(struct guess *g, const char *text)
{
	size_t n = strlen(g->note);

	snprintf(g->note + n, sizeof(g->note) - n, "%s%s", n ? "; " : "", text);
}

int guess_caches(const struct guess_curve *c, const uint64_t *tlb_reach, int ntlb,
		 uint64_t limit, struct guess *g)
{
	int64_t m[GUESS_MAX_POINTS];
	struct plateau p[MAX_PLATEAUS];
	int np = 0, n = c->n, start, capped = 0;
	uint64_t last_aside = 0;
	char text[128];

	memset(g, 0, sizeof(*g));
	if (n < 2 * PLATEAU_POINTS || n > GUESS_MAX_POINTS) {
		snprintf(g->note, sizeof(g->note), "%d points: a curve needs %d to %d", n,
			 2 * PLATEAU_POINTS, GUESS_MAX_POINTS);
		return 0;
	}
	for (int i = 1; i < n; i++)
		if (c->bytes[i] <= c->bytes[i - 1] || c->ns100[i] <= 0) {
			snprintf(g->note, sizeof(g->note), "point %d: sizes must ascend and "
				 "latencies be positive", i);
			return 0;
		}

	/* 1. Smooth (the ends as they are: with their two nearest neighbours
	 * they would flatten a curve that still rises). */
	m[0] = c->ns100[0];
	m[n - 1] = c->ns100[n - 1];
	for (int i = 1; i < n - 1; i++)
		m[i] = med3(c->ns100[i - 1], c->ns100[i], c->ns100[i + 1]);

	/* 2. Plateaus, greedily from the small sizes. */
	for (int i = 0; i < n && np < MAX_PLATEAUS; ) {
		int64_t lo = m[i], hi = m[i];
		int j = i + 1;

		while (j < n) {
			int64_t l = m[j] < lo ? m[j] : lo, h = m[j] > hi ? m[j] : hi;
			if (h * 100 > l * (100 + PLATEAU_TOL))
				break;
			lo = l;
			hi = h;
			j++;
		}
		/* Long enough: points, and an octave in size (step 2). */
		if (j - i < PLATEAU_POINTS || c->bytes[j - 1] < c->bytes[i] * 2) {
			i++;
			continue;
		}
		p[np].lo = i;
		p[np].hi = j - 1;
		p[np].ns100 = median(m, i, j - 1);
		/* Too close to the one before (or below it): the same plateau. */
		if (np > 0 && p[np].ns100 * 100 < p[np - 1].ns100 * STEP_RATIO) {
			p[np - 1].hi = j - 1;
			p[np - 1].ns100 = median(m, p[np - 1].lo, j - 1);
		} else {
			np++;
		}
		i = j;
	}
	if (np == 0) {
		add_note(g, "no plateau in the curve: no level visible");
		return 0;
	}

	/* 3.-5. Steps between adjacent plateaus; levels. */
	start = 0;				/* first plateau of the current level */
	for (int k = 0; k + 1 < np; k++) {
		int64_t half = (p[k].ns100 + p[k + 1].ns100) / 2;
		int t = p[k].hi;
		uint64_t size, at;

		while (t + 1 < p[k + 1].lo && m[t + 1] < half)
			t++;
		at = c->bytes[t];
		/* No crossing between t and t + 1 (both on one side of half):
		 * t as it is.  A next point exactly at half is the crossing. */
		if ((m[t] * SHARP_QUARTER <= p[k].ns100 * (SHARP_QUARTER - 1) + p[k + 1].ns100 &&
		     m[t + 1] * SHARP_QUARTER >= p[k].ns100 + p[k + 1].ns100 * (SHARP_QUARTER - 1)) ||
		    m[t] >= half || m[t + 1] < half) {
			size = at;			/* sharp (step 3) */
		} else {
			at += (c->bytes[t + 1] - at) * (uint64_t)(half - m[t]) /
			      (uint64_t)(m[t + 1] - m[t]);
			size = guess_grid_floor(at + at / SMEAR_SHIFT);	/* smeared */
		}
		if ((limit && size >= limit) || tlb_step(at, tlb_reach, ntlb)) {
			last_aside = size;
			if (g->tlb_steps < 4)
				g->tlb_at[g->tlb_steps] = size;
			g->tlb_steps++;
			continue;		/* the level goes on */
		}
		if (g->levels == GUESS_LEVELS) {
			add_note(g, "more than 3 cache steps: only the first 3 are named, memory not");
			capped = 1;
			break;
		}
		g->level[g->levels].bytes = size;
		g->level[g->levels].ns100 = p[start].ns100;
		g->level[g->levels].lo = p[start].lo;
		g->level[g->levels].hi = p[start].hi;
		g->levels++;
		start = k + 1;
	}
	if (g->tlb_steps) {
		snprintf(text, sizeof(text), "%d step%s at %llu KiB%s not named: %s", g->tlb_steps,
			 g->tlb_steps > 1 ? "s" : "", (unsigned long long)(g->tlb_at[0] >> 10),
			 g->tlb_steps > 1 ? " and above" : "",
			 limit ? "at or beyond the size where the TLB may step"
			       : "within a factor 1.5 of a TLB's reach");
		add_note(g, text);
	}

	/* Memory is what lies past every cache: the last level's plateau is
	 * memory only if the curve ends in it, nothing was set aside after the
	 * last level named (a step not named may be a cache's), and it goes on
	 * to twice every cache the CPU reports (a smeared step is done by 2x;
	 * a guest's CPUID may report the host's cache, larger than what the
	 * guest's curve shows, and a flat plateau across that size says there
	 * is no cache step there); where none is reported, the sweep reached
	 * 4x the largest level named.  A flat curve is never memory. */
	if (capped) {
		;
	} else if (med3(c->ns100[n - 3], c->ns100[n - 2], c->ns100[n - 1]) * 100 >=
		   p[np - 1].ns100 * STEP_RATIO) {
		add_note(g, "the curve still rises at its largest size: memory not reached");
	} else if (last_aside > (g->levels ? g->level[g->levels - 1].bytes : 0)) {
		add_note(g, "a step after the last level was set aside: memory not claimed");
	} else if (c->cpu_top && c->bytes[p[start].hi] < 2 * c->cpu_top) {
		snprintf(text, sizeof(text), "memory not reached: the CPU reports a %llu KiB cache, "
			 "the sweep ends at %llu KiB", (unsigned long long)(c->cpu_top >> 10),
			 (unsigned long long)(c->bytes[n - 1] >> 10));
		add_note(g, text);
	} else if (!c->cpu_top && (!g->levels || c->bytes[n - 1] < 4 * g->level[g->levels - 1].bytes)) {
		snprintf(text, sizeof(text), "memory not claimed: the sweep ends at %llu KiB, under "
			 "4x the last level (no cache size from the CPU)",
			 (unsigned long long)(c->bytes[n - 1] >> 10));
		add_note(g, text);
	} else {
		g->mem = 1;
	}
	if (np == 1)
		add_note(g, "no step in the curve: no cache level visible");
	if (g->mem) {
		g->top.ns100 = p[start].ns100;
		g->top.lo = p[start].lo;
		g->top.hi = p[start].hi;
	}
	return g->levels;
}

int guess_local(const struct guess_curve *local, int n, int64_t *ref, uint32_t *used,
		struct guess *g)
{
	const struct guess_curve *mine = &local[0];
	struct guess_curve gc = { mine->n, mine->bytes, ref, mine->cpu_top };

	*used = 0;
	for (int m = 0; m < n && m < 32; m++) {
		const struct guess_curve *o = &local[m];
		if (o->n != mine->n || memcmp(o->bytes, mine->bytes, mine->n * sizeof(mine->bytes[0])))
			continue;
		for (int i = 0; i < mine->n; i++)
			if (!*used || o->ns100[i] < ref[i])
				ref[i] = o->ns100[i];
		*used |= 1u << m;
	}
	return guess_caches(&gc, 0, 0, 0, g);
}
