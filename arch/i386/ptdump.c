/* Decoding i386 page tables with the one walker (mmu.c, i386_walk): the
 * PTE chain of an address (exception dump, failed self-check) and ptdump=. */
#include <stdio.h>
#include <string.h>
#include "args.h"
#include "i386.h"
#include "report.h"

static uintptr_t ptdump_start, ptdump_end;
static uint32_t dumped;			/* a bit per format */

#define PAGE	4096u

static void flags(char *buf, size_t size, uint64_t e, int leaf)
{
	snprintf(buf, size, "%s%s%s%s%s%s%s%s%s%s", e & PTE_P ? "P" : "not-present",
		 e & PTE_RW ? " RW" : e & PTE_P ? " RO" : "", e & PTE_US ? " US" : "",
		 e & PTE_PWT ? " PWT" : "", e & PTE_PCD ? " PCD" : "", e & PTE_A ? " A" : "",
		 leaf && (e & PTE_D) ? " D" : "", e & PTE_PS ? " PS" : "",
		 leaf && (e & PTE_G) ? " G" : "", e & PTE_NX ? " NX" : "");
}

static unsigned index_at(uintptr_t at) { return (at & (PAGE - 1)) / (i386_cur->pae ? 8 : 4); }

void i386_print_pte_chain(uintptr_t va)
{
	struct i386_walk w;
	char f[64];
	int w16 = i386_cur && i386_cur->pae ? 16 : 8;

	if (!i386_cur || !(read_cr0() & CR0_PG)) {
		report_diag("  PTE chain for 0x%08lx: paging off: physical = virtual",
			    (unsigned long)va);
		return;
	}
	i386_walk(va, &w);
	report_diag("  PTE chain for 0x%08lx (%s, CR3 0x%08lx):", (unsigned long)va, i386_cur->name,
		    (unsigned long)read_cr3());
	if (i386_cur->pae) {
		report_diag("    PDPTE[%lu] = 0x%016llx (%s)", (unsigned long)(va >> 30),
			    (unsigned long long)w.pdpte, w.pdpte & PTE_P ? "P" : "not-present");
		if (!(w.pdpte & PTE_P))
			return;
	}
	flags(f, sizeof(f), w.pde, !!(w.pde & PTE_PS));
	report_diag("    PDE[%u] @0x%08lx = 0x%0*llx (%s)", index_at(w.pde_at),
		    (unsigned long)w.pde_at, w16, (unsigned long long)w.pde, f);
	if (w.large) {
		report_diag("    large page: physical 0x%08lx", (unsigned long)w.pa);
		return;
	}
	if (!w.pte_at)
		return;
	flags(f, sizeof(f), w.pte, 1);
	report_diag("    PTE[%u] @0x%08lx = 0x%0*llx (%s)", index_at(w.pte_at),
		    (unsigned long)w.pte_at, w16, (unsigned long long)w.pte, f);
	if (w.pte & PTE_P)
		report_diag("    4K page: physical 0x%08lx", (unsigned long)w.pa);
}

/* One line per directory entry that is absent or a large page; below a
 * table, one line per run of PTEs that map consecutive frames with the
 * same flags (A and D aside). */
void i386_ptdump(uintptr_t start, uintptr_t end)
{
	uint32_t L = i386_cur->pae ? 2u << 20 : 4u << 20;
	uint64_t mask = (0xfffu | PTE_NX) & ~(uint64_t)(PTE_A | PTE_D);
	struct i386_walk w, x;
	char f[64];

	report_diag("ptdump %s: 0x%08lx-0x%08lx (CR3 0x%08lx, CR4 %#lx)", i386_cur->name,
		    (unsigned long)start, (unsigned long)end - 1, (unsigned long)read_cr3(),
		    (unsigned long)read_cr4());
	for (uintptr_t va = start & ~(PAGE - 1); va < end && va >= start;) {
		uintptr_t dir_end = (va | (L - 1)) + 1;
		i386_walk(va, &w);
		if (i386_cur->pae && !(w.pdpte & PTE_P)) {
			report_diag("  0x%08lx: PDPTE[%lu] not present", (unsigned long)va,
				    (unsigned long)(va >> 30));
			va = (va | 0x3fffffffu) + 1;
			continue;
		}
		flags(f, sizeof(f), w.pde, !!(w.pde & PTE_PS));
		if (!(w.pde & PTE_P) || w.large) {
			report_diag("  0x%08lx-0x%08lx PDE[%u] = %#llx: %s%s", (unsigned long)va,
				    (unsigned long)dir_end - 1, index_at(w.pde_at),
				    (unsigned long long)w.pde, f, w.large ? " (large page)" : "");
			va = dir_end;
			continue;
		}
		report_diag("  0x%08lx-0x%08lx PDE[%u] = %#llx: %s -> table %#lx", (unsigned long)va,
			    (unsigned long)dir_end - 1, index_at(w.pde_at), (unsigned long long)w.pde,
			    f, (unsigned long)(w.pte_at & ~(PAGE - 1)));
		while (va < end && va < dir_end && va >= start) {
			uintptr_t run = va;
			int n = 0;
			i386_walk(va, &w);
			do {
				va += PAGE, n++;
				if (va >= end || va >= dir_end || va < run)
					break;
				i386_walk(va, &x);
			} while (!((x.pte ^ w.pte) & mask) &&
				 (!(w.pte & PTE_P) || x.pa == w.pa + n * PAGE));
			flags(f, sizeof(f), w.pte, 1);
			if (w.pte & PTE_P)
				report_diag("    0x%08lx-0x%08lx %4d PTE(s) -> 0x%08lx.. %s",
					    (unsigned long)run, (unsigned long)va - 1, n,
					    (unsigned long)w.pa, f);
			else
				report_diag("    0x%08lx-0x%08lx %4d PTE(s) not present",
					    (unsigned long)run, (unsigned long)va - 1, n);
			if (va == 0)
				return;
		}
	}
}

/* ptdump=START-END: each format's tables when its mode is first left, so
 * that the dump shows what the first probe changed (splits, faults). */
void i386_ptdump_first_leave(const struct pformat *formats)
{
	unsigned bit = 1u << (i386_cur - formats);

	if (ptdump_end > ptdump_start && !(dumped & bit)) {
		dumped |= bit;
		i386_ptdump(ptdump_start, ptdump_end);
	}
}

int i386_set_ptdump(const char *key, const char *value)
{
	char a[24];
	const char *dash = value ? strchr(value, '-') : 0;
	unsigned long s, e;

	if (!dash || dash - value >= (int)sizeof(a)) {
		console_printf("mmubench: error: boot argument '%s=%s': needs START-END, e.g. "
			       "0x100000-0x500000\n", key, value ? value : "");
		return -1;
	}
	memcpy(a, value, dash - value);
	a[dash - value] = 0;
	if (arg_uint(key, a, 0, 0xffffffffu, &s) < 0 || arg_uint(key, dash + 1, 0, 0xffffffffu, &e) < 0)
		return -1;
	if (e <= s) {
		console_printf("mmubench: error: boot argument '%s=%s': END must be above START\n",
			       key, value);
		return -1;
	}
	ptdump_start = s, ptdump_end = e;
	return 0;
}

