/* Between arch/i386's MMU files: the current format's geometry and
 * entries, for the mode switching (mmu.c) and the page-table editing
 * (pagetable.c) alike. */
#ifndef I386_PAGETABLE_H
#define I386_PAGETABLE_H
#include <stddef.h>
#include <stdint.h>
#include "i386.h"
#include "mmu_arch.h"

#define TABLE_LINK	(PTE_P | PTE_RW | PTE_US)	/* non-leaf: let the leaf decide */
#define PAGE		4096u

#define cur i386_cur			/* the active format; 0 while flat */
extern uintptr_t i386_root;		/* the current space's CR3 */
extern int i386_nx_on;			/* EFER.NXE: MMU_EXEC clear means NX */

static inline unsigned large_shift(void) { return cur->pae ? 21 : 22; }
static inline uint32_t large_size(void) { return 1u << large_shift(); }
static inline unsigned dir_index(uintptr_t va) { return cur->pae ? (va >> 21) & 511 : va >> 22; }
static inline unsigned tab_index(uintptr_t va) { return cur->pae ? (va >> 12) & 511 : (va >> 12) & 1023; }
static inline unsigned entries(void) { return cur->pae ? 512 : 1024; }
static inline uint32_t frame(uint64_t e) { return (uint32_t)e & 0xfffff000u; }
static inline uint32_t large_frame(uint64_t e) { return (uint32_t)e & ~(large_size() - 1); }

static inline uint64_t get(uintptr_t table, unsigned i)
{
	return cur->pae ? ((volatile uint64_t *)table)[i] : ((volatile uint32_t *)table)[i];
}

static inline void set(uintptr_t table, unsigned i, uint64_t v)
{
	if (cur->pae) {
		/* Two 32-bit stores: clear P first, write the top, then the bottom. */
		volatile uint32_t *p = (volatile uint32_t *)(table + 8 * i);
		p[0] = 0;
		p[1] = v >> 32;
		p[0] = (uint32_t)v;
	} else {
		((volatile uint32_t *)table)[i] = (uint32_t)v;
	}
}

static inline int paging_on(void) { return (read_cr0() & CR0_PG) != 0; }

static inline uintptr_t alloc_table(void) { return mmu_table_alloc(); }

/* pagetable.c: struct mmu_ops' map, unmap, protect and query. */
int i386_map(uintptr_t va, uintptr_t pa, size_t len, unsigned attr);
int i386_unmap(uintptr_t va, size_t len);
int i386_protect(uintptr_t va, size_t len, unsigned attr);
int i386_query(uintptr_t va, uintptr_t *pa, unsigned *attr);

#endif
