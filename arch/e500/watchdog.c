/* The watchdog's timer on the e500: the decrementer, counting down at the
 * timebase rate, its interrupt at IVOR10.  One-shot (TCR[ARE] off), loaded
 * with the ticks to the deadline (at most 2^32 - 1) and re-loaded until
 * it; off between probes. */
#include <stdio.h>
#include "arch.h"
#include "boot_info.h"
#include "e500.h"

static void dec_load(uint64_t ticks)
{
	mtspr(SPR_DEC, ticks > 0xffffffffu ? 0xffffffffu : ticks ? (uint32_t)ticks : 1);
}

void arch_watchdog_arm(uint64_t ticks)
{
	mtmsr(mfmsr() & ~MSR_EE);
	e500_core_watchdog_service();
	if (!boot_info.tick_hz)
		return;		/* no rate: a budget in ms means nothing */
	mtspr(SPR_TCR, (mfspr(SPR_TCR) & ~TCR_ARE) | TCR_DIE);
	mtspr(SPR_TSR, TSR_DIS);	/* nothing pending from before */
	dec_load(ticks);
	mtmsr(mfmsr() | MSR_EE);
}

void arch_watchdog_disarm(void)
{
	mtmsr(mfmsr() & ~MSR_EE);
	mtspr(SPR_TCR, mfspr(SPR_TCR) & ~TCR_DIE);
	mtspr(SPR_DEC, 0);
	mtspr(SPR_TSR, TSR_DIS);
	e500_core_watchdog_service();
}

/* exceptions.c, for IVOR10: the decrementer ran out. */
void e500_dec_interrupt(void)
{
	mtspr(SPR_TSR, TSR_DIS);
	dec_load(run_watchdog_tick());	/* does not return past the deadline */
}

/* The core watchdog (E500CORERM 2.8.1 TCR, 2.8.2 TSR; Book-E's timer
 * facilities): once U-Boot has set TCR[WRC], nothing clears it, and the
 * third time-out with nobody servicing it (TSR[ENW] and TSR[WIS] both
 * set) resets the board.  U-Boot serviced it from its decrementer tick,
 * which start.S stopped.  Here the fixed-interval timer does, at a quarter
 * of the watchdog's period (a timebase bit two lower: WPEXT||WP and
 * FPEXT||FP each name one of TB's 64 bits, 0 the most significant), when
 * MSR[EE] lets it: while probes run; between probes, arming and disarming
 * the run's watchdog service it. */
static int core_watchdog_on;
static char wd_text[200];

void e500_core_watchdog_init(void)
{
	uint32_t tcr = mfspr(SPR_TCR);
	unsigned wp = (tcr >> 30 & 3) | (tcr >> 17 & 0xf) << 2, fp = wp + 2 > 63 ? 63 : wp + 2;

	if (!(tcr & TCR_WRC)) {
		snprintf(wd_text, sizeof(wd_text), "the core watchdog is off (TCR[WRC] 0): nothing to service");
		return;
	}
	core_watchdog_on = 1;
	e500_core_watchdog_service();
	tcr &= ~(TCR_FP | TCR_FPEXT | TCR_WIE);
	mtspr(SPR_TCR, tcr | (fp & 3) << 24 | (fp >> 2) << 13 | TCR_FIE);
	snprintf(wd_text, sizeof(wd_text), "the loader armed the core watchdog (TCR[WRC] %lu, a time-out "
		 "every 2^%u timebase ticks): the fixed-interval timer services it every 2^%u ticks",
		 (unsigned long)(tcr >> 28 & 3), 63 - wp, 63 - fp);
}

void e500_core_watchdog_service(void)
{
	if (core_watchdog_on)
		mtspr(SPR_TSR, TSR_ENW | TSR_WIS | TSR_FIS);
}

const char *e500_core_watchdog_text(void)
{
	return wd_text;
}
