/* The boards' defaults of what the sandbox defines for real: probe_os()
 * where no OS runs under the probes (none, so the OS-cost figures of
 * include/probe.h's struct probe_os are absent; arch/sandbox/os.c has the
 * real one), and the documented TLB entries. */
#include "probe.h"

__attribute__((weak)) const struct probe_os *probe_os(void)
{
	return 0;
}

/* The boards' documented TLB: mmu_tlb()'s entries, for level 1 and 4 KiB
 * pages (the 405's 64, the e500's TLB0, i386's CPUID L1 dTLB); the sandbox
 * gives CPUID's every level and page size (arch/sandbox/cpu.c). */
__attribute__((weak)) uint32_t probe_tlb_entries(int level, uint32_t page)
{
	return level == 1 && page == 4096 ? mmu_tlb()->entries : 0;
}
