/* Probe `modeswitch`: leave and re-enter the current mode many times.
 * Every enter flushes the TLB, builds or reloads the mapping and runs the
 * arch's self-check, so this both costs a switch and proves none is lost. */
#include <stdio.h>
#include "arch.h"
#include "probe.h"

#define SWITCHES 100

static int modeswitch_run(struct probe_ctx *ctx)
{
	const struct mmu_mode *mode = ctx->mode;
	uint64_t t0 = arch_ticks();

	for (int i = 0; i < SWITCHES; i++) {
		mode->leave();
		if (mode->enter() < 0) {
			snprintf(ctx->fail_reason, sizeof(ctx->fail_reason),
				 "switch %d of %d into %s failed", i + 1, SWITCHES, mode->name);
			mode->enter();	/* the run loop expects to leave it */
			return RESULT_FAIL;
		}
	}
	uint64_t t1 = arch_ticks();
	probe_sample(ctx, "switches", SWITCHES, 0, "count");
	probe_sample(ctx, "switch_ns", ticks_to_ns100(t1 - t0) / SWITCHES, 2, "ns");
	return RESULT_PASS;
}

const struct probe probe_modeswitch = {
	.name = "modeswitch",
	.what = "100 leave/enter cycles of the mode, each self-checked",
	.run = modeswitch_run,
};
