/* Probe `tlb`: what a TLB fill costs and how many entries each level holds.
 *
 * A pointer chase visits P pages, one load per page, in a random cyclic
 * order (each load's address comes from the one before, so no prefetcher
 * runs ahead).  The load in page i sits at line i mod (4096 / line size),
 * so the P lines spread over the cache's sets as P lines in a row would.
 * Beside it, at every P, the same chase over P lines packed in a row (a
 * page holds 4096 / line of them: few pages, no TLB misses): what the
 * caches alone make of P lines.  The TLB's share of a load is the
 * difference, and the curve the probe reads is the spread chase less the
 * packed one's rise over its own smallest point (Saavedra's and
 * Calibrator's subtraction): when P lines outgrow the L1 data cache both
 * chases slow alike, so a cache step is never taken for a TLB level.
 * P runs from 1 to 4x the TLB's entries where a software-refilled TLB
 * gives them, else to MAX_PAGES (16384: 4x the largest second-level TLBs
 * in use, 1536-4096 entries); where that curve rises by half over the
 * plateau (two points in a row; see threshold()), both ends of the step
 * are bisected to the exact P: the level's entries lie in the interval
 * (RISE_PART), held against what the CPU documents (judge()); up to
 * MAX_LEVELS levels 4x apart (LEVEL_APART).  A
 * level's miss cost is the rise; where our own handler refills the TLB
 * (the 405) it is divided by the misses per load its counters saw, so ITLB
 * misses of the loop's own code page do not count as part of a data miss.
 * The 405's counters check the levels (claim_levels); modes with large
 * pages sweep again (large_sweep). */
#include <stdio.h>
#include <string.h>
#include "probe.h"
#include "sort.h"

#define PAGE		4096u
#define MAX_PAGES	16384u		/* sweep end where nothing says (see above) */
#define MAX_POINTS	128		/* 29 coarse, up to 24 a step's two bisections */
#define MAX_LEVELS	3
/* TLB levels in use are 8x or more apart in entries (L1 32-96, L2 512-4096;
 * the 405's shadow 8 and main 64): a step within 4x of the level below is
 * that level's ramp, not a level. */
#define LEVEL_APART	4
/* A step across which the packed chase itself rises by 30 % (the smallest
 * cache step, lib/guess.c's STEP_RATIO) is a cache's edge, not a TLB's. */
#define CACHE_RISE	130
#define WARM_PASSES	4		/* before the counted one: time for stale entries to go */
/* A level's interval, as lib/guess.c's step 3 for caches.  With E entries
 * a cyclic chase over P > E pages misses at least (P - E) / P of its loads
 * whatever the replacement policy (E pages at most are held); the coarse
 * sweep's next point past a size on its grid (1, 2, 3, 4, 6, 8 ...) is at
 * least 4/3 of it, where at least 1/4 miss.  lo is the last P whose rise
 * is under 1/RISE_PART of the step's (1/8: half that 1/4, the other half
 * the noise's room: a few percent of the plateau, and a step is at least
 * half its plateau), hi the first P within 1/RISE_PART of the level above.
 * Then E >= lo x 7/8 (lo held 7/8 of its pages), and E <= hi: below E only
 * entries others hold evict our pages (pinned ones, our own code page in a
 * TLB shared with instructions, another job's), never conflicts (the pages
 * are contiguous, or strided so that they spread alike: large_sweep(), so
 * they fill a TLB's sets evenly), so the rise completes only past E, less
 * what the others hold. */
#define RISE_PART	8

struct point {
	uint32_t pages;
	struct probe_time t;		/* the spread chase less the packed one's rise */
	int64_t spread100, packed100;	/* ns x 100 a load: the two chases as measured */
	int64_t walk_misses;		/* one warm counted pass; -1: not counted */
	int64_t misses1000;		/* chase: misses per 1000 loads (405); -1 */
};

