/* The TSC's rate from CPUID, where PIT channel 2 cannot measure it: leaf
 * 0x15's crystal times its ratio (Intel's definition of the TSC's rate;
 * 0 crystal means not enumerated), else leaf 0x16's base frequency (the
 * invariant TSC runs at it on the Intel parts that have the leaf).  No
 * register access here: selftest/test_i386_boot.py runs it on the host
 * with recorded leaves. */
#include <stdio.h>
#include "i386.h"

uint32_t i386_tsc_hz_from_cpuid(uint32_t max_leaf, const uint32_t l15[4], const uint32_t l16[4],
				char *src, unsigned n)
{
	const char *why = "PIT channel 2's OUT2 was high at the start or did not rise within 2^32 "
			  "TSC ticks (legacy timer gated or absent)";
	uint64_t hz;

	if (max_leaf >= 0x15 && l15[0] && l15[1] && l15[2]) {
		hz = (uint64_t)l15[2] * l15[1] / l15[0];
		if (hz && hz <= 0xffffffffu) {
			snprintf(src, n, "from CPUID 0x15, not measured: crystal %lu Hz x %lu/%lu; %s",
				 (unsigned long)l15[2], (unsigned long)l15[1], (unsigned long)l15[0], why);
			return hz;
		}
	}
	if (max_leaf >= 0x16 && (l16[0] & 0xffff)) {
		snprintf(src, n, "from CPUID 0x16's base frequency (%lu MHz), not measured; %s",
			 (unsigned long)(l16[0] & 0xffff), why);
		return (l16[0] & 0xffff) * 1000000u;
	}
	snprintf(src, n, "unknown: %s, and CPUID gives no TSC frequency; times print as -1", why);
	return 0;
}
