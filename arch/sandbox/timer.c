/* The sandbox's timer: the TSC where CPUID says it is invariant, its rate
 * from CPUID 0x15 or measured, else clock_gettime in ns.  Apart from the
 * CPU's description (cpu.c), as i386's timer.c. */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>
#include "sort.h"
#include "arch.h"
#include "sandbox.h"

static int use_tsc;
char sandbox_tsc_note[160];		/* a cross-check for the banner, or "" */

uint64_t arch_ticks(void)
{
	struct timespec ts;

	if (use_tsc)
		return __rdtsc();
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static uint64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* main()'s first act, before we know which clock arch_ticks() will be:
 * both are read, and arch_calibrate_ticks keeps the one it chooses, so
 * that boot time is one clock's difference. */
static uint64_t entry_tsc, entry_ns;

void sandbox_entry_clocks(struct boot_info *bi)
{
	entry_tsc = __rdtsc();
	entry_ns = raw_ns();
	bi->entry_ticks = entry_ns;
}

/* The TSC where CPUID says it is invariant (0x80000007 EDX bit 8: the same
 * rate in every P- and C-state); its rate from CPUID 0x15 where that gives
 * the crystal, else measured against CLOCK_MONOTONIC_RAW (5 x 20 ms, the
 * median).  Otherwise clock_gettime itself, in ns. */
void arch_calibrate_ticks(struct boot_info *bi, int icount_shift)
{
	static char source[200];
	uint32_t r[4] = { 0 };

	(void)icount_shift;
	sandbox_load_calibrate(bi);		/* after cpu= pinned us where we run */
	if (sandbox_max_ext >= 0x80000007)
		sandbox_cpuid(0x80000007, 0, r);
	if (!(r[3] & (1u << 8))) {
		use_tsc = 0;
		bi->entry_ticks = entry_ns;
		bi->tick_hz = 1000000000u;
		bi->tick_hz_source = "clock_gettime(CLOCK_MONOTONIC_RAW) in ns: the TSC is not "
				     "invariant (CPUID 0x80000007 EDX bit 8 clear)";
		return;
	}
	use_tsc = 1;
	bi->entry_ticks = entry_tsc;
	if (sandbox_max_leaf >= 0x15) {
		sandbox_cpuid(0x15, 0, r);
		if (r[0] && r[1] && r[2]) {
			bi->tick_hz = (uint64_t)r[2] * r[1] / r[0];
			snprintf(source, sizeof(source), "invariant TSC; CPUID 0x15: crystal %lu Hz x "
				 "%lu/%lu", (unsigned long)r[2], (unsigned long)r[1], (unsigned long)r[0]);
			bi->tick_hz_source = source;
			return;
		}
	}
	uint64_t hz[5];
	for (int i = 0; i < 5; i++) {
		uint64_t n0 = raw_ns(), t0 = __rdtsc(), n1, t1;
		do
			n1 = raw_ns();
		while (n1 - n0 < 20000000u);
		t1 = __rdtsc();
		hz[i] = (t1 - t0) * 1000000000u / (n1 - n0);
	}
	bi->tick_hz = median_u64(hz, 5);
	snprintf(source, sizeof(source), "invariant TSC (CPUID 0x80000007 EDX bit 8), measured "
		 "against CLOCK_MONOTONIC_RAW: median of 5 x 20 ms, spread %llu Hz",
		 (unsigned long long)(hz[4] - hz[0]));
	bi->tick_hz_source = source;
	if (sandbox_max_leaf >= 0x16) {
		sandbox_cpuid(0x16, 0, r);
		if (r[0] & 0xffff)
			snprintf(sandbox_tsc_note, sizeof(sandbox_tsc_note), "tsc cross-check: CPUID 0x16 base %lu MHz",
				 (unsigned long)(r[0] & 0xffff));
	}
}
