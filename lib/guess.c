/* Cache levels from a latency curve (include/guess.h).  Shared by the
 * image and the host tools (mmuguess, mmureport), as crc32.c is.
 *
 * The facts it rests on, true of every CPU in use: a cache level's latency
 * is at least twice the one below it (L1 4-5 cycles, L2 12-17, L3 40-80,
 * memory 200 or more); the next level is at least 4x larger; a curve point
 * (the median of repetitions) carries 1-3 % noise, more at single points
 * another job disturbed.
 *
 * 1. Smooth: each point but the ends becomes the median of itself and its
 *    two neighbours, so one disturbed point makes no step (a true step's
 *    edge is kept: the median of a point on each side and one past it).
 * 2. Plateaus: runs of at least PLATEAU_POINTS points spanning an octave,
 *    within PLATEAU_TOL of their smallest; adjacent plateaus less than
 *    STEP_RATIO apart are one.  Both lie between the noise and the
 *    smallest step (2x); the octave because levels are 4x apart in size.
 *    A plateau under LEVEL_RATIO above a level's is part of that level's
 *    ramp (levels_of()), except on curves that step at a TLB too (a TLB
 *    curve, or a caller that sets TLB steps aside by their reach).
 * 3. A step between two plateaus, L below and U above, is reported as an
 *    interval, what the curve can resolve whatever the replacement policy:
 *    - past a level's capacity C, at W bytes, at most C of the W bytes can
 *      be held, so a cyclic chase misses at least (W - C) / W of its loads
 *      (LRU misses all of them; PLRU, NRU, random and RRIP-like policies
 *      fewer, never fewer than that).  The sweep's next point past a size
 *      on its grid (k x 2^n, k = 1, 1.25, 1.5, 1.75) is at least 8/7 of
 *      it: there the latency has risen by at least 1/8 of N - L, N the
 *      next level's latency: U, or where U is past two levels (the one
 *      between made no plateau: an L3 others share) at least 2L;
 *    - below C only conflicts miss: a physically indexed cache filled from
 *      randomly placed pages misses at C, in the sets that drew more lines
 *      than ways, about half the loads (0.63 for a direct-mapped one,
 *      1 - 1/e), never nearly all.  So the rise completes only past C.
 *    The interval: lo, the last point before the half-way one whose rise
 *    is under 1/RISE_PART of min(U - L, L) (1/16: half the 1/8 above, the
 *    other half the noise's room, at least 3x the 1-2 % a cache plateau
 *    carries), and hi,
 *    the first point within 1/RISE_PART of U.  Then C >= lo x 15/16 (a
 *    point under 1/16 of the rise held 15/16 of its bytes) and C <= hi.
 *    A victim (exclusive) level holds its lines and those below: C plus
 *    the lower levels.  A step's rise is never fitted to a shift: where
 *    its middle lies depends on the policy (0.8-1.3 of C is seen).
 * 4. The verdict: where the CPU documents the level's size, "consistent"
 *    when it lies in what step 3 allows (with one way a neighbour may
 *    hold: judge()), and the level is named by it (a step under 2x that
 *    holds no documented size is a shoulder: merge_shoulders());
 *    otherwise ("differs", or nothing documented) by lo.  An L3 that other
 *    tenants share (a guest's, or under an OS) holds what they leave: its
 *    step is an effective capacity, named by lo and never judged.
 * 5. TLB steps set aside: a random chase also steps where its pages
 *    outgrow a TLB.  lat_mem guesses from its TLB-local curve, which has
 *    none.  A caller with a page-spread curve gives `limit` or TLB reaches
 *    measured apart: a step whose half-way crossing lies within
 *    TLB_FACTOR of one is the TLB's (the reach moves with what else shares
 *    the TLB).
 * 6. Levels: each plateau before a cache step starts a level (its
 *    latency), ended by that step.  Memory is the plateau past the last
 *    level, claimed only if the curve ends in it, nothing was set aside
 *    after the last level, and it reaches twice every cache the CPU reports
 *    (where none does, 4x the last level).  At most GUESS_LEVELS levels. */
