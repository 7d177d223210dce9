/* The core clock's loop for boot/timing.c, shared by arch/ppc405 and
 * arch/e500 (as arch/x86/add_chain.c is by i386 and the sandbox): 16 or 32
 * dependent adds per bdnz iteration, each needing the last one's result,
 * so one a cycle on the 405's single-issue pipeline and on the e500's
 * in-order integer units. */
#include "arch.h"

#define ADD4	"add %0, %0, %2\n\tadd %0, %0, %2\n\tadd %0, %0, %2\n\tadd %0, %0, %2\n\t"

uint64_t arch_add_chain_ticks(uint32_t iters, int wide)
{
	uint32_t x = 1;
	uint64_t t0 = arch_ticks();

	if (wide)
		__asm__ volatile("mtctr %1\n1:\t" ADD4 ADD4 ADD4 ADD4 ADD4 ADD4 ADD4 ADD4 "bdnz 1b"
				 : "+r"(x) : "r"(iters), "r"(3) : "ctr");
	else
		__asm__ volatile("mtctr %1\n1:\t" ADD4 ADD4 ADD4 ADD4 "bdnz 1b"
				 : "+r"(x) : "r"(iters), "r"(3) : "ctr");
	return arch_ticks() - t0;
}