struct sweep {
	uintptr_t base;
	uint32_t stride, page, max_pages;	/* stride: page, or page + 4 KiB (above) */
	const char *tag;		/* "" for 4K, "_16m" etc. */
	struct point pt[MAX_POINTS];	/* every point measured, by P */
	int n;
	uint32_t lo[MAX_LEVELS], hi[MAX_LEVELS];	/* each level's interval (RISE_PART) */
	int from[MAX_LEVELS];		/* the coarse point lo was bisected from */
	int64_t before[MAX_LEVELS], after[MAX_LEVELS];
	uint32_t after_pages[MAX_LEVELS];	/* the point that gave after[] */
	int levels;
	uint32_t cache_edge;		/* a step set aside at a cache's edge, or 0 */
};

struct chase {
	void **p;
	uint64_t loads, misses;
};

static uint32_t order[MAX_PAGES];

/* The timed loop: n dependent loads.  Aligned so that the loop stays on
 * one code page (one TLB entry for its instructions).  The miss counters
 * are read outside the loop; on i386 they stay 0. */
__attribute__((noinline, aligned(256)))
static uint64_t chase_run(void *arg, uint32_t n)
{
	struct chase *c = arg;
	void **p = c->p;
	uint32_t left = n, m0 = mmu_count.dtlb_misses + mmu_count.itlb_misses;
	uint64_t t0 = probe_ticks(), t;

	for (; left >= 8; left -= 8) {
		p = *p; p = *p; p = *p; p = *p;
		p = *p; p = *p; p = *p; p = *p;
	}
	while (left--)
		p = *p;
	t = probe_ticks() - t0;
	c->misses += mmu_count.dtlb_misses + mmu_count.itlb_misses - m0;
	c->loads += n;
	c->p = p;
	return t;
}

static uint32_t line_bytes(void)
{
	return probe_cache_line() ? probe_cache_line() : 32;
}

/* Load i: in page i at line i mod (4096 / line); packed: line i in a row. */
static uintptr_t slot(const struct sweep *s, uint32_t i, int packed)
{
	uint32_t line = line_bytes();

	if (packed)
		return s->base + (uintptr_t)i * line;
	return s->base + (uintptr_t)i * s->stride + (i % (PAGE / line)) * line;
}

/* Loads 0..P-1 linked in a random cyclic order (fixed seed: the same
 * order every run). */
static void **build_chain(const struct sweep *s, uint32_t pages, int packed)
{
	uint32_t seed = 2463534242u;

	probe_shuffle(order, pages, &seed);
	for (uint32_t i = 0; i < pages; i++)
		*(void **)slot(s, order[i], packed) = (void *)slot(s, order[(i + 1) % pages], packed);
	return (void **)slot(s, order[0], packed);
}

/* Measure P pages (once: a point already measured is returned as is). */
static const struct point *measure(struct sweep *s, uint32_t pages)
{
	const struct mmu_tlb_info *tlb = mmu_tlb();
	struct chase c = { 0 };
	struct point *q;
	int i;

	for (i = 0; i < s->n && s->pt[i].pages <= pages; i++)
		if (s->pt[i].pages == pages)
			return &s->pt[i];
	if (s->n == MAX_POINTS)
		return 0;
	memmove(&s->pt[i + 1], &s->pt[i], (s->n - i) * sizeof(s->pt[0]));
	s->n++;
	q = &s->pt[i];
	q->pages = pages;
	/* The packed chase first: what the caches make of P lines. */
	c.p = build_chain(s, pages, 1);
	chase_run(&c, 2 * pages);
	if (probe_measure_point(chase_run, &c, &q->t) < 0)
		q->t.ns100 = -1;
	q->packed100 = q->t.ns100;
	/* From an empty TLB, so that the entries are filled in walk order. */
	c.p = build_chain(s, pages, 0);
	mmu_flush_all();
	chase_run(&c, 2 * pages);			/* two warm passes */
	c.loads = c.misses = 0;
	if (q->packed100 < 0 || probe_measure_point(chase_run, &c, &q->t) < 0)
		q->t.ns100 = -1;
	else {				/* twice, the faster kept: another job only adds time */
		struct probe_time again;
		if (probe_measure_point(chase_run, &c, &again) < 0)
			q->t.ns100 = -1;
		else if (again.ns100 < q->t.ns100)
			q->t = again;
	}
	q->spread100 = q->t.ns100;
	if (q->t.ns100 >= 0 && q != &s->pt[0]) {	/* less the packed chase's rise over P = 1 */
		int64_t rise = q->packed100 - s->pt[0].packed100;
		if (rise > 0)		/* never below 0: -1 says the timer failed */
			q->t.ns100 = q->t.ns100 > rise ? q->t.ns100 - rise : 0;
		q->t.cycles100 = ns100_to_cycles100(q->t.ns100);
	}
	q->misses1000 = tlb->refill == MMU_REFILL_SOFTWARE && c.loads ?
			(int64_t)(c.misses * 1000 / c.loads) : -1;
	q->walk_misses = -1;
	if (tlb->refill == MMU_REFILL_SOFTWARE && tlb->walk && s->stride == PAGE) {
		uint32_t ticks;
		mmu_flush_all();
		q->walk_misses = tlb->walk(s->base, pages, WARM_PASSES, &ticks);
	}
	return q;
}

