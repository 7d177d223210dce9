/* Probe `modeswitch`: leave and re-enter the current mode many times.
 * Every enter flushes the TLB, builds the mapping and runs the self-check,
 * so this both costs a switch and proves none is lost. */
#include "probe.h"

#define SWITCHES 100

static int modeswitch_run(struct probe_ctx *ctx)
{
	uint64_t t0 = probe_ticks();

	for (int i = 0; i < SWITCHES; i++) {
		mmu_leave();
		if (mmu_enter(ctx->mode) < 0) {
			mmu_enter(ctx->mode);	/* the run loop expects to leave it */
			return probe_fail(ctx, "switch %d of %d into %s failed", i + 1, SWITCHES,
					  ctx->mode_name);
		}
	}
	uint64_t t1 = probe_ticks();
	probe_sample(ctx, "switches", SWITCHES, 0, "count");
	probe_sample(ctx, "switch_ns", ticks_to_ns100(t1 - t0) / SWITCHES, 2, "ns");
	return RESULT_PASS;
}

const struct probe probe_modeswitch = {
	.name = "modeswitch",
	.what = "100 leave/enter cycles of the mode, each self-checked",
	.run = modeswitch_run,
};
