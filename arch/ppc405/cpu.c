/* Naming the CPU, and stopping it. */
#include <stdio.h>
#include "arch.h"
#include "mem.h"
#include "ppc405.h"
#include "report.h"

extern char __free_ram_start[];
static char probe_mem_note[128];

const char arch_name[] = "ppc405";

static const char *pvr_name(uint32_t pvr)
{
	switch (pvr) {
	case 0x40110000: return "405GP rev A";
	case 0x40110040: return "405GP rev B";
	case 0x40110082: return "405GP rev C";
	case 0x401100c4: return "405GP rev D";
	case 0x40110145: return "405GP rev E (or 405CR rev C: the same PVR)";
	case 0x40110041: return "405CR rev A";
	case 0x401100c5: return "405CR rev B";
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
	report_diag("tlb: 64 entries, software loaded, all written invalid with TID 0 at start-up; "
		    "victim policy: %s", ppc405_tlbrepl_name());
	report_diag("%s", ppc405_cache_text());
	report_diag("%s", ppc405_ccr0_text());
	report_diag("%s", ppc405_tb_text());
	report_diag("interrupts: MSR[EE,CE,DE] off at entry (the loader's MSR 0x%08lx), TCR 0x%08lx "
		    "(the loader's 0x%08lx: PIT/FIT/watchdog interrupts off until exit=return)",
		    (unsigned long)loader_regs.msr, (unsigned long)mfspr(SPR_TCR),
		    (unsigned long)loader_regs.tcr);
	report_diag("%s", ppc405_uic_text());
	report_diag("%s", ppc405_pit_text());
	report_diag("probe memory: %#lx-%#lx (%s), then page tables to %#lx",
		    (unsigned long)mem_probe_start(), (unsigned long)mem_probe_end(), probe_mem_note,
		    (unsigned long)mem_ram_end());
}

/* U-Boot relocates itself to the top of RAM and keeps its stack just
 * below; 'go' and bootm leave r1 there.  Probes get what lies below that
 * stack less 1 MiB for its own use, as the PC's go path does.  QEMU's
 * -kernel leaves r1 in SRAM (0xfff7fff8), outside RAM: nothing reserved. */
void ppc405_set_probe_mem(uint64_t ram_bytes)
{
	uint32_t sp = loader_regs.r1;

	uint64_t end = ram_bytes;

	if (sp < ram_bytes && sp >= (2u << 20)) {
		uint32_t below = (sp - (1u << 20)) & ~0xfffffu;
		if (below < end)
			end = below;
		snprintf(probe_mem_note, sizeof(probe_mem_note),
			 "below the loader's stack at %#lx less 1 MiB: its relocated copy lies above",
			 (unsigned long)sp);
	} else {
		snprintf(probe_mem_note, sizeof(probe_mem_note),
			 "to the end of RAM: the loader's stack at %#lx is outside RAM", (unsigned long)sp);
	}
	mem_set_free_ram((uintptr_t)__free_ram_start, end);
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
