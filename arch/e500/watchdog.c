/* The watchdog's timer on the e500: the decrementer, counting down at the
 * timebase rate, its interrupt at IVOR10.  One-shot (TCR[ARE] off), loaded
 * with the ticks to the deadline (at most 2^32 - 1) and re-loaded until
 * it; off between probes. */
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
}

/* exceptions.c, for IVOR10: the decrementer ran out. */
void e500_dec_interrupt(void)
{
	mtspr(SPR_TSR, TSR_DIS);
	dec_load(run_watchdog_tick());	/* does not return past the deadline */
}