#include <stdio.h>
#include <string.h>
#include "guess.h"
#include "sort.h"

#define PLATEAU_POINTS	3
#define PLATEAU_TOL	30	/* percent */
#define STEP_RATIO	130	/* percent: upper plateau over lower */
#define LEVEL_RATIO	190	/* percent: a level over the one below (2x, less noise) */
#define RISE_PART	16	/* on the plateau: under 1/16 of the rise (step 3) */
#define TLB_FACTOR_NUM	3	/* a TLB's step: within 3/2 of its reach */
#define TLB_FACTOR_DEN	2
#define MAX_PLATEAUS	32

struct plateau { int lo, hi; int64_t ns100; };

static int64_t med3(int64_t a, int64_t b, int64_t c)
{
	if (a > b) { int64_t t = a; a = b; b = t; }
	return c < a ? a : c > b ? b : c;
}

/* Median of n values, every stride-th of v (n <= GUESS_MAX_POINTS). */
static int64_t median_of(const int64_t *v, int n, int stride)
{
	int64_t s[GUESS_MAX_POINTS];

	for (int i = 0; i < n; i++)
		s[i] = v[i * stride];
	return median_i64(s, n);
}

void guess_median_curve(const int64_t *v, int n, int stride, int npoints, int64_t *out)
{
	for (int i = 0; i < npoints; i++)
		out[i] = median_of(v + i, n < GUESS_MAX_POINTS ? n : GUESS_MAX_POINTS, stride);
}

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

/* Step 2: plateaus of the smoothed curve m, greedily from the small sizes. */
static int plateaus(const int64_t *m, const uint64_t *bytes, int n, struct plateau *p)
{
	int np = 0;

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
		if (j - i < PLATEAU_POINTS || bytes[j - 1] < bytes[i] * 2) {
			i++;
			continue;
		}
		p[np] = (struct plateau){ i, j - 1, median_of(m + i, j - i, 1) };
		if (np > 0 && p[np].ns100 * 100 < p[np - 1].ns100 * STEP_RATIO) {
			p[np - 1].hi = j - 1;		/* too close: the same plateau */
			p[np - 1].ns100 = median_of(m + p[np - 1].lo, j - p[np - 1].lo, 1);
		} else {
			np++;
		}
		i = j;
	}
	return np;
}

/* Step 2's levels: a level is at least twice as slow as the one below,
 * so a plateau under LEVEL_RATIO above the first of a group belongs to
 * that group: a ramp's shoulder (misses in the sets some placement
 * overfilled, an adaptive policy keeping part of a set), after the level's
 * own plateau (its way out) or before it (the way in to it).  Which, the
 * curve cannot always tell, so a step is taken from the first plateau of
 * the group below (low: where the curve leaves that level) to the last of
 * the group above (up: where it has arrived); the group's longest plateau
 * gives the level's latency (p).  Returns the groups. */
static int levels_of(struct plateau *p, int np, struct plateau *low, struct plateau *up)
{
	int nl = 0, base = 0;

	for (int k = 1; k <= np; k++) {
		if (k < np && p[k].ns100 * 100 < p[base].ns100 * LEVEL_RATIO)
			continue;		/* in base's group */
		int best = base;
		for (int j = base + 1; j < k; j++)
			if (p[j].hi - p[j].lo > p[best].hi - p[best].lo)
				best = j;
		low[nl] = p[base];
		up[nl] = p[k - 1];
		p[nl++] = p[best];
		base = k;
	}
	return nl;
}

/* Step 3 between plateaus a and b: the half-way crossing (interpolated:
 * step 5's, and a page chase's TLB reach) and the interval's points *lo
 * and *hi. */