/* A TLB level's misses at least double the time per load: an L1 dTLB miss
 * that hits the next level adds ~7 cycles to a 4-5 cycle hit, a walk 20 or
 * more, the 405's software refill tens of instructions.  Half again over
 * the plateau lies between that and a point another job disturbed. */
static int64_t threshold(int64_t plateau) { return plateau + plateau / 2; }

/* Bisects [a, b], a at or under `limit` and b over it, down to two
 * adjacent P: the one at or under (far = 0) or the one over (far = 1). */
static uint32_t bisect(struct sweep *s, uint32_t a, uint32_t b, int64_t limit, int far)
{
	while (b - a > 1) {
		uint32_t mid = a + (b - a) / 2;
		const struct point *q = measure(s, mid);
		if (!q)
			break;		/* out of points: the ends so far still hold */
		if (q->t.ns100 > limit)
			b = mid;
		else
			a = mid;
	}
	return far ? b : a;
}

/* hi: the first P from coarse[j] on within `part` of the level `top`
 * (coarse[j] on the plateau below; the level's point ends the search). */
static uint32_t upper_end(struct sweep *s, const uint32_t *coarse, int j, int64_t top, int64_t part)
{
	int k = j + 1;

	while (measure(s, coarse[k])->t.ns100 < top - part)
		k++;
	return bisect(s, coarse[k - 1], coarse[k], top - part - 1, 1);
}

/* Where the rise past coarse[i] settles, for hi: the median of the coarse
 * points from 2x to 4x coarse[i] (all past the entries, which the rise
 * began below), at least a_ns.  A second-level TLB's misses keep slowing
 * past it as the walks' own lines leave the caches, so the first points
 * past the step are not yet the level above. */
static int64_t settled(struct sweep *s, const uint32_t *coarse, int nc, int i, int64_t a_ns)
{
	int64_t v[8];
	unsigned n = 0;

	for (int k = i + 1; k < nc && n < 8; k++)
		if (coarse[k] >= 2 * coarse[i] && coarse[k] <= 4 * coarse[i])
			v[n++] = measure(s, coarse[k])->t.ns100;
	if (!n)
		return a_ns;
	int64_t m = median_i64(v, n);
	return m > a_ns ? m : a_ns;
}

/* The coarse sweep (1, 2, 3, 4, 6, 8, 12 ...), then each step's two ends
 * bisected (RISE_PART).  Returns -1 when the timer failed. */
