/* Probe `boot`: the timer advances, what reading it costs, and the heap and
 * stack bounds the image runs within. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "probe.h"

#define TIMER_READS 256

static int boot_run(struct probe_ctx *ctx)
{
	volatile unsigned spin = 0;
	uint64_t t0, t1, best = ~0ull;
	struct probe_bounds b;
	char here;

	/* The timer advances over a busy loop. */
	t0 = probe_ticks();
	for (unsigned i = 0; i < 20000; i++)
		spin += i;
	t1 = probe_ticks();
	if (t1 <= t0)
		return probe_fail(ctx, "timer did not advance over 20000 iterations (%llu -> %llu)",
				  (unsigned long long)t0, (unsigned long long)t1);
	probe_sample(ctx, "timer_advance_ticks", t1 - t0, 0, "ticks");

	/* Cost of one read: the smallest gap between back-to-back reads. */
	for (int i = 0; i < TIMER_READS; i++) {
		t0 = probe_ticks();
		t1 = probe_ticks();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	probe_sample(ctx, "timer_read_ticks", best, 0, "ticks");
	probe_sample(ctx, "timer_read_ns", ticks_to_ns100(best), 2, "ns");
	probe_sample(ctx, "tick_mhz", probe_tick_hz() / 1000, 3, "MHz");

	/* The heap is bounded: an impossible request fails cleanly. */
	probe_get_bounds(&b);
	size_t heap = b.heap_end - b.heap_start;
	errno = 0;
	if (sbrk(heap + 4096) != (void *)-1 || errno != ENOMEM)
		return probe_fail(ctx, "sbrk past the heap's end did not fail with ENOMEM");
	void *p = malloc(heap + 4096);
	if (p) {
		free(p);
		return probe_fail(ctx, "malloc larger than the heap succeeded");
	}
	probe_sample(ctx, "heap_kib", heap >> 10, 0, "KiB");

	/* We run inside our own stack, and know how deep it has been used
	 * (boot painted it; the first word that lost the paint marks it). */
	if ((uintptr_t)&here <= b.stack_bottom || (uintptr_t)&here >= b.stack_top)
		return probe_fail(ctx, "stack pointer %p outside %#lx-%#lx", (void *)&here,
				  (unsigned long)b.stack_bottom, (unsigned long)b.stack_top);
	probe_sample(ctx, "stack_kib", (b.stack_top - b.stack_bottom) >> 10, 0, "KiB");
	probe_sample(ctx, "stack_used_bytes", b.stack_top - b.stack_high_water, 0, "bytes");
	return RESULT_PASS;
}

const struct probe probe_boot = {
	.name = "boot",
	.what = "timer advances, timer read cost, heap and stack bounds",
	.run = boot_run,
};
