/* The e500's 64-bit timebase: reading it, and knowing its rate (the device
 * tree's timebase-frequency, or measured under QEMU -icount). */
#include <stdio.h>
#include "arch.h"
#include "boot_info.h"
#include "e500.h"
#include "probe.h"

uint64_t arch_ticks(void)
{
	uint32_t hi, lo, hi2;

	do {	/* re-read if the low word carried into the high one */
		__asm__ volatile("mftbu %0; mftb %1; mftbu %2" : "=r"(hi), "=r"(lo), "=r"(hi2));
	} while (hi != hi2);
	return (uint64_t)hi << 32 | lo;
}

/* Exactly `n` executions of one bdnz: n instructions, plus a fixed few. */
static uint64_t ticks_over_instructions(uint32_t n)
{
	uint64_t t0 = arch_ticks();
	__asm__ volatile("mtctr %0\n1: bdnz 1b" : : "r"(n) : "ctr");
	return arch_ticks() - t0;
}

void arch_calibrate_ticks(struct boot_info *bi, int icount_shift)
{
	static char source[160];

	if (icount_shift >= 0) {
		/* One instruction is 2^shift ns of virtual time: two loop
		 * lengths, so the fixed instructions around them cancel. */
		const uint32_t n = 200000;
		uint64_t ticks = ticks_over_instructions(2 * n) - ticks_over_instructions(n);
		bi->tick_hz = muldiv64(ticks, 1000000000ull, (uint64_t)n << icount_shift);
		snprintf(source, sizeof(source),
			 "measured: %llu ticks over %lu instructions at QEMU -icount shift=%d",
			 (unsigned long long)ticks, (unsigned long)n, icount_shift);
	} else if (e500_fdt.tb_hz) {
		bi->tick_hz = e500_fdt.tb_hz;
		snprintf(source, sizeof(source), "the device tree's timebase-frequency (%lu Hz)",
			 (unsigned long)e500_fdt.tb_hz);
	} else {
		bi->tick_hz = 0;
		snprintf(source, sizeof(source), "no timebase-frequency in the device tree: no time figures");
	}
	bi->tick_hz_source = source;
}

