/* Probe `cpu`: the core clock, as LMbench's mhz measures it: loops of 32
 * and of 16 dependent one-cycle adds, whose difference is 16 cycles an
 * iteration with the loop's own cost gone, against the timer.  Core cycles
 * are not timer ticks: the TSC and the 405's timebase need not run at it. */
#include "probe.h"

static uint64_t sixteen_adds(void *arg, uint32_t n)
{
	uint64_t narrow = probe_add_chain_ticks(n, 0), wide = probe_add_chain_ticks(n, 1);

	(void)arg;
	return wide > narrow ? wide - narrow : 0;
}

static int cpu_run(struct probe_ctx *ctx)
{
	struct probe_time t;

	if (probe_measure(sixteen_adds, 0, &t) < 0 || t.ns100 <= 0)
		return probe_fail(ctx, "the timer did not separate 32 adds from 16");
	/* 16 cycles take ticks1000 / 1000 ticks: MHz x 1000 = 16 * hz / ticks1000. */
	probe_sample(ctx, "mhz", (int64_t)(16ull * probe_tick_hz() / t.ticks1000), 3, "MHz");
	probe_sample(ctx, "mhz_spread", t.spread100, 2, "percent");
	probe_sample(ctx, "cycle_ps", t.ns100 * 10 / 16, 0, "ps");
	return RESULT_PASS;
}

const struct probe probe_cpu = {
	.name = "cpu",
	.what = "the core clock from dependent one-cycle adds (LMbench mhz), in MHz",
	.run = cpu_run,
};