static uint64_t step(const int64_t *m, const uint64_t *bytes, const struct plateau *a,
		     const struct plateau *b, int *lo, int *hi)
{
	int64_t rise = b->ns100 - a->ns100, half = a->ns100 + rise / 2;
	int64_t first = rise < a->ns100 ? rise : a->ns100;	/* the next level's rise, at least */
	int t = a->hi, i;			/* t: the last point under half */

	while (t + 1 < b->lo && m[t + 1] < half)
		t++;
	for (i = t; i > a->lo && (m[i] - a->ns100) * RISE_PART >= first; i--)
		;				/* the last point before the rise */
	*lo = i;
	for (i = t + 1; i < b->hi && (b->ns100 - m[i]) * RISE_PART > rise; i++)
		;
	*hi = i;
	if (m[t] >= half || m[t + 1] <= m[t])
		return bytes[t];
	return bytes[t] + (bytes[t + 1] - bytes[t]) * (uint64_t)(half - m[t]) /
	       (uint64_t)(m[t + 1] - m[t]);
}

/* Does the CPU's size for level k lie in what lv's step allows (step 3;
 * with one way a neighbour may hold where others run beside us)? */
static int holds(const struct guess_curve *c, int k, const struct guess_level *lv, uint64_t room)
{
	uint32_t w = c->shared_top ? c->cpu_ways[k] : 0;
	uint64_t hi = lv->hi_bytes;

	return c->cpu_bytes[k] && lv->lo_bytes - lv->lo_bytes / RISE_PART <= room &&
	       c->cpu_bytes[k] <= (w > 1 ? hi + hi / (w - 1) : hi);
}

/* Step 4: level i's verdict and name.  Where others run beside us, a
 * neighbour (an SMT sibling, another tenant's vCPU on it) may hold one way
 * of every set: of w ways ours are then w - 1, and the rise completes by
 * (w - 1)/w of the size, so the size may be hi x w / (w - 1) (one way, no
 * more, as the simulated caches of selftest/test_levels.py take). */
static void judge(const struct guess_curve *c, int i, struct guess_level *lv)
{
	uint64_t doc = i < GUESS_LEVELS ? c->cpu_bytes[i] : 0, room = doc;

	lv->cpu_bytes = doc;
	lv->bytes = lv->lo_bytes;
	if (i < GUESS_LEVELS && c->exclusive & 1u << i)
		for (int k = 0; k < i; k++)
			room += c->cpu_bytes[k];
	if (i == 2 && c->shared_top)
		lv->verdict = GUESS_SHARED;
	else if (!doc)
		lv->verdict = GUESS_UNDOCUMENTED;
	else if (holds(c, i, lv, room)) {
		lv->verdict = GUESS_CONSISTENT;
		lv->bytes = doc;
	} else {
		lv->verdict = GUESS_DIFFERS;
	}
}

/* A step that holds none of the sizes the CPU documents and rises under
 * 2x (less than a level's) is a shoulder of the rise after it, not a level:
 * the two are one step.  Seen on our Zen 3 guest: L2 3.9 ns, a shoulder at
 * 7.4 ns from 256 to 512 KiB (a placement that overfilled some sets), L3
 * 14 ns, its plateau 1.9x above the shoulder's.  Returns the levels left. */
static int merge_shoulders(const struct guess_curve *c, struct guess_level *lv, int n)
{
	int documented = 0;

	for (int k = 0; k < GUESS_LEVELS; k++)
		documented |= c->cpu_bytes[k] != 0;
	for (int i = 0; documented && i + 1 < n; ) {
		int held = lv[i].verdict == GUESS_SHARED;

		for (int k = 0; k < GUESS_LEVELS; k++)
			held |= holds(c, k, &lv[i], c->cpu_bytes[k]);
		if (held || lv[i + 1].ns100 * 100 >= lv[i].ns100 * 200) {
			i++;
			continue;
		}
		lv[i].hi_bytes = lv[i + 1].hi_bytes;
		lv[i].open = lv[i + 1].open;
		memmove(&lv[i + 1], &lv[i + 2], (size_t)(n - i - 2) * sizeof(*lv));
		n--;
		for (int j = i; j < n; j++)	/* each now judged as the level it is */
			judge(c, j, &lv[j]);
	}
	return n;
}

