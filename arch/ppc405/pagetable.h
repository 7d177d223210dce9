/* Between arch/ppc405's MMU files: the page table's entry format, for the
 * TLB and mode code (mmu.c) and the page-table code (pagetable.c). */
#ifndef PPC405_PAGETABLE_H
#define PPC405_PAGETABLE_H
#include <stddef.h>
#include <stdint.h>
#include "mmu.h"
#include "ppc405.h"

#define PAGE		4096u
#define ZONE_OF_SIZE(s)	((2u * (s) + 1) << 4)	/* zone field carries SIZE */
/* SIZE code from an entry; the user zone's 0 is a 4K page (vectors.S). */
#define SIZE_OF(e)	((((e) >> 5) & 7) | !(((e) >> 5) & 7))
#define USER_PTE(e)	(((e) & 0xf0u) == ZONE_USER)
#define LEAF(e)		((e) & 0x10u)			/* odd zone: a mapping */
#define TABLE(e)	((uint32_t *)((e) & ~0xfffu))	/* a directory word's table */
#define SZ_4K		1
#define SZ_4M		6
#define SZ_16M		7

static inline unsigned size_bytes(unsigned s) { return 1024u << (2 * s); }

/* MMU_* attributes as a TLBLO word (a PTE's low bits). */
static inline uint32_t ppc405_lo_bits(unsigned attr)
{
	uint32_t lo = TLBLO_M;		/* M: no effect on the 405, keeps PTEs non-zero */
	if (attr & MMU_WRITE) lo |= TLBLO_WR;
	if (attr & MMU_EXEC) lo |= TLBLO_EX;
	if (attr & MMU_UNCACHED) lo |= TLBLO_I;
	if (attr & MMU_GUARDED) lo |= TLBLO_G;
	return lo;
}

/* The zone field of a 4K PTE: the user zone for MMU_USER pages (in the
 * window only), the kernel's 4K zone for the rest. */
static inline uint32_t ppc405_zone_4k(unsigned attr)
{
	return attr & MMU_USER ? ZONE_USER : ZONE_OF_SIZE(SZ_4K);
}

/* mmu.c: the mode's pinned top slots, never invalidated unless asked. */
extern unsigned ppc405_active_pins;

/* pagetable.c: the shared all-zero table, struct mmu_ops' map, unmap,
 * protect and query, the default mapping in pages of size code s, and
 * the invalidation of what a change covered. */
extern uint32_t ppc405_empty_table[1024];
int ppc405_map(uintptr_t va, uintptr_t pa, size_t len, unsigned attr);
int ppc405_unmap(uintptr_t va, size_t len);
int ppc405_protect(uintptr_t va, size_t len, unsigned attr);
int ppc405_query(uintptr_t va, uintptr_t *pa, unsigned *attr);
int ppc405_build_default(unsigned s);
void ppc405_tlb_invalidate(uint32_t va, uint32_t len, int pinned_too);

#endif
