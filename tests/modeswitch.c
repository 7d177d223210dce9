/* Probe `modeswitch`: leave and re-enter the current mode many times.
 * Every enter flushes the TLB, builds the mapping and runs the self-check,
 * so this both costs a switch and proves none is lost.  Where time is real
 * the run is sized by its duration: at least MIN_SWITCHES and 200 ms (a
 * sandbox switch maps a GiB: 17 ms); elsewhere exactly SWITCHES, a count
 * the tests hold. */
#include "probe.h"

#define SWITCHES	100
#define MIN_SWITCHES	10

static int modeswitch_run(struct probe_ctx *ctx)
{
	uint64_t t0 = probe_ticks(), enough = probe_tick_hz() / 5;	/* 200 ms */
	int i;

	for (i = 0; i < SWITCHES; i++) {
		if (probe_time_is_real() && i >= MIN_SWITCHES && probe_ticks() - t0 >= enough)
			break;
		mmu_leave();
		if (mmu_enter(ctx->mode) < 0) {
			mmu_enter(ctx->mode);	/* the run loop expects to leave it */
			return probe_fail(ctx, "switch %d of %d into %s failed", i + 1, SWITCHES,
					  ctx->mode_name);
		}
	}
	uint64_t t1 = probe_ticks();
	probe_sample(ctx, "switches", i, 0, "count");
	probe_sample(ctx, "switch_ns", ticks_to_ns100(t1 - t0) / i, 2, "ns");
	return RESULT_PASS;
}

const struct probe probe_modeswitch = {
	.name = "modeswitch",
	.what = "100 leave/enter cycles of the mode, each self-checked (real time: 10 or more, 200 ms)",
	.run = modeswitch_run,
};
