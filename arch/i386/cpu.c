/* TSC, naming the CPU, stopping it. */
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "i386.h"
#include "report.h"

const char arch_name[] = "i386";

uint64_t arch_ticks(void)
{
	return rdtsc();
}

void arch_describe_cpu(void)
{
	uint32_t r[4], sig[4];
	char vendor[13];

	cpuid(0, 0, r);
	memcpy(vendor, &r[1], 4);
	memcpy(vendor + 4, &r[3], 4);
	memcpy(vendor + 8, &r[2], 4);
	vendor[12] = 0;
	cpuid(1, 0, sig);
	unsigned family = (sig[0] >> 8) & 0xf, model = (sig[0] >> 4) & 0xf;
	if (family == 0xf)
		family += (sig[0] >> 20) & 0xff;
	if (family >= 6)
		model |= ((sig[0] >> 16) & 0xf) << 4;
	report_diag("cpu: %s family %u model %u stepping %lu (CPUID 1 EAX %#010lx)", vendor,
		    family, model, (unsigned long)(sig[0] & 0xf), (unsigned long)sig[0]);
}

void arch_halt(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}