static int sweep_run(struct sweep *s)
{
	uint32_t coarse[40] = { 1 };
	int nc = 0, below = 0;		/* below: the coarse point past the last step */
	int64_t plateau;

	for (uint32_t p = 1; p <= s->max_pages && nc < 38; p *= 2) {
		coarse[nc++] = p;
		if (p >= 2 && p * 3 / 2 <= s->max_pages)
			coarse[nc++] = p * 3 / 2;
	}
	if (coarse[nc - 1] != s->max_pages)
		coarse[nc++] = s->max_pages;
	for (int i = 0; i < nc; i++)
		if (!measure(s, coarse[i]) || measure(s, coarse[i])->t.ns100 < 0)
			return -1;

	plateau = measure(s, coarse[0])->t.ns100;
	for (int i = 1; i < nc && i < 3; i++)
		if (measure(s, coarse[i])->t.ns100 < plateau)
			plateau = measure(s, coarse[i])->t.ns100;
	s->levels = 0;
	for (int i = 1; i < nc && s->levels < MAX_LEVELS; i++) {
		int64_t thr = threshold(plateau), part, a_ns, top;
		uint32_t lo, hi, a_pages;
		int j, n = s->levels - 1;

		/* Two coarse points in a row above, and one more measured past
		 * them: one alone is noise, and a rise at the sweep's very end
		 * has nothing to show it is a level and not a steady climb. */
		if (i + 2 >= nc || measure(s, coarse[i])->t.ns100 <= thr ||
		    measure(s, coarse[i + 1])->t.ns100 <= thr)
			continue;
		/* The level past the step: the higher of the first two coarse
		 * points (kept by value: measuring more points moves s->pt[]). */
		a_pages = coarse[i];
		if (measure(s, coarse[i + 1])->t.ns100 > measure(s, coarse[i])->t.ns100)
			a_pages = coarse[i + 1];
		a_ns = measure(s, a_pages)->t.ns100;
		part = (a_ns - plateau) / RISE_PART;
		/* lo: the last coarse point still on the plateau (the rise may
		 * begin long before thr, or pass thr and still be within part),
		 * then bisected; hi: from there to the first within 1/RISE_PART
		 * of where the rise settles. */
		for (j = i - 1; measure(s, coarse[j + 1])->t.ns100 <= plateau + part; j++)
			;
		for (; j > below && measure(s, coarse[j])->t.ns100 > plateau + part; j--)
			;
		lo = bisect(s, coarse[j], coarse[j + 1], plateau + part, 0);
		top = settled(s, coarse, nc, i, a_ns);
		hi = upper_end(s, coarse, j, top, (top - plateau) / RISE_PART);
		if (measure(s, a_pages)->packed100 * 100 >
		    measure(s, coarse[i - 1])->packed100 * CACHE_RISE) {
			/* The packed chase steps across it too: a cache's edge
			 * (the L1d's line count, one line a page), where the two
			 * chases' misses need not cancel: no level claimed. */
			if (!s->cache_edge)
				s->cache_edge = lo;
		} else if (s->levels && lo < LEVEL_APART * s->lo[n]) {
			/* Too close to the level below to be a TLB of its own: the
			 * rest of that level's ramp (page walks slowing as their
			 * entries leave the caches); its miss cost takes the rise,
			 * its hi is where the ramp's top is reached (its lo stays:
			 * the pigeonhole bound holds for the first rise). */
			s->after[n] = a_ns;
			s->after_pages[n] = a_pages;
			top = settled(s, coarse, nc, i, a_ns);
			s->hi[n] = upper_end(s, coarse, s->from[n], top,
					     (top - s->before[n]) / RISE_PART);
		} else {
			s->lo[s->levels] = lo;
			s->hi[s->levels] = hi;
			s->from[s->levels] = j;
			s->before[s->levels] = plateau;
			s->after[s->levels] = a_ns;
			s->after_pages[s->levels] = a_pages;
			s->levels++;
		}
		plateau = a_ns;
		below = a_pages == coarse[i] ? i : i + 1;
		i++;
	}
	return 0;
}

static void sample_curve(struct probe_ctx *ctx, const struct sweep *s)
{
	char m[48];

	for (int i = 0; i < s->n; i++) {
		const struct point *q = &s->pt[i];
		snprintf(m, sizeof(m), "%lup%s_ns", (unsigned long)q->pages, s->tag);
		probe_sample(ctx, m, q->spread100, 2, "ns");
		snprintf(m, sizeof(m), "%lup%s_packed_ns", (unsigned long)q->pages, s->tag);
		probe_sample(ctx, m, q->packed100, 2, "ns");
		if (q->walk_misses >= 0) {
			snprintf(m, sizeof(m), "%lup%s_misses", (unsigned long)q->pages, s->tag);
			probe_sample(ctx, m, q->walk_misses, 0, "count");
		}
	}
}

/* Level k held against the entries the CPU documents for the sweep's page
 * size: consistent where they lie in what the interval allows (RISE_PART:
 * lo x 7/8 to hi, to hi plus the pinned entries where pins may hold some
 * of them: the 405's do, the e500's are another array's), and the level
 * is then named by them, else by lo.  Where our own handler refills the
 * TLB the count is exact (every miss is the handler's, counted or, under
 * -icount, instructions): named by lo, what the walk can use.  Samples
 * the interval and the verdict (1 consistent, 2 differs; none where the
 * CPU documents nothing), says why, and returns the count named. */
