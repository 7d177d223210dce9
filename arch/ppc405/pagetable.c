/* The 405's page table, beside what both PowerPCs do with it
 * (arch/powerpc/pagetable.c): which changes may go ahead, demotion, the TLB
 * entries a change covered invalidated, the default mapping, query.  Apart
 * from mmu.c, which owns the TLB's modes, spaces and faults. */
#include <stdint.h>
#include "boot_info.h"
#include "mmu_arch.h"
#include "pagetable.h"
#include "ppc405.h"
#include "report.h"

uint32_t *ppc405_pte(uint32_t va) { return ppc_pte_slot(va, 0); }

/* Invalidate every TLB entry overlapping [va, va+len), whatever its TID;
 * pinned ones too when `pinned_too` (a mapping under a pin changed). */
void ppc405_tlb_invalidate(uint32_t va, uint32_t len, int pinned_too)
{
	unsigned top = pinned_too ? TLB_SLOTS : TLB_SLOTS - ppc405_active_pins;
	uint32_t msr = mfmsr();

	/* Translation off: tlbre loads PID with each entry's TID, and no miss
	 * may load an entry under a borrowed PID before it is put back. */
	__asm__ volatile("sync");	/* page-table stores before the TLB changes */
	mtmsr(msr & ~(MSR_IR | MSR_DR));
	for (unsigned i = 0; i < top; i++) {
		uint32_t hi = tlbre_hi(i);
		if (!(hi & TLBHI_V))
			continue;
		uint32_t sz = size_bytes((hi >> 7) & 7), epn = hi & ~(sz - 1);
		if (epn < va + len && va < epn + sz) {
			__asm__ volatile("sync" ::: "memory");	/* earlier accesses done first */
			tlbwe_hi(i, 0);
		}
	}
	ppc405_pid_restore();
	mtmsr(msr);
	mmu_count.flushes++;
}

/* A 4K PTE for each 4K page of the large page e, based at base, into the
 * tables that map it. */
static void split_entry(uint32_t e, uint32_t base, uint32_t sz)
{
	for (uint32_t off = 0; off < sz; off += PAGE)
		*ppc_pte_slot(base + off, 0) = ((e & ~(sz - 1) & 0xfffffc00u) + off) |
					       (e & 0x30fu) | ZONE_OF_SIZE(SZ_4K);
}

/* Turn the large page holding va into 4K PTEs with the same rights. */
int pt_demote(uint32_t va)
{
	uint32_t *dir = &ppc405_pgd[va >> 22], e = *dir, sz, base;

	if (LEAF(e)) {
		sz = size_bytes(SIZE_OF(e));
		base = va & ~(sz - 1);
		for (uint32_t r = base; r - base < sz; r += 4u << 20) {
			uint32_t *t = (uint32_t *)mmu_table_alloc();
			if (!t)
				return -1;
			ppc405_pgd[r >> 22] = (uint32_t)t;
		}
	} else {
		uint32_t *p = ppc_pte_slot(va, 0);
		if (!p || !*p || SIZE_OF(*p) == SZ_4K)
			return 0;
		e = *p;
		sz = size_bytes(SIZE_OF(e));
		base = va & ~(sz - 1);
	}
	split_entry(e, base, sz);
	ppc405_tlb_invalidate(base, sz, 1);
	return 0;
}

/* User pages lie in the window only: the miss handler gives the user
 * zone (which would say 1K) its 4K there. */
int pt_may_change(uintptr_t va, size_t len, int attr)
{
	if (attr >= 0 && (attr & MMU_USER) &&
	    (va < MMU_SPACE_BASE || va + len > MMU_SPACE_BASE + MMU_SPACE_SIZE)) {
		report_diag("error: map %#lx: user pages lie in the window %#lx-%#lx only (the "
			    "miss handler gives the user zone 4K there)", (unsigned long)va,
			    (unsigned long)MMU_SPACE_BASE,
			    (unsigned long)(MMU_SPACE_BASE + MMU_SPACE_SIZE - 1));
		return -1;
	}
	return 0;
}

int ppc405_query(uintptr_t va, uintptr_t *pa, unsigned *attr)
{
	uint32_t e = ppc_pt_entry(va);

	if (!LEAF(e))
		return -1;
	uint32_t sz = size_bytes(SIZE_OF(e));
	*pa = (e & 0xfffffc00u & ~(sz - 1)) | (va & (sz - 1));
	*attr = MMU_READ | (e & TLBLO_WR ? MMU_WRITE : 0) | (e & TLBLO_EX ? MMU_EXEC : 0) |
		(e & TLBLO_I ? MMU_UNCACHED : 0) | (e & TLBLO_G ? MMU_GUARDED : 0) |
		(USER_PTE(e) ? MMU_USER : 0);
	return 0;
}

/* The default mapping: RAM 1:1 in pages of size code `s`, the UART page. */
int ppc405_build_default(unsigned s)
{
	uint32_t ram = boot_info.ram_bytes, sz = size_bytes(s);
	const uint32_t rwx = ppc405_lo_bits(MMU_READ | MMU_WRITE | MMU_EXEC);

	for (unsigned i = 0; i < 1024; i++)
		ppc405_pgd[i] = (uint32_t)ppc405_empty_table;
	for (uint32_t a = 0; a < ram; ) {
		if (s >= SZ_4M && a + sz <= ram && !(a & (sz - 1))) {
			for (uint32_t r = a; r < a + sz; r += 4u << 20)
				ppc405_pgd[r >> 22] = a | rwx | ZONE_OF_SIZE(s);
			a += sz;
			continue;
		}
		/* A table's worth of PTEs: large entries repeated over the
		 * 4K slots they cover (whole large pages only), 4K below the
		 * end of RAM, nothing past it. */
		unsigned ps = s < SZ_4M ? s : SZ_4K;
		uint32_t psz = size_bytes(ps), large_end = ram & ~(psz - 1);
		uint32_t *t = ppc_pte_slot(a, 1);
		if (!t)
			return -1;
		for (unsigned i = 0; i < 1024; i++) {
			uint32_t page = a + i * PAGE;
			t[i] = page < large_end ? (page & ~(psz - 1)) | rwx | ZONE_OF_SIZE(ps)
			     : page < ram ? page | rwx | ZONE_OF_SIZE(SZ_4K) : 0;
		}
		a = (a + (4u << 20)) & ~((4u << 20) - 1);
	}
	uint32_t *u = ppc_pte_slot(PPC405_UART0 & ~(PAGE - 1), 1);
	if (!u)
		return -1;
	*u = (PPC405_UART0 & ~(PAGE - 1)) |
	     ppc405_lo_bits(MMU_READ | MMU_WRITE | MMU_UNCACHED | MMU_GUARDED) | ZONE_OF_SIZE(SZ_4K);
	return 0;
}
