/* The self-check's access to one word (boot/mmu.c drives the check):
 * "physical" is address space 1, where TLB1's top entries map RAM 1:1 in
 * every mode (tlb.c): MSR[DS] set around it (arch/powerpc/check_word.h). */
#include "pagetable.h"
#include "../powerpc/check_word.h"

void e500_check_word(uintptr_t va, uintptr_t pa, uint32_t p1, uint32_t p2, uint32_t got[2],
		     int read_only)
{
	powerpc_check_word(va, pa, p1, p2, got, read_only, MSR_DS, 0);
}
