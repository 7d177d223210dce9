/* Cache levels from a latency curve (include/guess.h).  Shared by the
 * image and the host tool tools/mmuguess.c, as crc32.c is.
 *
 * The method:
 * 1. Smooth: each point but the ends becomes the median of itself and
 *    its two neighbours, so that one disturbed point makes no step.
 * 2. Plateaus: runs of at least PLATEAU_POINTS points, spanning at least
 *    an octave in size, whose largest latency is within PLATEAU_TOL
 *    percent of their smallest.  Adjacent plateaus less than STEP_RATIO
 *    percent apart are one plateau.  An octave, so that the ramp of a
 *    smeared step (below) or a steady rise is never a level.
 * 3. Steps: between two plateaus, where half the loads miss: the size at
 *    which the curve crosses the arithmetic mean of the two plateaus
 *    (interpolated between the last point below and the first above),
 *    taken to the nearer (on a log scale) of 2^k and 3 * 2^k bytes, as
 *    caches come in those sizes.  Half, because that point stays at the
 *    size however the step is smeared.  A physically indexed cache filled
 *    from randomly placed 4 KiB pages (a guest's memory on a host's 4 KiB
 *    pages, even under THP or hugetlb in the guest) overflows the sets of
 *    the colours that drew more than `ways` pages long before it is full:
 *    a load misses once the other pages of its colour number `ways` or
 *    more, P(Binomial(pages - 1, 1 / colours) >= ways), which is one half
 *    at 0.94-0.98 of the size for the usual caches (256 KiB 4-way to
 *    32 MiB 16-way), while the geometric mean is crossed at 0.75-0.88.  On
 *    a sharp step half is crossed between the size and the next point.
 *    The nearer size, not the next one up: a crossing a little below a
 *    size is that size, and one a little above it too; sweep points 4 an
 *    octave put a size's neighbours at 3/4 and 4/3 of it or further.
 *    Another job evicting our lines only raises points below the size.
 * 4. TLB steps are set aside: a chase also steps where the pages it
 *    touches outgrow a TLB, and in a random chase that step looks like a
 *    cache's (~384 KiB on Zen 5 per REFERENCE.md, 256 KiB on our Zen 3:
 *    both below L2).  Either the caller's curve cannot have such a step
 *    below `limit` (no translation, or pages so large that the TLB
 *    reaches past it: the lat_mem probe's choice), or the caller gives
 *    the TLB reaches measured apart (tools/pagechase, the tlb probe): a
 *    step within a factor 1.5 of one is the TLB's.  A line-stride curve
 *    does not separate them on CPUs whose prefetchers hide the cache
 *    steps at line stride (our Zen 3 does: see selftest/data/README.md).
 *    A TLB step followed within an octave by a cache's is a ramp, not a
 *    level: it names nothing.
 * 5. Levels: each plateau before a cache step starts a level (its
 *    latency), ended by that step (its size); a TLB step inside a level
 *    only raises its later points.  The plateau after the last cache step
 *    is main memory, if the curve ends in it rather than still rising. */
#include <stdio.h>
#include <string.h>
#include "guess.h"

#define PLATEAU_POINTS	3
#define PLATEAU_TOL	30	/* percent */
#define STEP_RATIO	130	/* percent: upper plateau over lower */
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

/* The next cache size after `x` among 1, 2, 3, 4, 6, 8, 12, ...: 2^k and 3 * 2^k. */
static uint64_t next_size(uint64_t x)
{
	if (x < 2)
		return 2;
	return (x & (x - 1)) ? x / 3 * 4 : x / 2 * 3;
}

uint64_t guess_snap(uint64_t bytes)
{
	uint64_t lo = 1, hi = 2;

	if (bytes >= 1ull << 31)		/* no cache that large; no overflow below */
		return bytes;
	while (hi <= bytes) {
		lo = hi;
		hi = next_size(hi);
	}
	return bytes * bytes < lo * hi ? lo : hi;	/* the nearer on a log scale */
}

/* Is the step at `t` bytes (before rounding) a TLB's?  Within a factor
 * 1.5 of a reach: the reach measured apart moves a little with what
 * else shares the TLB (an SMT sibling, the page walker's own entries). */
static int tlb_step(uint64_t t, const uint64_t *reach, int nreach)
{
	for (int i = 0; i < nreach; i++)
		if (t * 3 >= reach[i] * 2 && t * 2 <= reach[i] * 3)
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
	char text[120];

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
		at = c->bytes[t];		/* where half the loads miss: */
		if (m[t] < half && m[t + 1] > half)	/* between t and t + 1 */
			at += (c->bytes[t + 1] - at) * (uint64_t)(half - m[t]) /
			      (uint64_t)(m[t + 1] - m[t]);
		size = guess_snap(at);
		if ((limit && size >= limit) || tlb_step(at, tlb_reach, ntlb)) {
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

	/* The last level's plateau is memory only if the curve ends in it. */
	if (capped) {
		;
	} else if (med3(c->ns100[n - 3], c->ns100[n - 2], c->ns100[n - 1]) * 100 >=
		   p[np - 1].ns100 * STEP_RATIO) {
		add_note(g, "the curve still rises at its largest size: memory not reached");
	} else if (np == 1) {
		add_note(g, "no step in the curve: no cache level visible");
		g->mem = 1;
	} else {
		g->mem = 1;
	}
	if (g->mem) {
		g->top.ns100 = p[start].ns100;
		g->top.lo = p[start].lo;
		g->top.hi = p[start].hi;
	}
	return g->levels;
}
