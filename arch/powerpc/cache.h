/* Code written through the data cache made fetchable, for arch/ppc405 and
 * arch/e500 (32-byte lines: the 405's caches, the e500's L1): every line
 * of [start, end) written back, then dropped from the instruction cache.
 * sync is the e500's msync (the same instruction).  Always inline: in
 * the caller's code, where it was before it was shared. */
#ifndef POWERPC_CACHE_H
#define POWERPC_CACHE_H
#include <stdint.h>

static inline __attribute__((always_inline)) void powerpc_sync_icache(uint32_t start, uint32_t end)
{
	for (uint32_t a = start & ~31u; a < end; a += 32)
		__asm__ volatile("dcbst 0, %0" : : "r"(a) : "memory");
	__asm__ volatile("sync");
	for (uint32_t a = start & ~31u; a < end; a += 32)
		__asm__ volatile("icbi 0, %0" : : "r"(a) : "memory");
	__asm__ volatile("sync; isync");
}

#endif
