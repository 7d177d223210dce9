/* Probe `lat_mem`: memory latency by pointer chase, as LMbench's
 * lat_mem_rd: each load's address comes from the previous load, so loads
 * cannot overlap and each costs the latency of wherever its line is.
 * Working sets from 512 B to maxsize (default 4x the largest cache the CPU
 * reports, bounded by RAM), 4 points an octave (2^k x 1, 1.25, 1.5, 1.75),
 * in two patterns over lines of `stride` bytes (default: the line size):
 *   stride  line after line, as lat_mem_rd (prefetchers may help);
 *   random  a random cyclic permutation of the lines (Sattolo's shuffle),
 *           which defeats prefetchers and touches a new page almost every
 *           load, so it also steps where the pages outgrow the TLB.
 * Each point: one full pass to warm up, then probe_measure() of 64
 * unrolled dependent loads an iteration, less the same loop without the
 * loads.  The curve: lat_mem.<mode>.<pattern>_<bytes>_ns.
 *
 * Guesses (boot/guess.c) name caches, not TLB steps, by taking the sizes
 * from a curve with no TLB step among the caches: that of the mode with
 * the largest pages seen so far in this run, a mode without translation
 * counting largest (mmu_tlb(): refill NONE; else the top bit of
 * page_sizes); in a translated reference, steps at or past its TLB reach
 * (page size x entries, or one page where entries are unknown) are not
 * named.  Each mode's latencies are then read off its own random curve at
 * the middle of each level's plateau, so a 4K-page mode shows its TLB
 * misses in its L2 and memory figures.  Under QEMU no level is claimed:
 * it emulates no caches and no TLB timing. */
#include <stdio.h>
#include <string.h>
#include "probe.h"
#include "guess.h"

#define MIN_BYTES	512u
#define MAX_BYTES	(256u << 20)
#define MAX_POINTS	80		/* 512 B .. 256 MiB at 4 an octave: 77 */
#define LOADS		64		/* dependent loads per timed iteration */

static unsigned long maxsize, stride;	/* 0: the defaults */
static int claim_emulated;		/* tests only: guess under QEMU too */

/* The reference curve for the guesses, kept across modes (see above). */
static int ref_rank = -1;
static uint64_t ref_limit;
static int ref_n;
static uint64_t ref_bytes[MAX_POINTS];
static int64_t ref_ns[MAX_POINTS];
static char ref_mode[16];

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

struct chase { void **p; };

/* n iterations of LOADS dependent loads; the chase goes on where it stopped. */
static uint64_t chase_run(void *arg, uint32_t n)
{
	struct chase *c = arg;
	void **p = c->p;
	uint64_t t0 = probe_ticks(), t1;

	while (n--) {
		LOAD64
	}
	t1 = probe_ticks();
	c->p = p;
	return t1 - t0;
}