/* Step 6's memory: the plateau from `start` if the curve ends in it. */
static void claim_memory(const struct guess_curve *c, const struct plateau *p, int start,
			 uint64_t last_aside, struct guess *g)
{
	int n = c->n;
	char text[128];

	if (last_aside > (g->levels ? g->level[g->levels - 1].lo_bytes : 0)) {
		add_note(g, "a step after the last level was set aside: memory not claimed");
	} else if (c->cpu_top && c->bytes[p[start].hi] < 2 * c->cpu_top) {
		/* a guest's CPUID may report the host's whole L3, larger than the sweep */
		snprintf(text, sizeof(text), "memory not reached: the CPU reports a %llu KiB cache, "
			 "the sweep ends at %llu KiB", (unsigned long long)(c->cpu_top >> 10),
			 (unsigned long long)(c->bytes[n - 1] >> 10));
		add_note(g, text);
	} else if (!c->cpu_top && (!g->levels || c->bytes[n - 1] < 4 * g->level[g->levels - 1].lo_bytes)) {
		snprintf(text, sizeof(text), "memory not claimed: the sweep ends at %llu KiB, under "
			 "4x the last level (no cache size from the CPU)",
			 (unsigned long long)(c->bytes[n - 1] >> 10));
		add_note(g, text);
	} else {
		g->mem = 1;
		g->top.ns100 = p[start].ns100;
		g->top.lo = p[start].lo;
		g->top.hi = p[start].hi;
	}
}

int guess_caches(const struct guess_curve *c, const uint64_t *tlb_reach, int ntlb,
		 uint64_t limit, struct guess *g)
{
	int64_t m[GUESS_MAX_POINTS];
	struct plateau p[MAX_PLATEAUS], low[MAX_PLATEAUS], up[MAX_PLATEAUS];
	struct guess_level all[MAX_PLATEAUS];
	int nall = 0;
	int np, n = c->n, start = 0, open = 0;
	int64_t tail;
	uint64_t last_aside = 0;
	char text[128];

	memset(g, 0, sizeof(*g));
	if (n < 2 * PLATEAU_POINTS || n > GUESS_MAX_POINTS) {
		snprintf(g->note, sizeof(g->note), "%d points: a curve needs %d to %d", n,
			 2 * PLATEAU_POINTS, GUESS_MAX_POINTS);
		return 0;
	}
	for (int i = 0; i < n; i++)
		if ((i && c->bytes[i] <= c->bytes[i - 1]) || c->ns100[i] <= 0) {
			snprintf(g->note, sizeof(g->note), "point %d: sizes must ascend and "
				 "latencies be positive", i);
			return 0;
		}

	m[0] = c->ns100[0];			/* step 1; the ends as they are */
	m[n - 1] = c->ns100[n - 1];
	for (int i = 1; i < n - 1; i++)
		m[i] = med3(c->ns100[i - 1], c->ns100[i], c->ns100[i + 1]);
	np = plateaus(m, c->bytes, n, p);
	if (!c->tlb && !ntlb && !limit)	/* TLB steps (set aside by reach) are under 2x */
		np = levels_of(p, np, low, up);
	else
		for (int k = 0; k < np; k++)
			low[k] = up[k] = p[k];
	if (np == 0) {
		add_note(g, "no plateau in the curve: no level visible");
		return 0;
	}
	/* A curve that still rises at its end: the last step's upper plateau
	 * is past the sweep (an adaptive policy keeps part of a set that
	 * thrashes, so the rise goes on well past the size).  Its end stands
	 * in for it: the step is open, its hi the sweep's end. */
	tail = med3(c->ns100[n - 3], c->ns100[n - 2], c->ns100[n - 1]);
	if (tail * 100 >= up[np - 1].ns100 * LEVEL_RATIO && up[np - 1].hi < n - 1 && np < MAX_PLATEAUS) {
		p[np] = low[np] = up[np] = (struct plateau){ n - 1, n - 1, tail };
		np++;
		open = 1;
	}

	for (int k = 0; k + 1 < np; k++) {
		struct guess_level *lv = &all[nall];
		int lo, hi;
		uint64_t at = step(m, c->bytes, &low[k], &up[k + 1], &lo, &hi);

		if ((limit && c->bytes[lo] >= limit) || tlb_step(at, tlb_reach, ntlb)) {
			last_aside = c->bytes[lo];
			if (g->tlb_steps < 4)
				g->tlb_at[g->tlb_steps] = c->bytes[lo];
			g->tlb_steps++;
			continue;		/* the level goes on */
		}
		memset(lv, 0, sizeof(*lv));
		lv->lo_bytes = c->bytes[lo];
		lv->hi_bytes = c->bytes[open && k + 2 == np ? n - 1 : hi];
		lv->open = open && k + 2 == np;
		lv->at_bytes = at;
		lv->ns100 = p[start].ns100;
		lv->lo = p[start].lo;
		lv->hi = p[start].hi;
		judge(c, nall++, lv);
		start = k + 1;
	}
	nall = merge_shoulders(c, all, nall);
	g->levels = nall < GUESS_LEVELS ? nall : GUESS_LEVELS;
	memcpy(g->level, all, (size_t)g->levels * sizeof(all[0]));
	if (nall > GUESS_LEVELS) {
		add_note(g, "more than 3 cache steps: only the first 3 are named, memory not");
		return g->levels;
	}
	if (g->tlb_steps) {
		snprintf(text, sizeof(text), "%d step%s at %llu KiB%s not named: %s", g->tlb_steps,
			 g->tlb_steps > 1 ? "s" : "", (unsigned long long)(g->tlb_at[0] >> 10),
			 g->tlb_steps > 1 ? " and above" : "",
			 limit ? "at or beyond the size where the TLB may step"
			       : "within a factor 1.5 of a TLB's reach");
		add_note(g, text);
	}
	if (open || tail * 100 >= up[np - 1].ns100 * STEP_RATIO)
		add_note(g, "the curve still rises at its largest size: memory not reached");
	else
		claim_memory(c, p, start, last_aside, g);
	if (np == 1)
		add_note(g, "no step in the curve: no cache level visible");
	return g->levels;
}

