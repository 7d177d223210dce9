/* Probe `lat_mem`: memory latency by pointer chase, as LMbench's
 * lat_mem_rd: each load's address comes from the previous load, so loads
 * cannot overlap and each costs the latency of wherever its line is.
 * Working sets from 512 B to maxsize (default 4x the largest cache the CPU
 * reports, bounded by RAM), 4 points an octave (2^k x 1, 1.25, 1.5, 1.75),
 * in three patterns over lines of `stride` bytes (default: the line size):
 *   stride  line after line, as lat_mem_rd (prefetchers may help);
 *   random  a random cyclic permutation of all lines (Sattolo's shuffle):
 *           no prefetcher helps and almost every load touches a new page,
 *           so the curve steps where the caches overflow *and* where the
 *           pages outgrow each TLB level (what a program with that working
 *           set pays: LMbench's random chase);
 *   local   the lines of a group of LOCAL_BYTES (8 pages of 4 KiB) in
 *           random order, then the next group, groups in random order
 *           (multichase's TLB locality): consecutive loads share a page
 *           one time in 8, so spatial prefetchers find no stream, and the
 *           TLB misses once a group (512 loads), so the curve steps only
 *           where a cache overflows.
 * Each point: one full pass to warm up, then probe_measure_point() of 64
 * unrolled dependent loads an iteration, less the same loop without the
 * loads.  The curves: lat_mem.<mode>.<pattern>_<bytes>_ns.
 *
 * Levels (lib/guess.c) come from the local curves alone, so a TLB step
 * is never a cache level.  Once every mode of a repetition has run
 * (rep_done), each mode is guessed from its own reference, the pointwise
 * median of its local curves over the repetitions so far (the last
 * REF_REPS): one disturbed repetition moves no point, and a mode that maps
 * its memory anew each repetition (the sandbox's thp) shows its typical
 * placement.  Each level is an interval, judged against the size the CPU
 * documents (lib/guess.c, steps 3 and 4); the sizes are sampled at the last
 * repetition.  An L3 shared with other tenants is an effective capacity:
 * each repetition's own curve gives one, so its spread shows.  Each
 * repetition's level latencies are read off its own random curve at the
 * middle of each level's plateau, so a 4K-page mode shows its TLB misses
 * in its L2 and memory figures.  Memory is claimed only past every cache
 * the CPU reports (guess.h).  Under QEMU
 * no level and no memory latency is claimed: it emulates no caches. */
#include <stdio.h>
#include <string.h>
#include "probe.h"
#include "guess.h"
#include "mark.h"

#define MIN_BYTES	512u
#define MAX_BYTES	(256u << 20)
#define MAX_POINTS	80		/* 512 B .. 256 MiB at 4 an octave: 77 */
#define LOADS		64		/* dependent loads per timed iteration */
#define LOCAL_BYTES	(8u * 4096)	/* a local group: 8 pages, a quarter of the
					   smallest L1 data TLBs in use (32 entries) */
#define MAX_GROUPS	(MAX_BYTES / LOCAL_BYTES)
#define REF_REPS	9		/* the reference: the median of the last 9 */

enum { STRIDE, RANDOM, LOCAL, PATTERNS };
static const char *const pattern_name[PATTERNS] = { "stride", "random", "local" };

static unsigned long maxsize, stride;	/* 0: the defaults */
static int claim_emulated;		/* tests only: guess under QEMU too */

/* Each mode's curves of the current repetition, for rep_done. */
static struct mode_curves {
	int rep1;			/* the repetition they are from, plus 1; 0: none */
	int sweeps;			/* sweeps completed: local[sweeps % REF_REPS] is next */
	int n;
	uint64_t bytes[MAX_POINTS];
	int64_t local[REF_REPS][MAX_POINTS];	/* ns x 100: the last REF_REPS sweeps */
	int64_t sweep[MAX_POINTS];		/* the one under way: a cut one is no reference */
	struct probe_time random[MAX_POINTS];
} curves[PROBE_MAX_MODES];
static uint32_t group_order[MAX_GROUPS];

static int set_maxsize(const char *key, const char *value)
{
	return arg_uint(key, value, 4 * MIN_BYTES, MAX_BYTES, &maxsize);
}

static int set_stride(const char *key, const char *value)
{
	if (arg_uint(key, value, sizeof(void *), 4096, &stride) < 0)
		return -1;
	if (stride & (stride - 1)) {
		arg_error(key, value, "a power of two, 4 to 4096, please");
		return -1;
	}
	return 0;
}

static int set_claim(const char *key, const char *value)
{
	return arg_flag(key, value, &claim_emulated);
}

