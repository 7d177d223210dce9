/* Between arch/ppc405's MMU files: the page table's entry format, for the
 * TLB and mode code (mmu.c) and the page-table code (pagetable.c). */
#ifndef PPC405_PAGETABLE_H
#define PPC405_PAGETABLE_H
#include <stddef.h>
#include <stdint.h>
#include "mmu.h"
#include "ppc405.h"
#include "../powerpc/pte.h"

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

/* pagetable.c: struct mmu_ops' query, the default mapping in pages of
 * size code s, and the invalidation of what a change covered. */
int ppc405_query(uintptr_t va, uintptr_t *pa, unsigned *attr);
int ppc405_build_default(unsigned s);
void ppc405_tlb_invalidate(uint32_t va, uint32_t len, int pinned_too);

/* arch/powerpc/pagetable.c: the all-zero table, struct mmu_ops' map, unmap
 * and protect (pte.h), over these. */
#define PT_DIR		ppc405_pgd
#define PT_EMPTY	ppc405_empty_table
extern uint32_t ppc405_empty_table[1024];
#define ppc405_map	ppc_pt_map
#define ppc405_unmap	ppc_pt_unmap
#define ppc405_protect	ppc_pt_protect

/* A 4K PTE's bits, and the TLB after a change: pinned entries too (a
 * mapping under a pin changed). */
static inline uint32_t pt_bits(unsigned attr) { return ppc405_lo_bits(attr) | ppc405_zone_4k(attr); }
static inline void pt_flush(uint32_t va, uint32_t len) { ppc405_tlb_invalidate(va, len, 1); }
/* Whether a page lies in a large one (pt_demote's to split): a leaf, or a
 * table's PTE of more than 4K.  p: its slot, 0 under a leaf. */
static inline int pt_large(uint32_t dir, const uint32_t *p)
{
	return LEAF(dir) || (p && *p && SIZE_OF(*p) != SZ_4K);
}

#endif
