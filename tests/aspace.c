/* Probe `aspace`: address-space switch with working sets, LMbench's ctxsw
 * columns (2p/0K 2p/16K 2p/64K 8p/16K 8p/64K 16p/16K 16p/64K; quick: 2p/0K
 * 2p/64K 16p/64K).  N spaces each map K bytes of their own pages in the
 * space window; a round switches to each space in turn and reads its K
 * bytes, one word a cache line.  The cost of a switch and its refill is a
 * round's time over N, less the time to read K bytes without switching
 * (as lat_ctx subtracts its summing).
 *
 * What a switch is comes from the TLB description, recorded per mode as
 * switch_kind (the tables show it as a word): where the TLB is tagged (the
 * 405's PID) both kinds are measured, tagged spaces (<n>p_<k>k) and spaces
 * that flush on every switch (<n>p_<k>k_flush); untagged (a CR3 load) has
 * the one kind.  Where spaces are emulated by an OS (the sandbox remaps
 * the window) that remap is <n>p_<k>k_remap, and <n>p_<k>k is the OS's
 * own process switch by lat_ctx's method (probe_os(): N processes in a
 * ring of pipes, each summing its K bytes; per switch, the ring's round
 * over N less the same pipe writes, reads and sums in one process). */
#include <stdio.h>
#include <stdlib.h>
#include "probe.h"
#include "sort.h"

#define PAGE		4096u
#define MAX_SPACES	16
#define MAX_K		(64u << 10)
/* switch_kind: enum mmu_switch's values, then an OS's process switch
 * (lib/table_defs.c has the words in this order). */
#define KIND_PROCESS	3
static const char *const kinds[] = {
	"untagged, a table switch that flushes the TLB's non-global entries (CR3 load)",
	"tagged, the TLB's tag changes (the 405's PID), no flush",
	"emulated, no such switch: the window remapped (munmap + mmap)",
	"process, the OS's own process switch (lat_ctx's ring of pipes); the remap is _remap",
};

static const struct { unsigned n, k, quick; } columns[] = {
	{ 2, 0, 1 }, { 2, 16, 0 }, { 2, 64, 1 }, { 8, 16, 0 }, { 8, 64, 0 }, { 16, 16, 0 }, { 16, 64, 1 },
};

struct round {
	struct mmu_space *space[MAX_SPACES];
	unsigned n, bytes, line;
	uint32_t sum;
};

static uint32_t read_window(unsigned bytes, unsigned line)
{
	uint32_t sum = 0;

	for (unsigned off = 0; off < bytes; off += line)
		sum += *(volatile uint32_t *)(uintptr_t)(MMU_SPACE_BASE + off);
	return sum;
}

/* n rounds: every space once, its working set read. */
static uint64_t rounds_run(void *arg, uint32_t n)
{
	struct round *r = arg;
	uint64_t t0 = probe_ticks();

	for (uint32_t i = 0; i < n; i++)
		for (unsigned s = 0; s < r->n; s++) {
			mmu_space_switch(r->space[s]);
			r->sum += read_window(r->bytes, r->line);
		}
	return probe_ticks() - t0;
}

/* n rounds of the same reads with no switch: what the reads cost alone. */
static uint64_t reads_run(void *arg, uint32_t n)
{
	struct round *r = arg;
	uint64_t t0 = probe_ticks();

	for (uint32_t i = 0; i < n; i++)
		for (unsigned s = 0; s < r->n; s++)
			r->sum += read_window(r->bytes, r->line);
	return probe_ticks() - t0;
}

static int one(struct probe_ctx *ctx, uintptr_t mem, unsigned n, unsigned k, unsigned flags,
	       const char *suffix)
{
	struct round r = { .n = n, .bytes = k << 10, .line = probe_cache_line() ? probe_cache_line() : 32 };
	struct probe_time with, without;
	char name[24];
	int err = 0;

	for (unsigned s = 0; s < n && !err; s++) {
		r.space[s] = mmu_space_create(flags);
		err = !r.space[s] || mmu_space_switch(r.space[s]) < 0 ||
		      (r.bytes && mmu_map(MMU_SPACE_BASE, mem + s * MAX_K, r.bytes,
					  MMU_READ | MMU_WRITE) < 0);
	}
	/* Without switching, read in the last space: the same K bytes. */
	if (!err)
		err = probe_measure(rounds_run, &r, &with) < 0 || probe_measure(reads_run, &r, &without) < 0;
	mmu_space_switch(0);
	for (unsigned s = 0; s < n; s++)
		mmu_space_destroy(r.space[s]);
	if (err)
		return probe_fail(ctx, "%u spaces of %u KiB: could not create, map or time them", n, k);

	/* Per switch: (round - reads) / n. */
	struct probe_time t = with;
	int64_t d = (int64_t)with.ticks1000 - (int64_t)without.ticks1000;
	t.ticks1000 = d > 0 ? d / n : 0;
	t.ns100 = probe_tick_hz() ? (int64_t)muldiv64(t.ticks1000, 100000000ull, probe_tick_hz()) : -1;
	t.cycles100 = ns100_to_cycles100(t.ns100);
	snprintf(name, sizeof(name), "%up_%uk%s", n, k, suffix);
	probe_sample_time(ctx, name, &t);
	return RESULT_PASS;
}

/* The OS's processes: lat_ctx's ring, every hop counted.  An iteration is
 * RING_ROUNDS rounds: a round of 2 processes is a few microseconds, and
 * the per-switch figure is a difference of two such times. */
#define RING_ROUNDS	16
struct ring_arg { const struct probe_os *os; void *ring; };

static uint64_t ring_rounds(void *arg, uint32_t n)
{
	struct ring_arg *a = arg;
	return a->os->ring_run(a->ring, n * RING_ROUNDS);
}

