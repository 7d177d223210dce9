/* The watchdog's timer on the 405: the PIT, a decrementer at the timebase
 * rate whose interrupt comes at EVPR + 0x1000.  (QEMU 7.2 never starts the
 * FIT, so the FIT cannot serve.)  Two cases:
 *  - the loader's PIT auto-reloads (U-Boot's 1 ms tick: TCR[ARE] at entry):
 *    its reload value cannot be read back, so it is left alone and only
 *    its interrupt is enabled; every tick checks the deadline;
 *  - otherwise (QEMU -kernel, a loader without a tick): one-shot, loaded
 *    with the ticks to the deadline (at most 2^32 - 1), re-loaded until it.
 * start.S gives the loader its TCR back on exit=return. */
#include "arch.h"
#include "ppc405.h"

#define SPR_PIT		987
#define TSR_PIS		0x08000000	/* PIT interrupt status: write 1 to clear */
#define TCR_ARE		0x00400000	/* PIT auto-reload */

static int loaders_tick(void)
{
	return (loader_regs.tcr & TCR_ARE) != 0;
}

static void pit_load(uint64_t ticks)
{
	if (!loaders_tick())
		mtspr(SPR_PIT, ticks > 0xffffffffu ? 0xffffffffu : ticks ? (uint32_t)ticks : 1);
}

void arch_watchdog_arm(uint64_t ticks)
{
	mtmsr(mfmsr() & ~MSR_EE);
	mtspr(SPR_TCR, (mfspr(SPR_TCR) & ~TCR_ARE) | TCR_PIE | (loader_regs.tcr & TCR_ARE));
	mtspr(SPR_TSR, TSR_PIS);	/* nothing pending from before */
	pit_load(ticks);
	mtmsr(mfmsr() | MSR_EE);
}

void arch_watchdog_disarm(void)
{
	mtmsr(mfmsr() & ~MSR_EE);
	mtspr(SPR_TCR, mfspr(SPR_TCR) & ~TCR_PIE);
	if (!loaders_tick())
		mtspr(SPR_PIT, 0);	/* our one-shot: stop it */
	mtspr(SPR_TSR, TSR_PIS);
}

/* exceptions.c, for vector 0x1000: the PIT ran out. */
void ppc405_pit_interrupt(void)
{
	mtspr(SPR_TSR, TSR_PIS);
	pit_load(run_watchdog_tick());	/* does not return past the deadline */
}