static uint32_t judge(struct probe_ctx *ctx, const struct sweep *s, int k, const char *pre)
{
	const struct mmu_tlb_info *tlb = mmu_tlb();
	uint32_t doc = probe_tlb_entries(k + 1, s->page), lo = s->lo[k], hi = s->hi[k];
	int ok = doc && lo - lo / RISE_PART <= doc && doc <= hi + tlb->pinned;
	uint32_t named = ok && tlb->refill != MMU_REFILL_SOFTWARE ? doc : lo;
	char m[48], level[24], pins[24] = "";

	snprintf(m, sizeof(m), "%sl%d_lo_entries", pre, k + 1);
	probe_sample(ctx, m, lo, 0, "count");
	snprintf(m, sizeof(m), "%sl%d_hi_entries", pre, k + 1);
	probe_sample(ctx, m, hi, 0, "count");
	if (doc) {
		snprintf(m, sizeof(m), "%sl%d_verdict", pre, k + 1);
		probe_sample(ctx, m, ok ? 1 : 2, 0, "kind");
	}
	snprintf(level, sizeof(level), "L%d%s%s", k + 1, *s->tag ? " of " : "", *s->tag ? s->tag + 1 : "");
	if (tlb->pinned)
		snprintf(pins, sizeof(pins), " (%u pinned)", tlb->pinned);
	if (!doc)
		probe_diag(ctx, "tlb", "%s: %lu-%lu entries: no count from the CPU; named %lu, the "
			   "lower end", level, (unsigned long)lo, (unsigned long)hi, (unsigned long)lo);
	else if (!ok)
		probe_diag(ctx, "tlb", "%s: %lu-%lu entries, differs (CPU says %lu%s); named %lu, the "
			   "lower end", level, (unsigned long)lo, (unsigned long)hi, (unsigned long)doc,
			   pins, (unsigned long)lo);
	else
		probe_diag(ctx, "tlb", "%s: %lu-%lu entries, consistent with the CPU's %lu%s%s", level,
			   (unsigned long)lo, (unsigned long)hi, (unsigned long)doc, pins,
			   named != doc ? "; named by lo, exact (our handler refills the TLB)" : "");
	return named;
}

/* Headlines of the levels found: <pre>l1_entries, l2_entries (judge()),
 * reach and the miss cost of each level (l2 only: <pre>l2_miss_ns). */
static void sample_levels(struct probe_ctx *ctx, struct sweep *s, const char *pre)
{
	char m[48];
	uint32_t named = 0;

	for (int k = 0; k < s->levels; k++) {
		const struct point *a = measure(s, s->after_pages[k]);	/* measured already */
		struct probe_time t = a->t;
		int64_t rise = s->after[k] - s->before[k];

		named = judge(ctx, s, k, pre);
		snprintf(m, sizeof(m), "%sl%d_entries", pre, k + 1);
		probe_sample(ctx, m, named, 0, "count");
		/* Per miss: the rise over the misses per load counted (405). */
		t.ns100 = a->misses1000 > 0 ? rise * 1000 / a->misses1000 : rise;
		t.cycles100 = ns100_to_cycles100(t.ns100);
		snprintf(m, sizeof(m), k ? "%sl%d_miss" : "%smiss", pre, k + 1);
		probe_sample_time(ctx, m, &t);
	}
	if (s->levels) {
		snprintf(m, sizeof(m), "%sreach_bytes", pre);
		probe_sample(ctx, m, (int64_t)named * s->page, 0, "bytes");
	}
}

/* Why no level may be claimed here, or 0.  Levels are claimed only where
 * time shows them: not with translation off, not under QEMU TCG, where a
 * hardware-walked TLB costs nothing and times are the host's; under -icount
 * the 405's software refill is exact instructions, which is what -icount
 * counts, so there they are claimed. */
