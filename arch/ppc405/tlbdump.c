/* Decoding the 405's TLB and page table: tlbdump=1, and what maps an
 * address for the self-check and the exception dump. */
#include "mmu_arch.h"
#include "ppc405.h"
#include "report.h"

struct entry { uint32_t hi, lo, tid; };

/* Entry i, with translation off: tlbre loads PID with the entry's TID. */
static struct entry read_entry(unsigned i)
{
	uint32_t msr = mfmsr();
	struct entry e;

	mtmsr(msr & ~(MSR_IR | MSR_DR));
	e.hi = tlbre_hi(i);
	e.tid = mfspr(SPR_PID);
	e.lo = tlbre_lo(i);
	ppc405_pid_restore();
	mtmsr(msr);
	return e;
}

static void print_entry(unsigned i, struct entry e)
{
	uint32_t hi = e.hi, lo = e.lo;

	static const char *const sizes[] = { "1K", "4K", "16K", "64K", "256K", "1M", "4M", "16M" };

	report_diag("  tlb[%2u] EPN 0x%08lx %-4s %s TID %lu RPN 0x%08lx %s%s zone %lu WIMG %c%c%c%c%s",
		    i, (unsigned long)(hi & 0xfffffc00u), sizes[(hi >> 7) & 7],
		    hi & TLBHI_V ? "V" : "-", (unsigned long)e.tid,
		    (unsigned long)(lo & 0xfffffc00u), lo & TLBLO_EX ? "EX" : "--",
		    lo & TLBLO_WR ? "WR" : "--", (unsigned long)((lo >> 4) & 15),
		    lo & TLBLO_W ? 'W' : '-', lo & TLBLO_I ? 'I' : '-', lo & TLBLO_M ? 'M' : '-',
		    lo & TLBLO_G ? 'G' : '-',
		    i >= TLB_SLOTS - ppc405_pinned_slots() ? " (pinned)" : "");
}

void ppc405_tlbdump(const char *why)
{
	report_diag("tlbdump (%s): 64 entries (QEMU's tlbre returns no zone/WIMG bits)", why);
	for (unsigned i = 0; i < TLB_SLOTS; i++)
		print_entry(i, read_entry(i));
}

/* Slot holding va for the current PID, or -1. */
static int tlb_search(uint32_t va)
{
	uint32_t idx, cr;
	__asm__ volatile("tlbsx. %0, 0, %2; mfcr %1" : "=r"(idx), "=r"(cr) : "r"(va) : "cr0");
	return (cr & 0x20000000u) ? (int)(idx & 63) : -1;
}

void ppc405_explain(uintptr_t va)
{
	int i = tlb_search(va);
	uint32_t dir = ppc405_pgd[va >> 22];

	if (!mmu_current) {
		report_diag("  mmu: real mode (no translated mode active)");
		return;
	}
	if (i >= 0)
		print_entry(i, read_entry(i));
	else
		report_diag("  no TLB entry for 0x%08lx", (unsigned long)va);
	if (dir & 0x10u) {
		report_diag("  directory[%lu] = 0x%08lx (large-page leaf)", (unsigned long)(va >> 22),
			    (unsigned long)dir);
	} else {
		uint32_t *p = ppc405_pte(va);
		report_diag("  directory[%lu] = 0x%08lx, PTE = 0x%08lx", (unsigned long)(va >> 22),
			    (unsigned long)dir, (unsigned long)(p ? *p : 0));
	}
}
