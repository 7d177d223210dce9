/* Probe `ctx`: LMbench's context switch (lat_ctx), 2p/0K 2p/16K 2p/64K
 * 8p/16K 8p/64K 16p/16K 16p/64K (quick: 2p/0K 2p/64K 16p/64K), on bare
 * metal through the scheduler (include/proc.h proc_run_all).
 *
 * lat_ctx's method: N processes in a ring of pipes pass a token; each
 * reads it, sums its own K KiB (every word) and writes it to the next, so
 * a round is N context switches (a blocking read, the mode's address-space
 * switch).  Its overhead, subtracted: the same pipe writes, reads and sums
 * in one process with N pipes to itself (no switch).  Per switch: (a round
 * less the overhead's round) / N; each run of n rounds is one of n + 1
 * less one of 1 (starting and ending the processes, the ring's first and
 * last hops).  <n>p_<k>k_round_*: the TLB misses
 * and kernel-page misses of one round of the ring in the TLB's steady
 * state (probe_ring_round_counts), where the mode counts them.
 *
 * Under an OS (probe_os(): the sandbox) the same method with the OS's
 * processes: N of them in a ring of pipes, each summing its K KiB, the
 * same pipe writes, reads and sums in one process subtracted; every hop
 * counted (the token), the children reaped. */
#include <stdio.h>
#include <string.h>
#include "probe.h"
#include "proc.h"
#include "mark.h"
#include "sort.h"


static const struct { unsigned n, k, quick; } columns[] = {
	{ 2, 0, 1 }, { 2, 16, 0 }, { 2, 64, 1 }, { 8, 16, 0 }, { 8, 64, 0 }, { 16, 16, 0 }, { 16, 64, 1 },
};

static struct probe_ring ring;		/* big: 17 progs */
static int col, translated;		/* the column, the mode's: for the markers (mark.h) */

static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static uint64_t ring_rounds(void *arg, uint32_t n)
{
	struct probe_ring *r = arg;
	uint64_t with;

	/* A region a column (mark.h's ids in columns[] order), the markers
	 * outside probe_ring_run's timer reads; the run of 1 unmarked. */
	switch (col) {
#define RING_MARKED(i, id) case i: MARK_BEGIN(id, translated); \
		with = probe_ring_run(r, n + 1, 0); MARK_END(id); break;
	RING_MARKED(0, MARK_CTX_2P_0K) RING_MARKED(1, MARK_CTX_2P_16K)
	RING_MARKED(2, MARK_CTX_2P_64K) RING_MARKED(3, MARK_CTX_8P_16K)
	RING_MARKED(4, MARK_CTX_8P_64K) RING_MARKED(5, MARK_CTX_16P_16K)
	RING_MARKED(6, MARK_CTX_16P_64K)
#undef RING_MARKED
	default: with = probe_ring_run(r, n + 1, 0);
	}
	return less(with, probe_ring_run(r, 1, 0));
}

static uint64_t alone_rounds(void *arg, uint32_t n)
{
	struct probe_ring *r = arg;
	return less(probe_ring_run(r, n + 1, 1), probe_ring_run(r, 1, 1));
}

static int64_t ns100_of(int64_t ticks1000)
{
	return probe_tick_hz() && ticks1000 >= 0 ?
		(int64_t)muldiv64(ticks1000, 100000000ull, probe_tick_hz()) : -1;
}

static int column(struct probe_ctx *ctx, unsigned n, unsigned k)
{
	struct probe_time with, alone;
	char name[24];

	snprintf(name, sizeof(name), "%up_%uk", n, k);
	if (probe_ring_open(&ring, n, k << 10) < 0)
		return probe_fail(ctx, "%s: no ring of %u processes with %u KiB each", name, n, k);
	probe_ring_pages(ctx, "ctx", name, &ring);
	int err = probe_measure(ring_rounds, &ring, &with) < 0 || ring.failed;
	if (!err)
		err = probe_measure(alone_rounds, &ring, &alone) < 0 || ring.failed;
	uint32_t switches = err ? 0 : probe_ring_round_counts(ctx, &ring, "ctx", name);
	err |= ring.failed;
	probe_ring_close(&ring);
	if (err)
		return probe_fail(ctx, "%s: %s", name, ring.failed ? ring.why : "the timer did not move");
	if (switches != n)		/* a round is n blocking reads, each a switch */
		return probe_fail(ctx, "%s: %lu context switches a round, not %u", name,
				  (unsigned long)switches, n);
	int64_t d = ((int64_t)with.ticks1000 - (int64_t)alone.ticks1000) / (int64_t)n;
	probe_diag(ctx, "ctx", "%s: a round %lld ns, the overhead's %lld ns; %lu switches a "
		   "round", name, (long long)ns100_of(with.ticks1000) / 100,
		   (long long)ns100_of(alone.ticks1000) / 100, (unsigned long)switches);
	if (d <= 0) {			/* as lat_ctx: nothing left, no figure */
		probe_diag(ctx, "ctx", "%s: a round took no longer than its overhead", name);
		return RESULT_PASS;
	}
	struct probe_time t = { .iterations = with.iterations, .ticks1000 = (uint64_t)d,
				.spread100 = with.spread100 };
	t.ns100 = ns100_of(d);
	t.cycles100 = ns100_to_cycles100(t.ns100);
	probe_sample_time(ctx, name, &t);
	return RESULT_PASS;
}

