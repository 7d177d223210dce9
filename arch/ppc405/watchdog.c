/* The watchdog's timer on the 405: the PIT, a decrementer at the timebase
 * rate, one-shot (no auto-reload), its interrupt at EVPR + 0x1000. */
#include "arch.h"
#include "ppc405.h"

#define SPR_PIT		987
#define TSR_PIS		0x08000000	/* PIT interrupt status: write 1 to clear */
#define TCR_ARE		0x00400000	/* PIT auto-reload */

static void pit_load(uint64_t ticks)
{
	mtspr(SPR_PIT, ticks > 0xffffffffu ? 0xffffffffu : ticks ? (uint32_t)ticks : 1);
}

void arch_watchdog_arm(uint64_t ticks)
{
	mtmsr(mfmsr() & ~MSR_EE);
	mtspr(SPR_TCR, (mfspr(SPR_TCR) & ~TCR_ARE) | TCR_PIE);
	mtspr(SPR_TSR, TSR_PIS);	/* nothing pending from before */
	pit_load(ticks);
	mtmsr(mfmsr() | MSR_EE);
}

void arch_watchdog_disarm(void)
{
	mtmsr(mfmsr() & ~MSR_EE);
	mtspr(SPR_TCR, mfspr(SPR_TCR) & ~TCR_PIE);
	mtspr(SPR_PIT, 0);		/* stop the decrementer */
	mtspr(SPR_TSR, TSR_PIS);
}

/* exceptions.c, for vector 0x1000: the PIT ran out. */
void ppc405_pit_interrupt(void)
{
	mtspr(SPR_TSR, TSR_PIS);
	pit_load(run_watchdog_tick());	/* does not return past the deadline */
}
