/* The e500's page table, beside what both PowerPCs do with it
 * (arch/powerpc/pagetable.c): which changes may go ahead (pins), demotion,
 * the TLB entries a change covered invalidated (tlbivax: TLB0 and the
 * unpinned TLB1 entries, any TID), the default mapping, query and what maps
 * an address.  Apart from mmu.c, which owns the TLB's modes, pins, spaces
 * and faults. */
#include <stdint.h>
#include "boot_info.h"
#include "mmu_arch.h"
#include "pagetable.h"
#include "report.h"

/* tlbivax: every entry translating ea, whatever its TID; EA bit 0x8 picks
 * TLB1 (IPROT entries, the pins, stay). */
void e500_tlb_invalidate(uint32_t va, uint32_t len)
{
	__asm__ volatile("msync" ::: "memory");	/* page-table stores first */
	for (uint32_t off = 0; off < len; off += PAGE) {
		uint32_t ea = (va + off) & ~(PAGE - 1);
		__asm__ volatile("tlbivax 0, %0; tlbivax 0, %1" : : "r"(ea), "r"(ea | 8) : "memory");
	}
	__asm__ volatile("tlbsync; msync; isync" ::: "memory");
	mmu_count.flushes++;
}

/* Turn the large page holding va into 4K PTEs with the same rights. */
int pt_demote(uint32_t va)
{
	uint32_t e = e500_pgd[va >> 22];

	if (!LEAF(e))
		return 0;
	uint32_t sz = tsize_bytes(LEAF_TSIZE(e)), base = va & ~(sz - 1);
	for (uint32_t r = base; r - base < sz; r += 4u << 20) {
		uint32_t *t = (uint32_t *)mmu_table_alloc();
		if (!t)
			return -1;
		for (unsigned i = 0; i < 1024; i++)
			t[i] = (r + i * PAGE) | (e & 0x7ff & ~PTE_LEAF);
		e500_pgd[r >> 22] = (uint32_t)t;
	}
	e500_tlb_invalidate(base, PAGE);	/* the leaf's one TLB1 entry (EPN = base) */
	return 0;
}

/* Under a pin a change would not be seen: the pin goes first (mmu.c), or
 * the change is refused. */
int pt_may_change(uintptr_t va, size_t len, int attr)
{
	int pin;

	while ((pin = e500_pin_covering(va, len)) >= 0)
		if (e500_pin_drop(pin) < 0)
			return -1;
	return 0;
}

int e500_query(uintptr_t va, uintptr_t *pa, unsigned *attr)
{
	uint32_t e = ppc_pt_entry(va);

	if (!(e & PTE_SR))
		return -1;
	uint32_t sz = LEAF(e) ? tsize_bytes(LEAF_TSIZE(e)) : PAGE;
	uint32_t wimge = e >> PTE_WIMGE_SHIFT;
	*pa = (e & ~(sz - 1) & 0xfffff000u) | (va & (sz - 1));
	*attr = MMU_READ | (e & PTE_SW ? MMU_WRITE : 0) | (e & PTE_SX ? MMU_EXEC : 0) |
		(e & PTE_UR ? MMU_USER : 0) | (wimge & MAS2_I ? MMU_UNCACHED : 0) |
		(wimge & MAS2_G ? MMU_GUARDED : 0);
	return 0;
}

int e500_build_default(unsigned lp, unsigned *tables)
{
	uint32_t ram = boot_info.ram_bytes, lsz = lp ? tsize_bytes(lp) : 0;
	const uint32_t rwx = e500_pte_bits(MMU_READ | MMU_WRITE | MMU_EXEC);

	*tables = 0;
	for (unsigned i = 0; i < 1024; i++)
		e500_pgd[i] = (uint32_t)e500_empty_table;
	for (uint32_t a = 0; a < ram; ) {
		if (lsz && !(a & (lsz - 1)) && a + lsz <= ram &&
		    (e500_pin_covering(a, lsz) < 0 || e500_leaf_pinned(a, lsz))) {
			for (uint32_t r = a; r < a + lsz; r += 4u << 20)
				e500_pgd[r >> 22] = a | rwx | PTE_LEAF | lp << PTE_TSIZE_SHIFT;
			a += lsz;
			continue;
		}
		uint32_t *t = ppc_pte_slot(a, 1);		/* 4K PTEs over this 4 MiB */
		if (!t)
			return -1;
		++*tables;
		for (unsigned i = 0; i < 1024; i++)
			t[i] = a + i * PAGE < ram ? (a + i * PAGE) | rwx : 0;
		a = (a + (4u << 20)) & ~((4u << 20) - 1);
	}
	return 0;
}

/* What maps va: the TLB entry tlbsx finds (PID, address space 0) and the
 * table chain. */
void e500_explain(uintptr_t va)
{
	uint32_t dir = e500_pgd[va >> 22], *p = ppc_pte_slot(va, 0);

	mtspr(SPR_MAS6, mfspr(SPR_PID) << 16);
	__asm__ volatile("isync; tlbsx 0, %0; isync" : : "r"(va) : "memory");
	uint32_t mas1 = mfspr(SPR_MAS1);
	if (mas1 & MAS1_V)
		report_diag("  tlb: 0x%08lx in TLB%lu[%lu]: MAS1 0x%08lx MAS2 0x%08lx MAS3 0x%08lx",
			    (unsigned long)va, (unsigned long)(mfspr(SPR_MAS0) >> 28) & 1,
			    (unsigned long)(mfspr(SPR_MAS0) >> 16) & 0xfff, (unsigned long)mas1,
			    (unsigned long)mfspr(SPR_MAS2), (unsigned long)mfspr(SPR_MAS3));
	else
		report_diag("  tlb: no entry for 0x%08lx (PID %lu)", (unsigned long)va,
			    (unsigned long)mfspr(SPR_PID));
	report_diag("  page table: directory[%lu] = 0x%08lx%s, PTE 0x%08lx", (unsigned long)va >> 22,
		    (unsigned long)dir, LEAF(dir) ? " (a large page)" : "",
		    (unsigned long)(p ? *p : 0));
}