static const char *no_claim(struct probe_ctx *ctx, const struct mmu_tlb_info *tlb)
{
	if (tlb->refill == MMU_REFILL_NONE)
		return "translation is off in this mode, or one TLB entry maps all RAM (Book-E's "
		       "boot translation): no TLB in use or refilled, the curve is the baseline";
	if (!strstr(probe_platform(), "emulated"))
		return 0;
	if (tlb->refill == MMU_REFILL_SOFTWARE && ctx->icount_shift >= 0)
		return 0;	/* our handler's instructions, which -icount counts as time */
	if (tlb->refill == MMU_REFILL_SOFTWARE)
		return "QEMU TCG without -icount: times are the host's running the emulator";
	return ctx->icount_shift >= 0 ?
		"QEMU TCG -icount emulates no TLB timing: time counts instructions and a "
		"hardware walk costs none, so the curve is flat" :
		"QEMU TCG emulates no TLB timing: the curve shows QEMU's own software TLB "
		"(its 8-entry victim TLB at large strides) and the host's caches, not this TLB";
}

/* The 4K sweep's levels as headlines.  The 405 also counts: at every P,
 * mmu_tlb()->walk walks the same pages, registers only, and gives the
 * misses of one warm pass.  The last level's lo must be the largest P
 * that pass does not miss at, every larger P missing, or the probe fails.
 * With round robin over the unpinned slots, a cyclic walk of P pages stays
 * resident iff P plus the pages the loop's own code touches fit the
 * unpinned slots (else each load evicts the page needed next). */
static int claim_levels(struct probe_ctx *ctx, struct sweep *s, unsigned ways)
{
	int64_t counted = -1;

	for (int i = s->n - 1; i >= 0 && s->pt[i].walk_misses >= 0; i--)
		if (s->pt[i].walk_misses == 0) {
			counted = i + 1 < s->n ? (int64_t)s->pt[i].pages : -2;
			break;
		}
	/* Set-associative (the e500's TLB0): past `counted` pages only the
	 * sets holding ways + 1 of them miss, so time rises gradually until
	 * every set does, at counted + counted / ways pages.  A step's lower
	 * end by time in between is that TLB's; the counters give it exactly. */
	if (ways > 1 && counted > 0 && s->levels) {
		uint32_t t = s->lo[s->levels - 1];
		if (t >= counted && t <= counted + counted / ways) {
			if (t != counted && ctx->rep == 0)
				probe_diag(ctx, "tlb", "the step's lower end by time at %lu pages lies in "
					   "the %u-way TLB's transition (%ld to %ld pages): %ld entries, "
					   "as counted", (unsigned long)t, ways, (long)counted,
					   (long)(counted + counted / ways), (long)counted);
			s->lo[s->levels - 1] = counted;
		}
	}
	if (counted != -1 && (counted == -2 ? s->levels != 0 :
			      !s->levels || s->lo[s->levels - 1] != counted))
		return probe_fail(ctx, "curve and counters disagree: step after %ld pages by "
				  "time, after %ld by the miss counters",
				  s->levels ? (long)s->lo[s->levels - 1] : -1L, (long)counted);
	if (!s->levels)
		probe_diag(ctx, "tlb", "no step up to %lu pages of 4 KiB: no TLB level "
			   "visible (%lu KiB walked)", (unsigned long)s->max_pages,
			   (unsigned long)s->max_pages * 4);
	sample_levels(ctx, s, "");
	if (s->cache_edge && ctx->rep == 0)
		probe_diag(ctx, "tlb", "a step at %lu pages not claimed: the packed chase of as "
			   "many lines steps there too (a cache's edge)", (unsigned long)s->cache_edge);
	return 0;
}

/* Modes with large pages in the default mapping (pins alone do not count:
 * they cover what the walk avoids) sweep again with the page size as
 * stride, as far as free RAM goes, and say when that is too little.  On a
 * set-associative TLB (hardware refill) the stride is a large page plus
 * 4 KiB: at the page size alone every page shares the address bits that
 * index a 4K TLB's sets, so where the host backs a guest's large page
 * with small ones, one set's ways would pass for the entries. */
