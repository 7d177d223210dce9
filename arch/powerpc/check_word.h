/*
 * The self-check's access to one word (boot/mmu.c drives the check), for
 * arch/ppc405's and arch/e500's selfcheck.c: the same sequence on both,
 * only the MSR that reaches RAM 1:1 ("physically") differs: the arch's MSR
 * with phys_set set and phys_clear cleared (the 405: DR cleared, data
 * translation off; the e500: DS set, address space 1).  Physically: keep
 * the word at pa, write p1; through the mapping: read, write p2;
 * physically: read, put the word back.  read_only: one read each way.
 * Nothing but registers in between, and no interrupt (MSR[EE] off): its
 * handler could use the word.  got[0] = read through va, got[1] = at pa.
 * Needs the arch header's mfmsr, mtmsr and MSR_EE.
 */
#ifndef POWERPC_CHECK_WORD_H
#define POWERPC_CHECK_WORD_H
#include <stdint.h>

static inline void powerpc_check_word(uintptr_t va, uintptr_t pa, uint32_t p1, uint32_t p2,
				      uint32_t got[2], int read_only, uint32_t phys_set,
				      uint32_t phys_clear)
{
	uint32_t saved = mfmsr(), msr = saved & ~MSR_EE, real = (msr | phys_set) & ~phys_clear;
	uint32_t orig, g1, g2;

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

#endif
