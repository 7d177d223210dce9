/* The self-check's access to one word (boot/mmu.c drives the check):
 * "physical" is address space 1, where TLB1[ESEL_AS1] maps RAM 1:1 in
 * every mode (tlb.c); MSR[DS] toggled around it, registers only in
 * between, interrupts off. */
#include "pagetable.h"

void e500_check_word(uintptr_t va, uintptr_t pa, uint32_t p1, uint32_t p2, uint32_t got[2],
		     int read_only)
{
	uint32_t saved = mfmsr(), msr = saved & ~MSR_EE, real = msr | MSR_DS, orig, g1, g2;

	if (read_only) {
		__asm__ volatile(
			"mtmsr	%[real]\n\tisync\n\t"
			"lwz	%[g2], 0(%[pa])\n\t"		/* physically */
			"mtmsr	%[virt]\n\tisync\n\t"
			"lwz	%[g1], 0(%[va])"		/* through the mapping */
			: [g1] "=&r"(g1), [g2] "=&r"(g2)
			: [real] "r"(real), [virt] "r"(msr), [pa] "b"(pa), [va] "b"(va)
			: "memory");
	} else {
		__asm__ volatile(
			"mtmsr	%[real]\n\tisync\n\t"
			"lwz	%[orig], 0(%[pa])\n\t"		/* keep the word */
			"stw	%[p1], 0(%[pa])\n\t"		/* pattern 1, physically */
			"mtmsr	%[virt]\n\tisync\n\t"
			"lwz	%[g1], 0(%[va])\n\t"		/* through the mapping */
			"stw	%[p2], 0(%[va])\n\t"		/* pattern 2, virtually */
			"mtmsr	%[real]\n\tisync\n\t"
			"lwz	%[g2], 0(%[pa])\n\t"		/* physically again */
			"stw	%[orig], 0(%[pa])\n\t"		/* put the word back */
			"mtmsr	%[virt]\n\tisync"
			: [orig] "=&r"(orig), [g1] "=&r"(g1), [g2] "=&r"(g2)
			: [real] "r"(real), [virt] "r"(msr), [pa] "b"(pa), [va] "b"(va),
			  [p1] "r"(p1), [p2] "r"(p2)
			: "memory");
	}
	mtmsr(saved);
	got[0] = g1, got[1] = g2;
}
