/* The core clock's loop for boot/timing.c, shared by arch/i386 and
 * arch/sandbox (the same instructions in 32 and 64-bit code): 16 or 32
 * dependent adds an iteration, each needing the last one's result, so one
 * a cycle on every x86 since the 486. */
#include "arch.h"

#define ADD4 "addl %0, %0\n\taddl %0, %0\n\taddl %0, %0\n\taddl %0, %0\n\t"

uint64_t arch_add_chain_ticks(uint32_t iters, int wide)
{
	uint32_t x = 1, n = iters;
	uint64_t t0 = arch_ticks();

	if (wide)
		__asm__ volatile("1:\t" ADD4 ADD4 ADD4 ADD4 ADD4 ADD4 ADD4 ADD4 "decl %1\n\tjnz 1b"
				 : "+r"(x), "+r"(n));
	else
		__asm__ volatile("1:\t" ADD4 ADD4 ADD4 ADD4 "decl %1\n\tjnz 1b"
				 : "+r"(x), "+r"(n));
	return arch_ticks() - t0;
}
