/* Probe `cpu`: the core clock, as LMbench's mhz measures it: loops of 32
 * and of 16 dependent one-cycle adds, whose difference is 16 cycles an
 * iteration with the loop's own cost gone, against the timer.  Core cycles
 * are not timer ticks: the TSC and the 405's timebase need not run at it.
 *
 * A disturbance (an interrupt, a steal) only ever lengthens a loop, so
 * each loop's time is its minimum over TRIALS trials, the two loops
 * interleaved (so that a slow stretch of the machine hits both), and the
 * MHz the difference of the two minimums.  The spread says how much that
 * depends on which trials were undisturbed: with each loop's times sorted,
 * the MHz from the k-th fastest of each, for k over the faster half;
 * (highest - lowest) / the figure, printed with them so it can be checked. */
#include <stdio.h>
#include "probe.h"

#define TRIALS	21
#define QUIET	((TRIALS + 1) / 2)	/* the least disturbed half */

/* kHz (MHz x 1000) from 16 n cycles in `ticks` (a loop is ~200 us: its
 * ticks fit 32 bits on any timer here). */
static uint64_t khz(uint64_t n, uint64_t ticks)
{
	return ticks && ticks <= 0xffffffffu ? muldiv64(16 * n, probe_tick_hz(), ticks) / 1000 : 0;
}

static void sort(uint64_t *v, int k)
{
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			uint64_t x = v[j];
			v[j] = v[j - 1], v[j - 1] = x;
		}
}

/* Iterations for a narrow loop of a point's time (200 us): each loop's
 * minimum over the trials is taken, which longer loops do not improve. */
static uint32_t iterations(void)
{
	uint32_t n = 256;

	while (probe_add_chain_ticks(n, 0) < probe_point_ticks() && n < 0x10000000u)
		n *= 2;
	return n;
}

static int cpu_run(struct probe_ctx *ctx)
{
	uint64_t narrow[TRIALS], wide[TRIALS], best, lo = ~0ull, hi = 0;
	uint32_t n = iterations();
	char list[QUIET * 8 + 1];
	int len = 0;

	for (int i = 0; i < TRIALS; i++) {	/* alternate which loop goes first */
		if (i & 1) {
			wide[i] = probe_add_chain_ticks(n, 1), narrow[i] = probe_add_chain_ticks(n, 0);
		} else {
			narrow[i] = probe_add_chain_ticks(n, 0), wide[i] = probe_add_chain_ticks(n, 1);
		}
	}
	sort(narrow, TRIALS);
	sort(wide, TRIALS);
	if (wide[0] <= narrow[0] || !probe_tick_hz())
		return probe_fail(ctx, "the timer did not separate 32 adds from 16");
	best = khz(n, wide[0] - narrow[0]);
	for (int i = 0; i < QUIET; i++) {
		uint64_t m = wide[i] > narrow[i] ? khz(n, wide[i] - narrow[i]) : 0;
		lo = m < lo ? m : lo;
		hi = m > hi ? m : hi;
		len += snprintf(list + len, sizeof(list) - len, " %llu", (unsigned long long)(m / 1000));
	}
	/* (hi - lo) / best in percent x 100, from the whole-MHz figures printed */
	lo = lo / 1000, hi = hi / 1000;
	probe_diag(ctx, "cpu", "%d trials x %lu iterations; MHz of the k-th fastest, k = 1..%d:%s",
		   TRIALS, (unsigned long)n, QUIET, list);
	probe_sample(ctx, "mhz", (int64_t)best, 3, "MHz");
	probe_sample(ctx, "mhz_spread", best ? (int64_t)((hi - lo) * 10000000 / best) : 0, 2, "percent");
	probe_sample(ctx, "cycle_ps", best ? (int64_t)((1000000000ull + best / 2) / best) : 0, 0, "ps");
	return RESULT_PASS;
}

const struct probe probe_cpu = {
	.name = "cpu",
	.what = "the core clock from dependent one-cycle adds (LMbench mhz): each loop's minimum "
		"of 21 interleaved trials, in MHz",
	.run = cpu_run,
};