#define LOAD1	p = (void **)*p;
#define LOAD8	LOAD1 LOAD1 LOAD1 LOAD1 LOAD1 LOAD1 LOAD1 LOAD1
#define LOAD64	LOAD8 LOAD8 LOAD8 LOAD8 LOAD8 LOAD8 LOAD8 LOAD8

struct chase { void **p; int translated; };

/* n iterations of LOADS dependent loads; the chase goes on where it stopped.
 * The region markers (mark.h) lie outside the timed span, so the figures
 * do not count them; the plugin's region holds the two timer reads. */
static uint64_t chase_run(void *arg, uint32_t n)
{
	struct chase *c = arg;
	void **p = c->p;
	uint64_t t0, t1;

	MARK_BEGIN(MARK_LAT_CHASE, c->translated);
	t0 = probe_ticks();
	while (n--) {
		LOAD64
	}
	t1 = probe_ticks();
	MARK_END(MARK_LAT_CHASE);
	c->p = p;
	return t1 - t0;
}

/* The same loop without the loads: its cost is subtracted. */
static uint64_t loop_run(void *arg, uint32_t n)
{
	void **p = ((struct chase *)arg)->p;
	uint64_t t0, t1;

	MARK_BEGIN(MARK_LAT_LOOP, ((struct chase *)arg)->translated);
	t0 = probe_ticks();
	while (n--)
		__asm__ volatile("" : "+r"(p));
	t1 = probe_ticks();
	MARK_END(MARK_LAT_LOOP);
	return t1 - t0;
}

static uint32_t rnd_state = 0x2545F491u;
static uint32_t rnd(void)	/* xorshift32: the same permutation every run */
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

#define SLOT(base, i, line)	((void **)((base) + (uintptr_t)(i) * (line)))

/* Lines [0, lines) from `base` as one random cycle (Sattolo: from "each
 * line points at itself", swapping each slot with an earlier one gives a
 * single cycle through all lines, uniformly at random). */
static void random_cycle(uintptr_t base, uint32_t lines, uint32_t line)
{
	for (uint32_t i = 0; i < lines; i++)
		*SLOT(base, i, line) = SLOT(base, i, line);
	for (uint32_t i = lines - 1; i > 0 && lines > 1; i--) {
		void **a = SLOT(base, i, line), **b = SLOT(base, rnd() % i, line);
		void *t = *a;
		*a = *b;
		*b = t;
	}
}

/* Each group of LOCAL_BYTES its own random cycle, then every group's
 * cycle opened at its first line and joined to the next group's, groups
 * in a random order (Fisher-Yates): one cycle through all lines. */
static void local_cycle(uintptr_t base, uint32_t lines, uint32_t line)
{
	uint32_t per = LOCAL_BYTES / line, groups = (lines + per - 1) / per;

	for (uint32_t g = 0; g < groups; g++)
		random_cycle(base + (uintptr_t)g * LOCAL_BYTES,
			     lines - g * per < per ? lines - g * per : per, line);
	probe_shuffle(group_order, groups, &rnd_state);
	for (uint32_t k = 0; k < groups && groups > 1; k++) {
		void **first = (void **)(base + (uintptr_t)group_order[k] * LOCAL_BYTES), **q = first;
		void **next = (void **)(base + (uintptr_t)group_order[(k + 1) % groups] * LOCAL_BYTES);

		while (*q != first)		/* the line that closes this group's cycle */
			q = *q;
		*q = next;
	}
}

/* Line i's first word points at the line the chase visits next. */
/* Out of line: -O2 would copy it into every pattern's loop. */
static __attribute__((noinline)) void build(uintptr_t base, uint32_t lines, uint32_t line, int pattern)
{
	if (pattern == RANDOM)
		random_cycle(base, lines, line);
	else if (pattern == LOCAL)
		local_cycle(base, lines, line);
	else				/* stride: the next line, the last to the first */
		for (uint32_t i = 0; i < lines; i++)
			*SLOT(base, i, line) = SLOT(base, (i + 1) % lines, line);
}

/* Per-load time from a chase's and the empty loop's probe_time. */
static __attribute__((noinline)) void per_load(const struct probe_time *chase, const struct probe_time *loop,
		     struct probe_time *t)
{
	uint64_t d = chase->ticks1000 > loop->ticks1000 ? chase->ticks1000 - loop->ticks1000 : 0;
	uint64_t hz = probe_tick_hz();

	*t = *chase;
	t->ticks1000 = d / LOADS;
	/* ns x 100 = ticks1000 / 1000 / hz * 1e9 * 100 / LOADS, rounded. */
	t->ns100 = hz ? (int64_t)((muldiv64(d, 100000000ull, hz) + LOADS / 2) / LOADS) : -1;
	t->cycles100 = ns100_to_cycles100(t->ns100);
}

