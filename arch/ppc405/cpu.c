/* Naming the CPU, and stopping it. */
#include "arch.h"
#include "ppc405.h"
#include "report.h"

const char arch_name[] = "ppc405";

static const char *pvr_name(uint32_t pvr)
{
	switch (pvr) {
	case 0x40110000: return "405GP rev A";
	case 0x40110040: return "405GP rev B";
	case 0x40110082: return "405GP rev C";
	case 0x401100c4: return "405GP rev E";
	case 0x51210950: return "405EP";
	}
	switch (pvr >> 16) {
	case 0x4011: return "405GP (unknown revision)";
	case 0x5121: return "405EP (unknown revision)";
	}
	return "not a 405 this image knows";
}

void arch_describe_cpu(void)
{
	uint32_t pvr = mfspr(SPR_PVR);

	report_diag("cpu: PowerPC %s, PVR %#010lx", pvr_name(pvr), (unsigned long)pvr);
	report_diag("tlb: 64 entries, software loaded; victim policy: %s", ppc405_tlbrepl_name());
}

/* Nothing run-wide beyond the banner: the TLB's figures are its modes'. */
void arch_report_measurements(void)
{
}

void arch_halt(void)
{
	mtmsr(mfmsr() & ~(MSR_EE | MSR_CE));
	for (;;)
		__asm__ volatile("" ::: "memory");
}