static int large_sweep(struct probe_ctx *ctx, const struct mmu_tlb_info *tlb,
		       uint32_t max_pages, const char *why)
{
	static struct sweep l;
	static char tag[8];
	uint32_t lp = 0, want = tlb->entries ? tlb->entries + 1 : 0;
	size_t avail;

	for (int b = 31; b > 12 && !tlb->pinned; b--)
		if (tlb->page_sizes & (1u << b)) {
			lp = 1u << b;
			break;
		}
	if (!lp || lp > 0x40000000u)
		return RESULT_PASS;
	memset(&l, 0, sizeof(l));
	snprintf(tag, sizeof(tag), "_%lu%s", (unsigned long)(lp >= (1u << 20) ? lp >> 20 : lp >> 10),
		 lp >= (1u << 20) ? "m" : "k");
	l.tag = tag, l.page = lp;
	l.stride = lp + (tlb->refill == MMU_REFILL_HARDWARE ? PAGE : 0);
	l.max_pages = max_pages;
	avail = probe_mem_avail(lp, 0) / l.stride;
	if (avail < l.max_pages)
		l.max_pages = avail;
	if (l.max_pages < 2) {
		probe_diag(ctx, "tlb", "RAM too small for a %s stride sweep: %lu page(s) "
			   "of %lu KiB free", tag + 1, (unsigned long)avail, (unsigned long)lp >> 10);
		return RESULT_PASS;
	}
	l.base = probe_mem_alloc((size_t)l.max_pages * l.stride, lp, 0, "tlb: large pages");
	if (!l.base || sweep_run(&l) < 0)
		return probe_fail(ctx, "large-page sweep failed");
	sample_curve(ctx, &l);
	if (!why && !l.levels)
		probe_diag(ctx, "tlb", "no step up to %lu pages of %lu KiB%s",
			   (unsigned long)l.max_pages, (unsigned long)lp >> 10,
			   want > l.max_pages ? ": RAM too small to reach the step "
			   "(the TLB's entries need more pages than fit)" : "");
	if (!why)
		sample_levels(ctx, &l, "lp_");
	return RESULT_PASS;
}

static int tlb_run(struct probe_ctx *ctx)
{
	const struct mmu_tlb_info *tlb = mmu_tlb();
	static struct sweep s;		/* large: off the stack */
	const char *why = no_claim(ctx, tlb);
	uint32_t line = line_bytes();
	uintptr_t low = tlb->pinned ? tlb->pinned_end : 0;	/* walk outside the pins */
	size_t avail;

	probe_mem_reset();
	memset(&s, 0, sizeof(s));
	s.stride = s.page = PAGE, s.tag = "";
	s.max_pages = tlb->refill == MMU_REFILL_SOFTWARE && tlb->entries ? 4 * tlb->entries :
		      tlb->entries * 4 > MAX_PAGES ? tlb->entries * 4 : MAX_PAGES;
	if (s.max_pages > MAX_PAGES)
		s.max_pages = MAX_PAGES;
	avail = probe_mem_avail(PAGE, low) / PAGE;
	if (avail < 2 && tlb->pinned && low >= probe_ram_bytes())	/* e.g. mem=32M */
		return probe_skip(ctx, "the pins cover all of RAM (to %#lx): no page outside "
				  "them to walk", (unsigned long)low);
	if (avail < 2)
		return probe_fail(ctx, "no free RAM above %#lx to walk", (unsigned long)low);
	if (s.max_pages > avail)
		s.max_pages = avail;
	s.base = probe_mem_alloc((size_t)s.max_pages * PAGE, PAGE, low, "tlb: pages");
	if (line > PAGE / 2 || sizeof(void *) > line)
		return probe_fail(ctx, "cache line of %lu bytes: cannot stagger", (unsigned long)line);
	if (sweep_run(&s) < 0)
		return probe_fail(ctx, "the timer did not move over a chase");
	sample_curve(ctx, &s);
	if (why)
		probe_diag(ctx, "tlb", "no TLB level claimed: %s", why);
	else if (claim_levels(ctx, &s, tlb->ways) == RESULT_FAIL)
		return RESULT_FAIL;
	return large_sweep(ctx, tlb, s.max_pages, why);
}

const struct probe probe_tlb = {
	.name = "tlb",
	.what = "TLB fill: one load per page over P pages; entries per level, reach, miss cost",
	.run = tlb_run,
};
