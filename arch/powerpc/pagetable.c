/* What both PowerPCs do with their page table (pte.h): PTE slots and
 * tables, and entries set and changed a 4K page at a time (large pages
 * demoted first), under each arch's names and bits (its pagetable.h). */
#include <stdint.h>
#include "mmu_arch.h"
#include "pagetable.h"

/* Every unmapped 4 MiB's table: all zero. */
uint32_t PT_EMPTY[1024] __attribute__((aligned(4096)));

uint32_t *ppc_pte_slot(uint32_t va, int create)
{
	uint32_t *dir = &PT_DIR[va >> 22];

	if (LEAF(*dir))
		return 0;
	if (TABLE(*dir) == PT_EMPTY) {
		uint32_t *t = create ? (uint32_t *)mmu_table_alloc() : 0;
		if (!t)
			return 0;
		*dir = (uint32_t)t | (*dir & 0xfffu);	/* the 405's DIR_PRIVATE stays */
		mmu_window_adopt(va, 22, (uintptr_t)t);
	}
	return TABLE(*dir) + ((va >> 12) & 1023);
}

uint32_t ppc_pt_entry(uint32_t va)
{
	uint32_t dir = PT_DIR[va >> 22], *p = ppc_pte_slot(va, 0);

	return LEAF(dir) ? dir : p ? *p : 0;
}

/* Each 4K page of [va, va+len): demote what covers it, then set its PTE
 * (unmap: attr < 0; protect: keep the frame, must be mapped). */
static int change(uintptr_t va, uintptr_t pa, size_t len, int attr, int keep_frame)
{
	int create = attr >= 0 && !keep_frame;

	if ((va | pa | len) & (PAGE - 1))
		return -1;
	if (pt_may_change(va, len, attr) < 0)
		return -1;
	for (size_t off = 0; off < len; off += PAGE) {
		uint32_t *p = ppc_pte_slot(va + off, create);

		if (pt_large(PT_DIR[(va + off) >> 22], p)) {
			if (pt_demote(va + off) < 0)
				return -1;
			p = ppc_pte_slot(va + off, create);
		}
		if (attr < 0) {
			if (p)
				*p = 0;
			continue;
		}
		if (!p || (keep_frame && !*p))
			return -1;	/* pool dry, or nothing to protect */
		uint32_t frame = keep_frame ? *p & 0xfffff000u : pa + off;
		*p = frame | pt_bits(attr);
	}
	pt_flush(va, len);
	return 0;
}

int ppc_pt_map(uintptr_t va, uintptr_t pa, size_t len, unsigned attr)
{
	return change(va, pa, len, attr, 0);
}
int ppc_pt_unmap(uintptr_t va, size_t len) { return change(va, 0, len, -1, 0); }
int ppc_pt_protect(uintptr_t va, size_t len, unsigned attr) { return change(va, 0, len, attr, 1); }

/* The self-check only reads these: the state block and the directory (a
 * page each), and the shared empty table. */
int mmu_arch_live(uintptr_t a)
{
	return (a >= (uintptr_t)PT_DIR - PAGE && a < (uintptr_t)PT_DIR + PAGE) ||
	       (a >= (uintptr_t)PT_EMPTY && a < (uintptr_t)PT_EMPTY + PAGE);
}

/* Tables for 4K PTEs over RAM, a spare handful (the UART page, the
 * self-check's alias, probes' windows), demotions and the spaces' windows. */
uint32_t mmu_arch_pool_bytes(uintptr_t ram_end)
{
	return ((ram_end >> 22) + 8 + 32 + MMU_MAX_SPACES) * PAGE;
}