/* The largest sweep size at or below `max`: 2^k x 4/4 .. 7/4. */
static int sweep(uint64_t max, uint64_t *bytes)
{
	int n = 0;

	for (uint64_t p = MIN_BYTES; p <= max && n < MAX_POINTS; p *= 2)
		for (int q = 4; q < 8 && p * q / 4 <= max && n < MAX_POINTS; q++)
			bytes[n++] = p * q / 4;
	return n;
}

static int emulated(void)
{
	return !strncmp(probe_platform(), "QEMU", 4);
}

/* The largest cache the CPU reports (0: none says). */
static uint64_t cpu_top(void)
{
	uint64_t top = 0;

	for (int l = 1; l <= 3; l++)
		if (probe_cache_bytes(l) > top)
			top = probe_cache_bytes(l);
	return top;
}

static int lat_mem_run(struct probe_ctx *ctx)
{
	struct mode_curves *mc = &curves[ctx->mode_index];
	const struct mmu_tlb_info *tlb = mmu_tlb();
	uint64_t max = maxsize;
	uint32_t line = stride ? stride : probe_cache_line() ? probe_cache_line() : 32;
	uint32_t align = LOCAL_BYTES;
	struct probe_time loop;
	struct chase c;
	uintptr_t base;
	char name[48];
	int n;

	if (!max) {		/* 4x the largest cache reported; quick: 4x the smallest */
		for (int l = 1; l <= 3; l++)
			if (probe_cache_bytes(l) && (!max || !ctx->quick))
				max = 4ull * probe_cache_bytes(l);
		if (max < (64u << 10))
			max = 64u << 10;
		if (max > MAX_BYTES)
			max = MAX_BYTES;
	}
	for (int r = 31; r > 15 && tlb->refill != MMU_REFILL_NONE; r--)
		if (tlb->page_sizes & (1u << r)) {	/* the buffer in the mode's largest pages */
			align = 1u << r;
			break;
		}
	if (!maxsize && max > probe_ram_bytes() / 2) {	/* bounded by RAM */
		max = probe_ram_bytes() / 2;
		probe_diag(ctx, "lat_mem", "sweep bounded by RAM to %llu KiB", (unsigned long long)(max >> 10));
	}
	probe_mem_reset();
	if (align > LOCAL_BYTES && probe_mem_avail(align, align) < max) {
		/* e.g. 16 MiB pages on a 16 MiB board: no whole large page free */
		probe_diag(ctx, "lat_mem", "no %lu KiB-aligned room for the sweep: its buffer is not "
			   "in the mode's largest pages", (unsigned long)align >> 10);
		align = LOCAL_BYTES;
	}
	base = probe_mem_alloc(max, align, align, "lat_mem: maxsize");
	if (!base)
		return probe_fail(ctx, "a %llu-byte sweep does not fit in probe memory",
				  (unsigned long long)max);
	n = sweep(max, mc->bytes);
	if (ctx->rep == 0 || mc->n != n)	/* other sizes: a new reference */
		mc->sweeps = 0;
	mc->n = n;

	c.p = (void **)base;
	c.translated = mmu_translated(ctx->mode);
	if (probe_measure_point(loop_run, &c, &loop) < 0)
		return probe_fail(ctx, "the timer does not move");
	for (int pat = 0; pat < PATTERNS; pat++) {
		for (int i = 0; i < n; i++) {
			uint32_t lines = mc->bytes[i] / line;
			struct probe_time t, pl;

			build(base, lines, line, pat);
			c.p = (void **)base;
			chase_run(&c, lines / LOADS + 1);	/* one pass: the set is warm */
			if (probe_measure_point(chase_run, &c, &t) < 0)
				return probe_fail(ctx, "the timer does not move");
			per_load(&t, &loop, &pl);
			if (pat == RANDOM)
				mc->random[i] = pl;
			if (pat == LOCAL)
				mc->sweep[i] = pl.ns100 > 0 ? pl.ns100 : 1;
			snprintf(name, sizeof(name), "%s_%llu_ns", pattern_name[pat],
				 (unsigned long long)mc->bytes[i]);
			probe_sample(ctx, name, pl.ns100, 2, "ns");
		}
	}
	memcpy(mc->local[mc->sweeps % REF_REPS], mc->sweep, sizeof(mc->sweep));
	mc->sweeps++;
	mc->rep1 = ctx->rep + 1;	/* kept when a later one fails or is cut */
	return RESULT_PASS;
}