static uint64_t ring_alone(void *arg, uint32_t n)
{
	struct ring_arg *a = arg;
	return a->os->ring_alone(a->ring, n * RING_ROUNDS);
}

/* PAIRS of (rounds, the same work alone) back to back, `it` iterations
 * each, so that a busy machine disturbs both sides of a difference alike:
 * per switch (round - alone) / n for each pair, ticks x1000, sorted. */
#define PAIRS	5
static void ring_pairs(struct ring_arg *a, uint32_t it, unsigned n, int64_t d[PAIRS],
		       int64_t *round1000, int64_t *alone1000)
{
	int64_t r[PAIRS], s[PAIRS];

	for (int i = 0; i < PAIRS; i++) {
		r[i] = (int64_t)(ring_rounds(a, it) * 1000 / it / RING_ROUNDS);
		s[i] = (int64_t)(ring_alone(a, it) * 1000 / it / RING_ROUNDS);
		d[i] = (r[i] - s[i]) / (int64_t)n;
	}
	sort_i64(d, PAIRS);
	sort_i64(r, PAIRS);
	sort_i64(s, PAIRS);
	*round1000 = r[PAIRS / 2], *alone1000 = s[PAIRS / 2];
}

static int64_t ns100_of(int64_t ticks1000)
{
	return probe_tick_hz() && ticks1000 >= 0 ?
		(int64_t)muldiv64(ticks1000, 100000000ull, probe_tick_hz()) : -1;
}

static int ring_one(struct probe_ctx *ctx, const struct probe_os *os, unsigned n, unsigned k)
{
	struct probe_time with;
	struct probe_ring_counts c;
	int64_t d[PAIRS], round1000 = 0, alone1000 = 0;
	char why[96], name[24];
	void *ring = os->ring_open(n, k << 10, why, sizeof(why));

	if (!ring)
		return probe_fail(ctx, "%s", why);
	struct ring_arg a = { os, ring };
	/* probe_measure() finds how many iterations are long enough. */
	int err = probe_measure(ring_rounds, &a, &with) < 0;
	if (!err)
		ring_pairs(&a, with.iterations, n, d, &round1000, &alone1000);
	if (os->ring_close(ring, &c) < 0 || err)
		return probe_fail(ctx, "%up/%uK: the ring of processes broke (%u children reaped)",
				  n, k, c.children);
	if (c.hops != c.rounds * n || c.children != n - 1)
		return probe_fail(ctx, "%up/%uK: %llu hops in %llu rounds, %u children reaped", n, k,
				  (unsigned long long)c.hops, (unsigned long long)c.rounds, c.children);
	probe_diag(ctx, "aspace", "%up/%uK: %llu rounds, %llu hops, %llu context switches, "
		   "children reaped %u; a round %lld ns, alone %lld ns", n, k,
		   (unsigned long long)c.rounds, (unsigned long long)c.hops,
		   (unsigned long long)c.switches, c.children,
		   (long long)(ns100_of(round1000) / 100), (long long)(ns100_of(alone1000) / 100));
	/* As lat_ctx: no figure where nothing is left after the overhead. */
	int64_t med = d[PAIRS / 2];
	if (med <= 0) {
		probe_diag(ctx, "aspace", "%up/%uK: a round took no longer than its overhead", n, k);
		return RESULT_PASS;
	}
	struct probe_time t = { .iterations = with.iterations, .ticks1000 = (uint64_t)med };
	t.ns100 = ns100_of(med);
	t.cycles100 = ns100_to_cycles100(t.ns100);
	t.spread100 = (d[PAIRS - 1] - d[0]) * 10000 / med;
	snprintf(name, sizeof(name), "%up_%uk", n, k);
	probe_sample_time(ctx, name, &t);
	return RESULT_PASS;
}

static int aspace_run(struct probe_ctx *ctx)
{
	const struct mmu_tlb_info *tlb = mmu_tlb();
	const struct probe_os *os = probe_os();

	if (!mmu_translated(ctx->mode))
		return probe_skip(ctx, "mode %s has no translation, so no address spaces",
				  ctx->mode_name);
	probe_mem_reset();
	uintptr_t mem = probe_mem_alloc(MAX_SPACES * MAX_K, PAGE, 0, "aspace: working sets");
	if (!mem)
		return probe_fail(ctx, "no room for %u working sets of 64 KiB", MAX_SPACES);
	int emulated = tlb->space_switch == MMU_SWITCH_EMULATED, ring = emulated && os;
	unsigned kind = ring ? KIND_PROCESS : tlb->space_switch;
	probe_sample(ctx, "switch_kind", kind, 0, "kind");
	if (kind < sizeof(kinds) / sizeof(kinds[0]))
		probe_diag(ctx, "aspace", "switch_kind %u: %s", kind, kinds[kind]);
	for (unsigned i = 0; i < sizeof(columns) / sizeof(columns[0]); i++) {
		unsigned n = columns[i].n, k = columns[i].k;
		int r = RESULT_PASS;
		if (ctx->quick && !columns[i].quick)
			continue;
		if (ring)
			r = ring_one(ctx, os, n, k);
		if (r == RESULT_PASS)
			r = one(ctx, mem, n, k, 0, emulated ? "_remap" : "");
		if (r == RESULT_PASS && tlb->space_switch == MMU_SWITCH_TAGGED)
			r = one(ctx, mem, n, k, MMU_SPACE_FLUSH, "_flush");
		if (r != RESULT_PASS)
			return r;
	}
	return RESULT_PASS;
}

const struct probe probe_aspace = {
	.name = "aspace",
	.what = "address-space switch with working sets, LMbench's ctxsw columns (2p/0K .. 16p/64K); "
		"under an OS, its processes by lat_ctx's method",
	.run = aspace_run,
};
