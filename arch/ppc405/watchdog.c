/* The watchdog's timer on the 405: the PIT, a decrementer at the timebase
 * rate whose interrupt comes at EVPR + 0x1000 (QEMU 7.2 never starts the
 * FIT, so the FIT cannot serve).  One-shot, loaded with the ticks to the
 * deadline (at most 2^32 - 1) and re-loaded until it; off between probes.
 *
 * U-Boot's 1 ms tick (TCR[ARE] with its reload value) would otherwise take
 * the full exception path a thousand times a second while probes time.
 * Its reload value cannot be read back, so it is measured at entry: two
 * reloads apart, PIT + timebase (read back to back) differ by exactly the
 * period, both counting the same clock.  The PIT then stops until
 * exit=return, where start.S gives back TCR (ARE and PIE) and then loads
 * the period again. */
#include <stdio.h>
#include "arch.h"
#include "boot_info.h"
#include "ppc405.h"

#define TSR_PIS		0x08000000	/* PIT interrupt status: write 1 to clear */
#define TCR_ARE		0x00400000	/* PIT auto-reload */
#define MEASURE_MAX	(1u << 30)	/* ticks to wait for two reloads (3 s at 333 MHz) */

uint32_t ppc405_loader_pit;		/* measured reload value, 0 none: start.S reloads it */
static char text[160];

/* Two reloads of an auto-reloading PIT, interrupts off (PIE on: QEMU 7.2
 * runs the PIT only with it set; with MSR[EE] off nothing is taken).  A
 * reload shows as the count going up.  Values of 2^31 and more are
 * skipped: QEMU may read a just-expired PIT as a small negative count
 * before it reloads, and no loader's tick is that long.  The sums wrap
 * modulo 2^32 alike, so their difference is still the period. */
static uint32_t pit_period(void)
{
	uint32_t v, t, prev, t0, sum[2];
	int seen = 0;

	mtspr(SPR_TCR, mfspr(SPR_TCR) | TCR_PIE);
	prev = mfspr(SPR_PIT);
	__asm__ volatile("mftb %0" : "=r"(t0));
	while (seen < 2) {
		__asm__ volatile("mfspr %0, 987\n\tmftb %1" : "=r"(v), "=r"(t));
		if (t - t0 > MEASURE_MAX)
			return 0;
		if (v >= 0x80000000u)
			continue;
		if (v > prev)
			sum[seen++] = v + t;
		prev = v;
	}
	return sum[1] - sum[0];
}

/* At entry (interrupts off, TCR's interrupt enables already off). */
void ppc405_pit_take(void)
{
	if (!(loader_regs.tcr & TCR_ARE) || !mfspr(SPR_PIT)) {
		snprintf(text, sizeof(text), "pit: the loader left no auto-reloading tick "
			 "(TCR 0x%08lx)", (unsigned long)loader_regs.tcr);
	} else if ((ppc405_loader_pit = pit_period())) {
		snprintf(text, sizeof(text), "pit: the loader's tick, %lu ticks a period (measured), "
			 "stopped while we run, kept for exit=return",
			 (unsigned long)ppc405_loader_pit);
	} else {
		snprintf(text, sizeof(text), "pit: the loader's auto-reload set but no reload within "
			 "2^30 ticks: stopped, not given back");
	}
	mtspr(SPR_TCR, mfspr(SPR_TCR) & ~(TCR_ARE | TCR_PIE));
	mtspr(SPR_PIT, 0);		/* 0 stops it */
	mtspr(SPR_TSR, TSR_PIS);
}

const char *ppc405_pit_text(void)
{
	return boot_info.tick_hz ? text : "pit: no watchdog (the tick rate is unknown)";
}

static void pit_load(uint64_t ticks)
{
	mtspr(SPR_PIT, ticks > 0xffffffffu ? 0xffffffffu : ticks ? (uint32_t)ticks : 1);
}

void arch_watchdog_arm(uint64_t ticks)
{
	mtmsr(mfmsr() & ~MSR_EE);
	if (!boot_info.tick_hz)
		return;		/* no rate: a budget in ms means nothing */
	mtspr(SPR_TCR, (mfspr(SPR_TCR) & ~TCR_ARE) | TCR_PIE);
	mtspr(SPR_TSR, TSR_PIS);	/* nothing pending from before */
	pit_load(ticks);
	mtmsr(mfmsr() | MSR_EE);
}

void arch_watchdog_disarm(void)
{
	mtmsr(mfmsr() & ~MSR_EE);
	mtspr(SPR_TCR, mfspr(SPR_TCR) & ~TCR_PIE);
	mtspr(SPR_PIT, 0);		/* our one-shot: stop it */
	mtspr(SPR_TSR, TSR_PIS);
}

/* exceptions.c, for vector 0x1000: the PIT ran out. */
void ppc405_pit_interrupt(void)
{
	mtspr(SPR_TSR, TSR_PIS);
	pit_load(run_watchdog_tick());	/* does not return past the deadline */
}
