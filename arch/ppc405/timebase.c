/* The 405's 64-bit timebase: reading it, and knowing its rate. */
#include <stdio.h>
#include "arch.h"
#include "probe.h"
#include "boot_info.h"
#include "ppc405.h"

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

static char tb_text[200];

const char *ppc405_tb_text(void)
{
	return tb_text;
}

void arch_calibrate_ticks(struct boot_info *bi, int icount_shift)
{
	static char source[200];
	int external = ppc405_tb_clock(tb_text, sizeof(tb_text));

	if (icount_shift >= 0) {
		/* Under QEMU -icount, one instruction is 2^shift ns of virtual time:
		 * the instruction count is the reference clock.  Two loop lengths,
		 * so the fixed instructions around the loop cancel out. */
		const uint32_t n = 200000;
		uint64_t t1 = ticks_over_instructions(n), t2 = ticks_over_instructions(2 * n);
		uint64_t ticks = t2 - t1;
		uint64_t ns = (uint64_t)n << icount_shift;
		bi->tick_hz = muldiv64(ticks, 1000000000ull, ns);
		snprintf(source, sizeof(source),
			 "measured: %llu ticks over %lu instructions at QEMU -icount shift=%d",
			 (unsigned long long)ticks, (unsigned long)n, icount_shift);
		bi->tick_hz_source = source;
		return;
	}
	/* With TmrClk selected the rate is the board's oscillator, which no
	 * register and no U-Boot bd_t gives: no figure rather than a wrong
	 * one (every time would be scaled by CPU clock / TmrClk). */
	if (external > 0) {
		bi->tick_hz = 0;
		bi->tick_hz_source = "the timebase counts TmrClk (CPC0_CR1[CETE] set by the "
				     "firmware), whose rate nothing here gives: no time figures";
		return;
	}
	/* The CPU clock: with no reference clock to measure against, the
	 * board's CPU clock figure is the best we have (ref405ep: its PLL
	 * registers; walnut: the PLL, or the bd_t). */
	bi->tick_hz = bi->cpu_hz;
	snprintf(source, sizeof(source), "assumed equal to the cpu clock (%s), not verified",
		 bi->cpu_hz_source);
	bi->tick_hz_source = source;
}

/* The 405 cannot tell QEMU from a board: the boot arguments say (qemu=). */
const char *arch_platform(void)
{
	return 0;
}
