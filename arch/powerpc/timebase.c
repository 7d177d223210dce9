/* The timebase, the same 64-bit counter on the 405 and the e500: reading
 * it, and measuring its rate under QEMU -icount.  Without -icount each
 * arch's timebase.c says where the rate comes from. */
#include <stdio.h>
#include "arch.h"
#include "boot_info.h"
#include "probe.h"
#include "timebase.h"

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

void ppc_tb_measure(struct boot_info *bi, int icount_shift)
{
	static char source[160];
	/* One instruction is 2^shift ns of virtual time: the instruction
	 * count is the reference clock.  Two loop lengths, so the fixed
	 * instructions around the loop cancel out. */
	const uint32_t n = 200000;
	uint64_t t1 = ticks_over_instructions(n), t2 = ticks_over_instructions(2 * n);
	uint64_t ticks = t2 - t1;

	bi->tick_hz = muldiv64(ticks, 1000000000ull, (uint64_t)n << icount_shift);
	snprintf(source, sizeof(source),
		 "measured: %llu ticks over %lu instructions at QEMU -icount shift=%d",
		 (unsigned long long)ticks, (unsigned long)n, icount_shift);
	bi->tick_hz_source = source;
}
