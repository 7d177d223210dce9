/* The MMU interface: what probes in tests/ and the run loop use.  It acts
 * on the mode entered last (boot/mmu.c keeps it; each arch/ implements
 * struct mmu_ops, include/mmu_arch.h).  As littlekernel's arch_mmu_*:
 * map, unmap, protect, query, flush; plus address spaces and a description
 * of the TLB, so that a probe decides from what the hardware does, never
 * from a mode's name. */
#ifndef MMU_H
#define MMU_H
#include <stdint.h>
#include <stddef.h>

/* Attributes for map/protect and from query. */
#define MMU_READ	0x01
#define MMU_WRITE	0x02
#define MMU_EXEC	0x04
#define MMU_UNCACHED	0x08
#define MMU_GUARDED	0x10
#define MMU_GLOBAL	0x20	/* i386 PGE; the 405 ignores it */
#define MMU_USER	0x40	/* reachable from user mode (include/proc.h); else kernel only */

struct mmu_mode;		/* a way of translating: "real", "pae2m", ... */
struct mmu_space;		/* an address space of the current mode */

int mmu_translated(const struct mmu_mode *m);	/* 0 for real/flat */

/* Enter: the default mapping (all RAM 1:1), a full flush, translation on,
 * then the self-check.  0, or -1 after printing why.  leave: translation off. */
int mmu_enter(const struct mmu_mode *m);
void mmu_leave(void);

/* Whole 4K pages; 0 or -1.  They change the current space. */
int mmu_map(uintptr_t va, uintptr_t pa, size_t len, unsigned attr);
int mmu_unmap(uintptr_t va, size_t len);
int mmu_protect(uintptr_t va, size_t len, unsigned attr);
/* What va maps to: 0 with *pa and *attr (MMU_*), -1 where unmapped. */
int mmu_query(uintptr_t va, uintptr_t *pa, unsigned *attr);
void mmu_flush_all(void);

/* Address spaces: the kernel part (everything but the window below) is
 * shared; a space's own pages lie in [MMU_SPACE_BASE, +MMU_SPACE_SIZE).
 * create() gives a space with an empty window; switch(0) goes back to the
 * kernel space.  MMU_SPACE_FLUSH: no tag, every switch flushes the TLB
 * (where the TLB has tags: the 405's PID). */
#define MMU_SPACE_BASE	0xC0000000u
#define MMU_SPACE_SIZE	(16u << 20)	/* 16 MiB aligned: the miss handlers test EA >> 24 */
#define MMU_SPACE_FLUSH	0x1
struct mmu_space *mmu_space_create(unsigned flags);	/* 0 after printing why */
int mmu_space_switch(struct mmu_space *s);
void mmu_space_destroy(struct mmu_space *s);

/* The TLB as the current mode uses it. */
enum mmu_refill { MMU_REFILL_NONE, MMU_REFILL_SOFTWARE, MMU_REFILL_HARDWARE };
/* A space switch: UNTAGGED reloads the tables and flushes the TLB's
 * non-global entries (i386 CR3); TAGGED switches a tag, no flush (the
 * 405's PID); EMULATED remaps the window through an OS (the sandbox). */
enum mmu_switch { MMU_SWITCH_UNTAGGED, MMU_SWITCH_TAGGED, MMU_SWITCH_EMULATED };
/* Which counters of struct mmu_counters something counts in this mode: a
 * count nothing counts is not a 0, it is absent. */
#define MMU_COUNTS_TLB_MISSES	0x1	/* itlb_misses, dtlb_misses: our miss handler */
#define MMU_COUNTS_FAULTS	0x2	/* page_faults, prot_faults: our fault path */
#define MMU_COUNTS_TLB_WRITES	0x4	/* tlb_writes: our code writes the TLB */
#define MMU_COUNTS_FLUSHES	0x8	/* flushes: our code flushes */
#define MMU_COUNTS_KERNEL_MISSES 0x10	/* kernel_*tlb_misses: our miss handler tells kernel pages */
struct mmu_tlb_info {
	enum mmu_refill refill;		/* SOFTWARE: every miss counted by our handler */
	unsigned entries;		/* data TLB entries, 0 unknown */
	unsigned ways;			/* >1: set-associative (the e500's TLB0); 0 fully */
	unsigned pinned;		/* of them held by pinned entries ... */
	uintptr_t pinned_end;		/* ... mapping [0, pinned_end) */
	uint32_t page_sizes;		/* bit n: 2^n-byte pages in the default mapping */
	int miss_path;			/* miss fast path, vector to return, instructions; -1 */
	enum mmu_switch space_switch;	/* what mmu_space_switch() does (below) */
	unsigned counts;		/* MMU_COUNTS_*: which mmu_count fields are counted */
	/* SOFTWARE only: one load per 4K page over `pages` pages from
	 * `base`, registers only: `warm` passes, then one whose misses are
	 * counted and returned, *ticks its time; loop_instructions per page
	 * besides the misses.  Nothing else touches memory in between. */
	uint32_t (*walk)(uintptr_t base, uint32_t pages, uint32_t warm, uint32_t *ticks);
	unsigned walk_loop_instructions;
};
const struct mmu_tlb_info *mmu_tlb(void);

/* Counted by the arch (405: the miss handlers), read by the run loop. */
struct mmu_counters {
	uint32_t itlb_misses, dtlb_misses;
	uint32_t page_faults, prot_faults;
	uint32_t tlb_writes, flushes;
	/* Of the misses, those on kernel pages: any address outside the user
	 * window [MMU_SPACE_BASE, +MMU_SPACE_SIZE) (the image, its stacks,
	 * tables and heap), what pinned and large-page modes keep out of the
	 * entries user pages compete for. */
	uint32_t kernel_itlb_misses, kernel_dtlb_misses;
};
extern struct mmu_counters mmu_count;

/* A probe's fault hook: MMU_FAULT_RETRY when it handled the fault (mapped
 * or unprotected the page), MMU_FAULT_SKIP to step past the access (only
 * mmu_probe_load's: its load then returns 0), 0 to let it be an unexpected
 * exception. */
#define MMU_FAULT_RETRY	1
#define MMU_FAULT_SKIP	2
typedef int (*mmu_fault_hook)(uintptr_t addr, int write, int protection);
void mmu_set_fault_hook(mmu_fault_hook hook);
uint32_t mmu_probe_load(uintptr_t addr);	/* one load; arch assembly, its PC known */

#endif
