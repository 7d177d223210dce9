/* The TSC's rate, calibrated against the PIT (1.193182 MHz). */
#include <stdio.h>
#include "arch.h"
#include "i386.h"

#define PIT_HZ		1193182u

/* Count TSC ticks while PIT channel 2 counts down `pit_ticks`. */
static uint64_t tsc_over_pit(uint16_t pit_ticks)
{
	uint8_t gate = inb(0x61);
	uint64_t t0, t1;
	unsigned spins = 0;

	outb(0x61, (gate & ~0x02) | 0x01);	/* speaker off, channel 2 gate on */
	outb(0x43, 0xb0);			/* channel 2, lo/hi, mode 0 */
	outb(0x42, pit_ticks & 0xff);
	outb(0x42, pit_ticks >> 8);
	t0 = rdtsc();
	while (!(inb(0x61) & 0x20) && ++spins < 100000000)	/* OUT2 goes high at 0 */
		;
	t1 = rdtsc();
	outb(0x61, gate);
	return spins >= 100000000 ? 0 : t1 - t0;
}

void arch_calibrate_ticks(struct boot_info *bi, int icount_shift)
{
	static char source[96];
	const uint16_t pit_ticks = 11932;	/* 10 ms */
	uint64_t best = ~0ull;

	(void)icount_shift;	/* the PIT is a reference under TCG, icount or not */
	for (int i = 0; i < 3; i++) {
		uint64_t t = tsc_over_pit(pit_ticks);
		if (t && t < best)
			best = t;
	}
	if (best == ~0ull) {
		bi->tick_hz = 0;
		bi->tick_hz_source = "PIT channel 2 never counted down: no TSC rate";
		return;
	}
	bi->tick_hz = best * PIT_HZ / pit_ticks;
	snprintf(source, sizeof(source), "measured: %llu TSC ticks over %u PIT ticks, best of 3",
		 (unsigned long long)best, pit_ticks);
	bi->tick_hz_source = source;
}
