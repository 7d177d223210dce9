/* The MMU-mode interface: what each arch/ implements and the only view of
 * the MMU that probes in tests/ get. */
#ifndef MMU_H
#define MMU_H
#include <stdint.h>
#include <stddef.h>

/* Attributes for map/protect. */
#define MMU_READ	0x01
#define MMU_WRITE	0x02
#define MMU_EXEC	0x04
#define MMU_UNCACHED	0x08
#define MMU_GUARDED	0x10
#define MMU_GLOBAL	0x20	/* i386 PGE; the 405 ignores it */

struct mmu_counters {
	uint32_t itlb_misses, dtlb_misses;	/* 405: counted by the miss handlers */
	uint32_t page_faults, prot_faults;
	uint32_t tlb_writes, flushes;
};

struct mmu_mode {
	const char *name;
	const char *what;			/* one line for banners and errors */
	int translated;				/* 0 for real/flat */
	int (*enter)(void);			/* 0, or -1 after printing why */
	void (*leave)(void);
	int (*map)(uintptr_t va, uintptr_t pa, size_t len, unsigned attr);
	int (*unmap)(uintptr_t va, size_t len);
	int (*protect)(uintptr_t va, size_t len, unsigned attr);
	void (*flush_all)(void);
	void (*flush_page)(uintptr_t va);
	uint32_t page_sizes;			/* bit n set: 2^n-byte pages used */
};

extern const struct mmu_mode *const mmu_modes[];	/* arch's modes, 0-terminated */
extern struct mmu_counters mmu_count;

/* Optional, for architectures whose TLB misses are counted in software
 * (the 405); tests/tlbwalk.c has weak fallbacks that say "not counted".
 * mmu_walk_pass: one load per 4K page over `pages` pages from `base`,
 * registers only; returns the DTLB misses counted during it (0xffffffff:
 * not counted here) and the pass's ticks.  mmu_dtlb_miss_path_length: the
 * DTLB miss fast path in instructions, vector to return, or -1. */
uint32_t mmu_walk_pass(uintptr_t base, uint32_t pages, uint32_t *ticks);
int mmu_dtlb_miss_path_length(void);

/* Called by the arch's fault handlers (data/instruction storage, #PF) with
 * the faulting address; 0 means nobody expected it: dump and abort. */
int mmu_call_fault_hook(uintptr_t addr, int write, int protection);

/* A probe's fault hook: return 1 when it handled the fault (mapped or
 * unprotected the page), 0 to let it be an unexpected exception. */
typedef int (*mmu_fault_hook)(uintptr_t addr, int write, int protection);
void mmu_set_fault_hook(mmu_fault_hook hook);

#endif
