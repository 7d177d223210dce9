/* The self-check's access to one word (boot/mmu.c drives the check):
 * "physical" is data translation off, MSR[DR] cleared around it
 * (arch/powerpc/check_word.h). */
#include "ppc405.h"
#include "../powerpc/check_word.h"

void ppc405_check_word(uintptr_t va, uintptr_t pa, uint32_t p1, uint32_t p2, uint32_t got[2],
		       int read_only)
{
	powerpc_check_word(va, pa, p1, p2, got, read_only, 0, MSR_DR);
}
