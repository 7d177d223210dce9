/* Probe `boot`: the timer advances, what reading it costs, and the heap and
 * stack bounds the image runs within. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "arch.h"
#include "boot_info.h"
#include "probe.h"

#define TIMER_READS 256

/* Unused stack is painted at boot (boot_paint_stack); the first word that
 * lost the paint marks the deepest use so far. */
extern uintptr_t boot_stack_high_water(void);

static int boot_run(struct probe_ctx *ctx)
{
	volatile unsigned spin = 0;
	uint64_t t0, t1, best = ~0ull;
	char here;

	/* The timer advances over a busy loop. */
	t0 = arch_ticks();
	for (unsigned i = 0; i < 20000; i++)
		spin += i;
	t1 = arch_ticks();
	if (t1 <= t0) {
		snprintf(ctx->fail_reason, sizeof(ctx->fail_reason),
			 "timer did not advance over 20000 iterations (%llu -> %llu)",
			 (unsigned long long)t0, (unsigned long long)t1);
		return RESULT_FAIL;
	}
	probe_sample(ctx, "timer_advance_ticks", t1 - t0, 0, "ticks");

	/* Cost of one read: the smallest gap between back-to-back reads. */
	for (int i = 0; i < TIMER_READS; i++) {
		t0 = arch_ticks();
		t1 = arch_ticks();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	probe_sample(ctx, "timer_read_ticks", best, 0, "ticks");
	probe_sample(ctx, "timer_read_ns", ticks_to_ns100(best), 2, "ns");
	probe_sample(ctx, "tick_mhz", boot_info.tick_hz / 1000, 3, "MHz");

	/* The heap is bounded: an impossible request fails cleanly. */
	size_t heap = __heap_end - __heap_start;
	errno = 0;
	if (sbrk(heap + 4096) != (void *)-1 || errno != ENOMEM) {
		snprintf(ctx->fail_reason, sizeof(ctx->fail_reason),
			 "sbrk past the heap's end did not fail with ENOMEM");
		return RESULT_FAIL;
	}
	void *p = malloc(heap + 4096);
	if (p) {
		free(p);
		snprintf(ctx->fail_reason, sizeof(ctx->fail_reason),
			 "malloc larger than the heap succeeded");
		return RESULT_FAIL;
	}
	probe_sample(ctx, "heap_kib", heap >> 10, 0, "KiB");

	/* We run inside our own stack, and know how deep it has been used. */
	if (&here <= __stack_bottom || &here >= __stack_top) {
		snprintf(ctx->fail_reason, sizeof(ctx->fail_reason),
			 "stack pointer %p outside %p-%p", (void *)&here,
			 (void *)__stack_bottom, (void *)__stack_top);
		return RESULT_FAIL;
	}
	probe_sample(ctx, "stack_kib", (__stack_top - __stack_bottom) >> 10, 0, "KiB");
	probe_sample(ctx, "stack_used_bytes",
		     (uintptr_t)__stack_top - boot_stack_high_water(), 0, "bytes");
	return RESULT_PASS;
}

const struct probe probe_boot = {
	.name = "boot",
	.what = "timer advances, timer read cost, heap and stack bounds",
	.run = boot_run,
};