const char *guess_verdict_name(int verdict)
{
	static const char *const name[] = { "undocumented", "consistent", "differs", "shared" };

	return verdict >= 0 && verdict <= GUESS_SHARED ? name[verdict] : "?";
}

/* "512 KiB", "32 MiB": the unit that divides the size. */
static int size_text(char *buf, int size, uint64_t bytes)
{
	if (bytes >= 1u << 20 && !(bytes & ((1u << 20) - 1)))
		return snprintf(buf, size, "%llu MiB", (unsigned long long)(bytes >> 20));
	if (bytes >= 1024)
		return snprintf(buf, size, "%llu KiB", (unsigned long long)(bytes >> 10));
	return snprintf(buf, size, "%llu B", (unsigned long long)bytes);
}

void guess_describe(const struct guess *g, int i, char *buf, int size)
{
	const struct guess_level *lv = &g->level[i];
	char lo[24], hi[32], cpu[24];

	size_text(lo, sizeof(lo), lv->lo_bytes);
	size_text(cpu, sizeof(cpu), lv->hi_bytes);
	snprintf(hi, sizeof(hi), "%s%s", lv->open ? "past " : "", cpu);	/* open: still rising */
	size_text(cpu, sizeof(cpu), lv->cpu_bytes);
	switch (lv->verdict) {
	case GUESS_CONSISTENT:
		snprintf(buf, size, "L%d %s to %s: consistent with the CPU's %s", i + 1, lo, hi, cpu);
		break;
	case GUESS_DIFFERS:
		snprintf(buf, size, "L%d %s to %s: differs (CPU says %s); named %s, the lower end",
			 i + 1, lo, hi, cpu, lo);
		break;
	case GUESS_SHARED:
		snprintf(buf, size, "L%d %s to %s: shared with other tenants: an effective capacity, "
			 "not the cache's size%s%s%s", i + 1, lo, hi, lv->cpu_bytes ? " (CPU says " : "",
			 lv->cpu_bytes ? cpu : "", lv->cpu_bytes ? ")" : "");
		break;
	default:
		snprintf(buf, size, "L%d %s to %s: no size from the CPU; named %s, the lower end",
			 i + 1, lo, hi, lo);
	}
}
