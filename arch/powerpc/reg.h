/* Special-purpose registers and the MSR from C, for arch/ppc405 and
 * arch/e500 (included by ppc405.h and e500.h): the same instructions on
 * both.  mfspr/mtspr take the SPR number as a constant.  A header that
 * defined mfspr first keeps its own (the 405's clocks.c test shim). */
#ifndef POWERPC_REG_H
#define POWERPC_REG_H
#include <stdint.h>

#ifndef mfspr
#define mfspr(n) ({ uint32_t v_; __asm__ volatile("mfspr %0, %1" : "=r"(v_) : "i"(n)); v_; })
#define mtspr(n, v) __asm__ volatile("mtspr %0, %1" : : "i"(n), "r"((uint32_t)(v)) : "memory")
#endif

static inline uint32_t mfmsr(void)
{
	uint32_t v;
	__asm__ volatile("mfmsr %0" : "=r"(v));
	return v;
}

/* isync: what follows runs with the new MSR. */
static inline void mtmsr(uint32_t v)
{
	__asm__ volatile("mtmsr %0; isync" : : "r"(v) : "memory");
}

#endif
