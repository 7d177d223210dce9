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

/* One reading of both clocks: channel 2's count latched between two TSC
 * reads, the TSC their middle.  A host that preempts us between them (a
 * busy machine under KVM or TCG) shows as their distance, so the tightest
 * of 8 is kept; each is a consistent pair whenever it was taken. */
struct both {
	uint64_t tsc, spread;
	uint16_t count;
};

static struct both read_both(void)
{
	struct both best = { .spread = ~0ull };

	for (int i = 0; i < 8; i++) {
		uint64_t t0 = rdtsc();
		outb(0x43, 0x80);			/* latch channel 2 */
		uint16_t c = inb(0x42);
		c |= (uint16_t)inb(0x42) << 8;
		uint64_t t1 = rdtsc();
		if (t1 - t0 < best.spread)
			best = (struct both){ t0 + (t1 - t0) / 2, t1 - t0, c };
	}
	return best;
}

/* TSC and PIT ticks over a window of at least `window` PIT ticks, from
 * two readings (read_both): a preemption inside the window costs nothing,
 * as both clocks ran on.  0 when no 8254 answers (OUT2 high from the
 * start: port 0x61 is open bus), it never counted within TSC_GIVE_UP, or
 * the count ran out (OUT2 high at the end: a stall past 55 ms). */
static int tsc_over_pit(uint16_t window, uint64_t *tsc, uint32_t *pit)
{
	uint8_t gate = inb(0x61);
	struct both a, b;
	int ok = 0;

	outb(0x61, (gate & ~0x02) | 0x01);	/* speaker off, channel 2 gate on */
	outb(0x43, 0xb0);			/* channel 2, lo/hi, mode 0 */
	outb(0x42, 0xff);
	outb(0x42, 0xff);			/* 65535: 55 ms to terminal count */
	if (!(inb(0x61) & 0x20)) {		/* mode 0: OUT2 low until then */
		a = b = read_both();
		while (b.count <= a.count && a.count - b.count < window && b.tsc - a.tsc < TSC_GIVE_UP)
			b = read_both();
		ok = !(inb(0x61) & 0x20) && b.count <= a.count && a.count - b.count >= window;
	}
	outb(0x61, gate);
	if (ok)
		*tsc = b.tsc - a.tsc, *pit = a.count - b.count;
	return ok;
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
	static char source[128];
	/* 8 ms windows: a reading's spread (microseconds) is well under 0.1 %;
	 * three cost 24 ms of boot. */
	const uint16_t window = 9546;
	uint64_t hz[3], tsc[3];
	uint32_t pit[3];
	int runs = 0;

	(void)icount_shift;	/* the PIT is a reference under TCG, icount or not */
	for (; runs < 3; runs++) {
		if (!tsc_over_pit(window, &tsc[runs], &pit[runs]))
			break;		/* one give-up is enough: do not wait 3 times */
		hz[runs] = tsc[runs] * PIT_HZ / pit[runs];
	}
	if (runs < 3) {
		tsc_from_cpuid(bi);
		return;
	}
	int m = hz[0] > hz[1] ? (hz[1] > hz[2] ? 1 : hz[0] > hz[2] ? 2 : 0)
			      : (hz[0] > hz[2] ? 0 : hz[1] > hz[2] ? 2 : 1);	/* the median */
	if (hz[m] > UINT32_MAX) {	/* above 4.29 GHz: boot_info keeps Hz in 32 bits */
		tsc_from_cpuid(bi);
		return;
	}
	bi->tick_hz = (uint32_t)hz[m];
	snprintf(source, sizeof(source), "measured: %llu TSC ticks over %lu PIT ticks, the median "
		 "of 3 (each end a TSC-bracketed latch of the count)", (unsigned long long)tsc[m],
		 (unsigned long)pit[m]);
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