/* The same loop without the loads: its cost is subtracted. */
static uint64_t loop_run(void *arg, uint32_t n)
{
	void **p = ((struct chase *)arg)->p;
	uint64_t t0 = probe_ticks(), t1;

	while (n--)
		__asm__ volatile("" : "+r"(p));
	t1 = probe_ticks();
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

/* Line i's first word points at the line the chase visits next. */
/* Out of line: -O2 would copy it into both patterns' loops. */
static __attribute__((noinline)) void build(uintptr_t base, uint32_t lines, uint32_t line, int random)
{
	for (uint32_t i = 0; i < lines; i++)	/* stride: the next line, the last to the first */
		*(void **)(base + i * line) = (void *)(base + (i + 1) % lines * line);
	if (!random)
		return;
	/* Sattolo: from "each line points at itself", swapping each slot with
	 * an earlier one gives a single cycle through all lines, uniformly at
	 * random. */
	for (uint32_t i = 0; i < lines; i++)
		*(void **)(base + i * line) = (void *)(base + i * line);
	for (uint32_t i = lines - 1; i > 0; i--) {
		void **a = (void **)(base + i * line), **b = (void **)(base + rnd() % i * line);
		void *t = *a;
		*a = *b;
		*b = t;
	}
}

/* Per-load time from a chase's and the empty loop's probe_time. */
static __attribute__((noinline)) void per_load(const struct probe_time *chase, const struct probe_time *loop,
		     struct probe_time *t)
{
	uint64_t d = chase->ticks1000 > loop->ticks1000 ? chase->ticks1000 - loop->ticks1000 : 0;
	uint64_t hz = probe_tick_hz();

	*t = *chase;
	t->ticks1000 = d / LOADS;
	/* ns x 100 = ticks1000 / 1000 / hz * 1e9 * 100, rounded. */
	t->ns100 = hz ? (int64_t)muldiv64(d * 2 + LOADS, 100000000ull, hz * LOADS * 2) : -1;
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

/* The mode's rank for the reference: 64 without translation, else log2 of
 * its largest page; and the size from which its TLB could step. */
static int mode_rank(const struct mmu_tlb_info *tlb, uint64_t *limit)
{
	int r = 31;

	if (tlb->refill == MMU_REFILL_NONE) {
		*limit = 0;
		return 64;
	}
	while (r > 0 && !(tlb->page_sizes & (1u << r)))
		r--;
	*limit = (1ull << r) * (tlb->entries ? tlb->entries : 1);
	return r;
}

static void sample_level(struct probe_ctx *ctx, const char *name, const struct probe_time *pt,
			 int lo, int hi)
{
	probe_sample_time(ctx, name, &pt[(lo + hi) / 2]);
}

static int lat_mem_run(struct probe_ctx *ctx)
{
	static uint64_t bytes[MAX_POINTS];
	static struct probe_time pt[MAX_POINTS];
	static int64_t ns[MAX_POINTS];
	const struct mmu_tlb_info *tlb = mmu_tlb();
	const char *const patterns[2] = { "stride", "random" };
	uint64_t max = maxsize, limit;
	uint32_t line = stride ? stride : probe_cache_line() ? probe_cache_line() : 32;
	uint32_t align = 4096;
	int rank = mode_rank(tlb, &limit), n, say = ctx->rep == 0;
	struct probe_time loop;
	struct chase c;
	struct guess g;
	uintptr_t base;
	char name[48];

	if (!max) {		/* 4x the largest cache reported; quick: 4x the smallest */
		for (int l = 1; l <= 3; l++)
			if (probe_cache_bytes(l) && (!max || !ctx->quick))
				max = 4ull * probe_cache_bytes(l);
		if (max < (64u << 10))
			max = 64u << 10;
		if (max > MAX_BYTES)
			max = MAX_BYTES;
	}
	if (rank < 64 && rank > 12 && rank < 31)
		align = 1u << rank;		/* the buffer in the mode's largest pages */
	if (!maxsize && max > probe_ram_bytes() / 2)	/* bounded by RAM */
		max = probe_ram_bytes() / 2;
	probe_mem_reset();
	base = probe_mem_alloc(max, align, align, "lat_mem: maxsize");
	if (!base)
		return probe_fail(ctx, "a %llu-byte sweep does not fit in probe memory",
				  (unsigned long long)max);
	n = sweep(max, bytes);

	c.p = (void **)base;
	if (probe_measure(loop_run, &c, &loop) < 0)
		return probe_fail(ctx, "the timer does not move");
	for (int pat = 0; pat < 2; pat++) {
		for (int i = 0; i < n; i++) {
			uint32_t lines = bytes[i] / line;
			struct probe_time t;

			build(base, lines, line, pat);
			c.p = (void **)base;
			chase_run(&c, lines / LOADS + 1);	/* one pass: the set is warm */
			if (probe_measure(chase_run, &c, &t) < 0)
				return probe_fail(ctx, "the timer does not move");
			per_load(&t, &loop, &pt[i]);
			ns[i] = pt[i].ns100 > 0 ? pt[i].ns100 : 1;
			snprintf(name, sizeof(name), "%s_%llu_ns", patterns[pat],
				 (unsigned long long)bytes[i]);
			probe_sample(ctx, name, pt[i].ns100, 2, "ns");
		}
	}
	/* pt[] and ns[] now hold the random curve. */

	if (rank >= ref_rank) {
		ref_rank = rank;
		ref_limit = limit;
		ref_n = n;
		memcpy(ref_bytes, bytes, sizeof(bytes));
		memcpy(ref_ns, ns, sizeof(ns));
		snprintf(ref_mode, sizeof(ref_mode), "%s", ctx->mode_name);
	}
	if (emulated() && !claim_emulated) {
		struct guess_curve gc = { n, bytes, ns };
		guess_caches(&gc, 0, 0, 0, &g);
		if (g.mem)
			sample_level(ctx, "mem", pt, g.top.lo, g.top.hi);
		if (say)
			probe_diag(ctx, "lat_mem", "no cache level claimed: %s", probe_platform());
		return RESULT_PASS;
	}
	if (ref_n != n || memcmp(ref_bytes, bytes, n * sizeof(bytes[0]))) {
		if (say)
			probe_diag(ctx, "lat_mem", "no cache level claimed: the reference curve "
				   "(mode %s) has another sweep", ref_mode);
		return RESULT_PASS;
	}
	{
		struct guess_curve gc = { ref_n, ref_bytes, ref_ns };
		guess_caches(&gc, 0, 0, ref_limit, &g);
	}
	for (int i = 0; i < g.levels; i++) {
		snprintf(name, sizeof(name), "l%d_bytes", i + 1);
		probe_sample(ctx, name, (int64_t)g.level[i].bytes, 0, "bytes");
		snprintf(name, sizeof(name), "l%d", i + 1);
		sample_level(ctx, name, pt, g.level[i].lo, g.level[i].hi);
	}
	if (g.mem)
		sample_level(ctx, "mem", pt, g.top.lo, g.top.hi);
	if (say && ref_limit)
		probe_diag(ctx, "lat_mem", "%d cache level%s from mode %s's curve, whose TLB may "
			   "step from %llu KiB%s%s", g.levels, g.levels == 1 ? "" : "s", ref_mode,
			   (unsigned long long)(ref_limit >> 10), g.note[0] ? "; " : "", g.note);
	else if (say)
		probe_diag(ctx, "lat_mem", "%d cache level%s from mode %s's curve (no translation)%s%s",
			   g.levels, g.levels == 1 ? "" : "s", ref_mode, g.note[0] ? "; " : "", g.note);
	return RESULT_PASS;
}

const struct probe probe_lat_mem = {
	.name = "lat_mem",
	.what = "memory latency by pointer chase (stride, random), 512 B to maxsize; cache guesses",
	.run = lat_mem_run,
	.args = (const struct boot_arg[]){
		{ "maxsize", "largest working set of lat_mem, bytes (default 4x the largest cache)",
		  set_maxsize },
		{ "stride", "lat_mem's line: bytes between loads, a power of two (default the cache line)",
		  set_stride },
		{ "lat_mem_claim", "tests only: 1 guesses levels under QEMU too (from the host's caches "
		  "that TCG shows)", set_claim },
		{ 0 } },
};
