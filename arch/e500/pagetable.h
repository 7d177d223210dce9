/* Between arch/e500's MMU files: the page table (e500.h "A PTE") for the
 * mode code (mmu.c) and the page-table code (pagetable.c). */
#ifndef E500_PAGETABLE_H
#define E500_PAGETABLE_H
#include <stddef.h>
#include <stdint.h>
#include "e500.h"
#include "mmu.h"
#include "../powerpc/pte.h"

#define PAGE		4096u
#define LEAF(e)		((e) & PTE_LEAF)
#define LEAF_TSIZE(e)	(((e) >> PTE_TSIZE_SHIFT) & 0xf)
#define TABLE(e)	((uint32_t *)((e) & ~0xfffu))
static inline uint32_t tsize_bytes(unsigned s) { return 1024u << (2 * s); }

/* MMU_* attributes as a PTE's low bits (supervisor rights; MMU_USER adds
 * the user ones; WIMGE: I and G as asked, M never: one core). */
static inline uint32_t e500_pte_bits(unsigned attr)
{
	uint32_t b = PTE_SR | (attr & MMU_USER ? PTE_UR : 0);
	if (attr & MMU_WRITE) b |= PTE_SW | (attr & MMU_USER ? PTE_UW : 0);
	if (attr & MMU_EXEC) b |= PTE_SX | (attr & MMU_USER ? PTE_UX : 0);
	if (attr & MMU_UNCACHED) b |= MAS2_I << PTE_WIMGE_SHIFT;
	if (attr & MMU_GUARDED) b |= MAS2_G << PTE_WIMGE_SHIFT;
	return b;
}

/* A pinned TLB1 entry (mmu.c): 1:1 from base. */
enum {
	E500_PIN_MODE,		/* mode pinned's 16 MB: dropped on a change under it */
	E500_PIN_LEAF,		/* largepte's page holding the vectors: dropped likewise */
	E500_PIN_VECTORS,	/* the vectors' own 4 KiB: never dropped */
};
struct e500_pin {
	uint32_t base, size;
	int kind;
};
int e500_pin_covering(uint32_t a, uint32_t len);	/* its index, -1 none */
int e500_pin_drop(int i);				/* -1 when it may not go */
int e500_leaf_pinned(uint32_t a, uint32_t size);	/* a leaf that is that pin */
#define e500_demote pt_demote		/* the large page holding va into 4K PTEs */

extern uint32_t e500_pgd[1024], e500_empty_table[1024];
int e500_query(uintptr_t va, uintptr_t *pa, unsigned *attr);
/* The default mapping: RAM 1:1, in leaves of TSIZE lp where a whole one
 * fits and overlaps no pin (lp 0: 4K PTEs only).  Tables it took. */
int e500_build_default(unsigned lp, unsigned *tables);
void e500_tlb_invalidate(uint32_t va, uint32_t len);
void e500_explain(uintptr_t va);
void e500_check_word(uintptr_t va, uintptr_t pa, uint32_t p1, uint32_t p2, uint32_t got[2],
		     int read_only);

/* arch/powerpc/pagetable.c: the all-zero table, struct mmu_ops' map, unmap
 * and protect (pte.h), over these. */
#define PT_DIR		e500_pgd
#define PT_EMPTY	e500_empty_table
#define e500_map	ppc_pt_map
#define e500_unmap	ppc_pt_unmap
#define e500_protect	ppc_pt_protect

/* A 4K PTE's bits, and the TLB after a change. */
static inline uint32_t pt_bits(unsigned attr) { return e500_pte_bits(attr); }
static inline void pt_flush(uint32_t va, uint32_t len) { e500_tlb_invalidate(va, len); }
/* Whether a page lies in a large one: a leaf (tables hold 4K PTEs only). */
static inline int pt_large(uint32_t dir, const uint32_t *p) { return LEAF(dir); }

#endif
