/* The TSC's rate, calibrated against the PIT (1.193182 MHz). */
#include <stdio.h>
#include "arch.h"
#include "i386.h"
#include "report.h"

#define PIT_HZ		1193182u

/* The wait for the PIT gives up after this many TSC ticks: about 1 s at
 * 4 GHz, 5 s at 1 GHz, so far above a 5 ms count at any real clock, yet
 * seconds rather than minutes where port 0x61 never shows OUT2 (a legacy
 * timer gated off or absent). */
#define TSC_GIVE_UP	(1ull << 32)

/* Count TSC ticks while PIT channel 2 counts down `pit_ticks`; 0 when it
 * did not count down within TSC_GIVE_UP, or OUT2 was never low. */
static uint64_t tsc_over_pit(uint16_t pit_ticks)
{
	uint8_t gate = inb(0x61);
	uint64_t t0, t1;

	outb(0x61, (gate & ~0x02) | 0x01);	/* speaker off, channel 2 gate on */
	outb(0x43, 0xb0);			/* channel 2, lo/hi, mode 0 */
	outb(0x42, pit_ticks & 0xff);
	outb(0x42, pit_ticks >> 8);
	/* Mode 0 drives OUT2 low from the control word until the count ends:
	 * high already means no 8254 answers (port 0x61 reads as open bus). */
	if (inb(0x61) & 0x20) {
		outb(0x61, gate);
		return 0;
	}
	t0 = t1 = rdtsc();
	while (!(inb(0x61) & 0x20) && t1 - t0 < TSC_GIVE_UP)	/* OUT2 goes high at 0 */
		t1 = rdtsc();
	t1 = rdtsc();
	outb(0x61, gate);
	return t1 - t0 >= TSC_GIVE_UP ? 0 : t1 - t0;
}

/* Where the PIT's gate never opened: the TSC's rate as CPUID gives it
 * (tsc_cpuid.c), said as CPUID's figure, not a measurement. */
static void tsc_from_cpuid(struct boot_info *bi)
{
	static char source[200];
	uint32_t l15[4] = { 0 }, l16[4] = { 0 };

	if (i386_cpu.max_leaf >= 0x15)
		cpuid(0x15, 0, l15);
	if (i386_cpu.max_leaf >= 0x16)
		cpuid(0x16, 0, l16);
	bi->tick_hz = i386_tsc_hz_from_cpuid(i386_cpu.max_leaf, l15, l16, source, sizeof(source));
	bi->tick_hz_source = source;
}

void arch_calibrate_ticks(struct boot_info *bi, int icount_shift)
{
	static char source[96];
	/* 5 ms: one PIT tick of error is 168 ppm; three runs cost 15 ms of boot. */
	const uint16_t pit_ticks = 5966;
	uint64_t best = ~0ull;
	int runs = 0;

	(void)icount_shift;	/* the PIT is a reference under TCG, icount or not */
	for (; runs < 3; runs++) {
		uint64_t t = tsc_over_pit(pit_ticks);
		if (!t)
			break;		/* one give-up is enough: do not wait 3 times */
		if (t < best)
			best = t;
	}
	if (best == ~0ull) {
		tsc_from_cpuid(bi);
		return;
	}
	bi->tick_hz = best * PIT_HZ / pit_ticks;
	snprintf(source, sizeof(source), "measured: %llu TSC ticks over %u PIT ticks, best of %d",
		 (unsigned long long)best, pit_ticks, runs);
	bi->tick_hz_source = source;
}

/* The cross-check: what CPUID says the TSC runs at, next to the PIT's
 * figure.  Leaf 0x15: TSC = crystal * EBX / EAX (crystal Hz in ECX, 0 when
 * not enumerated); leaf 0x16: base frequency in MHz.  Banner lines. */
void i386_describe_tsc(void)
{
	uint32_t r[4], measured = boot_info.tick_hz;
	int said = 0;

	if (i386_cpu.max_leaf >= 0x15) {
		cpuid(0x15, 0, r);
		if (r[0] && r[1] && r[2]) {
			uint64_t hz = (uint64_t)r[2] * r[1] / r[0];
			long long diff = measured ? ((long long)measured - (long long)hz) * 1000000 /
				(long long)hz : 0;
			report_diag("tsc cross-check: CPUID 0x15 says %llu Hz (crystal %lu Hz x %lu/%lu); "
				    "PIT measured %lu Hz (%+lld ppm)", (unsigned long long)hz,
				    (unsigned long)r[2], (unsigned long)r[1], (unsigned long)r[0],
				    (unsigned long)measured, diff);
			said = 1;
		} else if (r[0] && r[1]) {
			report_diag("tsc cross-check: CPUID 0x15 gives the ratio %lu/%lu but no crystal "
				    "frequency", (unsigned long)r[1], (unsigned long)r[0]);
		}
	}
	if (i386_cpu.max_leaf >= 0x16) {
		cpuid(0x16, 0, r);
		if (r[0] & 0xffff) {
			uint64_t hz = (uint64_t)(r[0] & 0xffff) * 1000000;
			long long diff = measured ? ((long long)measured - (long long)hz) * 1000000 /
				(long long)hz : 0;
			report_diag("tsc cross-check: CPUID 0x16 base %lu MHz (max %lu MHz); PIT measured "
				    "%lu Hz (%+lld ppm from base)", (unsigned long)(r[0] & 0xffff),
				    (unsigned long)(r[1] & 0xffff), (unsigned long)measured, diff);
			said = 1;
		}
	}
	if (!said)
		report_diag("tsc cross-check: CPUID has no TSC frequency (max leaf %#lx%s); the PIT's "
			    "figure stands alone", (unsigned long)i386_cpu.max_leaf,
			    i386_cpu.max_leaf >= 0x15 ? ", leaves 0x15/0x16 empty" : "");
}