/* Under an OS.  An iteration is RING_ROUNDS rounds: a round of 2
 * processes is a few microseconds, and the per-switch figure is a
 * difference of two such times. */
#define RING_ROUNDS	16
struct os_ring { const struct probe_os *os; void *ring; };

static uint64_t os_rounds(void *arg, uint32_t n)
{
	struct os_ring *a = arg;
	return a->os->ring_run(a->ring, n * RING_ROUNDS);
}

static uint64_t os_alone(void *arg, uint32_t n)
{
	struct os_ring *a = arg;
	return a->os->ring_alone(a->ring, n * RING_ROUNDS);
}

/* PAIRS of (rounds, the same work alone) back to back, `it` iterations
 * each, so that a busy machine disturbs both sides of a difference alike:
 * per switch (round - alone) / n for each pair, ticks x1000, sorted. */
#define PAIRS	5
static void os_pairs(struct os_ring *a, uint32_t it, unsigned n, int64_t d[PAIRS],
		     int64_t *round1000, int64_t *alone1000)
{
	int64_t r[PAIRS], s[PAIRS];

	for (int i = 0; i < PAIRS; i++) {
		r[i] = (int64_t)(os_rounds(a, it) * 1000 / it / RING_ROUNDS);
		s[i] = (int64_t)(os_alone(a, it) * 1000 / it / RING_ROUNDS);
		d[i] = (r[i] - s[i]) / (int64_t)n;
	}
	sort_i64(d, PAIRS);
	sort_i64(r, PAIRS);
	sort_i64(s, PAIRS);
	*round1000 = r[PAIRS / 2], *alone1000 = s[PAIRS / 2];
}

static int os_column(struct probe_ctx *ctx, const struct probe_os *os, unsigned n, unsigned k)
{
	struct probe_time with;
	int64_t d[PAIRS], round1000 = 0, alone1000 = 0;
	char why[96], name[24];
	void *ring = os->ring_open(n, k << 10, why, sizeof(why));

	snprintf(name, sizeof(name), "%up_%uk", n, k);
	if (!ring)
		return probe_fail(ctx, "%s: %s", name, why);
	struct os_ring a = { os, ring };
	/* probe_measure() finds how many iterations are long enough. */
	int err = probe_measure(os_rounds, &a, &with) < 0;
	if (!err)
		os_pairs(&a, with.iterations, n, d, &round1000, &alone1000);
	if (probe_os_ring_close(ctx, "ctx", name, os, ring, n) != RESULT_PASS)
		return RESULT_FAIL;
	if (err)
		return probe_fail(ctx, "%s: the timer did not move", name);
	probe_diag(ctx, "ctx", "%s: a round %lld ns, the overhead's %lld ns", name,
		   (long long)ns100_of(round1000) / 100, (long long)ns100_of(alone1000) / 100);
	int64_t med = d[PAIRS / 2];
	if (med <= 0) {			/* as lat_ctx: nothing left, no figure */
		probe_diag(ctx, "ctx", "%s: a round took no longer than its overhead", name);
		return RESULT_PASS;
	}
	struct probe_time t = { .iterations = with.iterations, .ticks1000 = (uint64_t)med };
	t.ns100 = ns100_of(med);
	t.cycles100 = ns100_to_cycles100(t.ns100);
	t.spread100 = (d[PAIRS - 1] - d[0]) * 10000 / med;
	probe_sample_time(ctx, name, &t);
	return RESULT_PASS;
}

static int ctx_run(struct probe_ctx *ctx)
{
	const struct probe_os *os = probe_os();
	const char *why = os ? 0 : proc_unavailable();

	if (why)
		return probe_skip(ctx, "%s", why);
	for (unsigned i = 0; i < sizeof(columns) / sizeof(columns[0]); i++) {
		if (ctx->quick && !columns[i].quick)
			continue;
		unsigned n = columns[i].n, k = columns[i].k;
		col = i, translated = mmu_translated(ctx->mode);
		int r = os ? os_column(ctx, os, n, k) : column(ctx, n, k);
		if (r != RESULT_PASS)
			return r;
	}
	return RESULT_PASS;
}

const struct probe probe_ctx = {
	.name = "ctx",
	.what = "context switch by lat_ctx's method: N processes in a ring of blocking pipes, "
		"each summing K KiB, the overhead in one process subtracted (2p/0K .. 16p/64K); "
		"under an OS, its processes",
	.run = ctx_run,
};
