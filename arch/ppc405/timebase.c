/* The 405's timebase rate: measured under QEMU -icount
 * (arch/powerpc/timebase.c), else the CPU clock, or none with TmrClk. */
#include <stdio.h>
#include "arch.h"
#include "boot_info.h"
#include "ppc405.h"
#include "../powerpc/timebase.h"

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
		ppc_tb_measure(bi, icount_shift);
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