static void sample_level(struct probe_ctx *ctx, const char *name, const struct mode_curves *mc,
			 int lo, int hi)
{
	probe_sample_time(ctx, name, &mc->random[(lo + hi) / 2]);
}

/* An L3 is shared with other tenants unless the image runs alone on bare
 * hardware: in a guest other guests use it, under an OS other processes. */
static int l3_shared(void)
{
	return strncmp(probe_platform(), "bare hardware", 13) != 0;
}

/* The guess of `curve` (mc's sizes) with what the CPU documents. */
static void guess_mode(const struct mode_curves *mc, const int64_t *curve, struct guess *g)
{
	struct guess_curve gc = { .n = mc->n, .bytes = mc->bytes, .ns100 = curve, .cpu_top = cpu_top(),
				  .shared_top = l3_shared() };

	for (int l = 0; l < GUESS_LEVELS; l++) {
		gc.cpu_bytes[l] = probe_cache_bytes(l + 1);
		gc.cpu_ways[l] = probe_cache_ways(l + 1);
	}
	guess_caches(&gc, 0, 0, 0, g);
}

static void sample_bytes(struct probe_ctx *ctx, int level, const char *what, uint64_t v, const char *unit)
{
	char name[48];

	snprintf(name, sizeof(name), "l%d_%s", level + 1, what);
	probe_sample(ctx, name, (int64_t)v, 0, unit);
}

/* After every mode of the repetition ran: this mode's guess from its
 * reference; its levels' latencies off its own random curve. */
static void lat_mem_rep_done(struct probe_ctx *ctx)
{
	const struct mode_curves *mc = &curves[ctx->mode_index];
	int64_t ref[MAX_POINTS];
	int last = ctx->rep == ctx->reps - 1, reps = mc->sweeps < REF_REPS ? mc->sweeps : REF_REPS;
	char name[48], text[160];
	struct guess g, own;

	if (mc->rep1 != ctx->rep + 1)
		return;				/* this mode did not sweep (skipped or failed) */
	if (emulated() && !claim_emulated) {
		if (ctx->rep == 0)
			probe_diag(ctx, "lat_mem", "no cache level and no memory latency claimed: %s",
				   probe_platform());
		return;
	}
	guess_median_curve(&mc->local[0][0], reps, MAX_POINTS, mc->n, ref);
	guess_mode(mc, ref, &g);
	guess_mode(mc, mc->local[(mc->sweeps - 1) % REF_REPS], &own);
	for (int i = 0; i < g.levels; i++) {
		snprintf(name, sizeof(name), "l%d", i + 1);
		sample_level(ctx, name, mc, g.level[i].lo, g.level[i].hi);
		if (g.level[i].verdict == GUESS_SHARED && i < own.levels)
			sample_bytes(ctx, i, "effective_bytes", own.level[i].lo_bytes, "bytes");
		if (!last)
			continue;
		sample_bytes(ctx, i, "bytes", g.level[i].bytes, "bytes");
		sample_bytes(ctx, i, "lo_bytes", g.level[i].lo_bytes, "bytes");
		sample_bytes(ctx, i, "hi_bytes", g.level[i].hi_bytes, "bytes");
		sample_bytes(ctx, i, "verdict", (uint64_t)g.level[i].verdict, "kind");
		guess_describe(&g, i, text, sizeof(text));
		probe_diag(ctx, "lat_mem", "%s", text);
	}
	if (g.mem) {
		sample_level(ctx, "mem", mc, g.top.lo, g.top.hi);
		if (!probe_mem_reached() || mc->bytes[g.top.lo] < probe_mem_reached())
			probe_set_mem_reached(mc->bytes[g.top.lo]);
	}
	if (last)
		probe_diag(ctx, "lat_mem", "%d cache level%s from this mode's local curve (pointwise "
			   "median of %d repetition%s)%s%s", g.levels, g.levels == 1 ? "" : "s",
			   reps, reps == 1 ? "" : "s", g.note[0] ? "; " : "", g.note);
}

const struct probe probe_lat_mem = {
	.name = "lat_mem",
	.what = "memory latency by pointer chase (stride, random, TLB-local), 512 B to maxsize; "
		"cache levels from the TLB-local curve",
	.run = lat_mem_run,
	.rep_done = lat_mem_rep_done,
	.args = (const struct boot_arg[]){
		{ "maxsize", "largest working set of lat_mem, bytes (default 4x the largest cache)",
		  set_maxsize },
		{ "stride", "lat_mem's line: bytes between loads, a power of two (default the cache line)",
		  set_stride },
		{ "lat_mem_claim", "tests only: 1 guesses levels under QEMU too (from the host's caches "
		  "that TCG shows)", set_claim },
		{ 0 } },
};
