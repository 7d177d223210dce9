/* i386 page tables in the current format: entries made and changed one
 * page (or large page) at a time, large pages split where a range covers
 * part of one, and the one walker.  Apart from mmu.c, which picks the
 * format and switches modes and spaces. */
#include <stdio.h>
#include "i386.h"
#include "mmu_arch.h"
#include "pagetable.h"
#include "report.h"

/* The directory for va in the current root (PAE: through its PDPT),
 * created when asked. */
static uintptr_t dir_for(uintptr_t va, int create)
{
	if (!cur->pae)
		return i386_root;
	uint64_t *p = (uint64_t *)i386_root;
	unsigned i = va >> 30;
	if (!(p[i] & PTE_P)) {
		if (!create)
			return 0;
		uintptr_t d = alloc_table();
		if (!d)
			return 0;
		p[i] = d | PTE_P;	/* PDPTEs take P only: RW/US/NX are reserved */
		if (paging_on())	/* the CPU caches PDPTEs at each CR3 load */
			write_cr3(read_cr3());
	}
	return frame(p[i]);
}

/* Turn the large page at dir[i] into a table of 4K pages, same mappings. */
static int split(uintptr_t dir, unsigned i, uintptr_t va)
{
	uint64_t e = get(dir, i);
	uint64_t attrs = (e & (0xfffu & ~PTE_PS)) | (e & PTE_NX);
	uint32_t base = large_frame(e);
	uintptr_t t = alloc_table();

	if (!t)
		return -1;
	for (unsigned k = 0; k < entries(); k++)
		set(t, k, (uint64_t)(base + k * PAGE) | attrs);
	set(dir, i, t | TABLE_LINK);
	if (paging_on())
		invlpg(va & ~(large_size() - 1));	/* drop the large TLB entry */
	return 0;
}

/* MMU_* attributes to entry bits (P always: x86 cannot deny reads).
 * MMU_USER is U/S on the leaf; the levels above always have it
 * (TABLE_LINK: the leaf decides), and PAE's PDPTEs have no U/S at all
 * (SDM Vol. 3A 4.4.1: bits 1, 2 of a PDPTE are reserved).  Kernel leaves
 * are supervisor-only, so ring 3 reaches nothing but user pages. */
static uint64_t attr_bits(unsigned attr)
{
	uint64_t e = PTE_P;

	if (attr & MMU_USER)
		e |= PTE_US;
	if (attr & MMU_WRITE)
		e |= PTE_RW;
	if (attr & MMU_UNCACHED)
		e |= PTE_PCD | PTE_PWT;
	if (attr & MMU_GLOBAL)
		e |= PTE_G;
	if (i386_nx_on && !(attr & MMU_EXEC))
		e |= PTE_NX;
	return e;
}

static int check_range(const char *what, uintptr_t va, size_t len)
{
	if (!cur) {
		report_diag("error: %s: paging is off (mode flat)", what);
		return -1;
	}
	if ((va | len) & (PAGE - 1) || va + len < va) {
		report_diag("error: %s: %#lx+%#lx is not whole 4K pages below 4 GiB", what,
			    (unsigned long)va, (unsigned long)len);
		return -1;
	}
	return 0;
}

int i386_map(uintptr_t va, uintptr_t pa, size_t len, unsigned attr)
{
	uint64_t bits = attr_bits(attr);

	if (check_range("map", va, len) < 0 || (pa & (PAGE - 1)))
		return -1;
	while (len) {
		uintptr_t dir = dir_for(va, 1);
		if (!dir)
			return -1;
		unsigned di = dir_index(va);
		uint64_t de = get(dir, di);
		uint32_t L = large_size();
		/* Large pages for the kernel only: user pages and the window
		 * are 4K pages in every mode (copy-on-write is per 4K page). */
		int user = (attr & MMU_USER) ||
			   (va >= MMU_SPACE_BASE && va - MMU_SPACE_BASE < MMU_SPACE_SIZE);
		if (cur->large && !user && !((va | pa) & (L - 1)) && len >= L &&
		    (!(de & PTE_P) || (de & PTE_PS))) {
			set(dir, di, pa | bits | PTE_PS);	/* one large page */
			if (paging_on())
				invlpg(va);
			va += L, pa += L, len -= L;
			continue;
		}
		if (!(de & PTE_P)) {
			uintptr_t t = alloc_table();
			if (!t)
				return -1;
			set(dir, di, t | TABLE_LINK);
			mmu_window_adopt(va, cur->pae ? 21 : 22, t);	/* the space frees it */
		} else if ((de & PTE_PS) && split(dir, di, va) < 0) {
			return -1;
		}
		set(frame(get(dir, di)), tab_index(va), pa | bits);
		if (paging_on())
			invlpg(va);
		va += PAGE, pa += PAGE, len -= PAGE;
		if (va == 0)		/* wrapped at 4 GiB */
			break;
	}
	return 0;
}

/* Walk [va, va+len): clear (attr < 0) or re-protect each mapping, splitting
 * large pages only where the range covers part of one. */
static int change(const char *what, uintptr_t va, size_t len, int attr)
{
	if (check_range(what, va, len) < 0)
		return -1;
	while (len) {
		uintptr_t dir = dir_for(va, 0);
		uint32_t L = large_size();
		uint32_t to_dir_end = L - (va & (L - 1));
		if (!dir) {
			if (attr >= 0)
				goto not_mapped;
			uint32_t gb = 0x40000000u - (va & 0x3fffffffu);	/* skip this PDPT slot */
			if (len <= gb)
				break;
			va += gb, len -= gb;
			continue;
		}
		unsigned di = dir_index(va);
		uint64_t de = get(dir, di);
		if (!(de & PTE_P)) {
			if (attr >= 0)
				goto not_mapped;
			if (len <= to_dir_end)
				break;
			va += to_dir_end, len -= to_dir_end;
			continue;
		}
		if (de & PTE_PS) {
			if (!(va & (L - 1)) && len >= L) {	/* the whole large page */
				set(dir, di, attr < 0 ? 0 : large_frame(de) | attr_bits(attr) | PTE_PS);
				if (paging_on())
					invlpg(va);
				va += L, len -= L;
				continue;
			}
			if (split(dir, di, va) < 0)
				return -1;
		}
		uintptr_t t = frame(get(dir, di));
		uint64_t e = get(t, tab_index(va));
		if (attr >= 0 && !(e & PTE_P))
			goto not_mapped;
		set(t, tab_index(va), attr < 0 ? 0 : frame(e) | attr_bits(attr));
		if (paging_on())
			invlpg(va);
		va += PAGE, len -= PAGE;
	}
	return 0;
not_mapped:
	report_diag("error: %s: %#lx is not mapped", what, (unsigned long)va);
	return -1;
}

int i386_unmap(uintptr_t va, size_t len) { return change("unmap", va, len, -1); }
int i386_protect(uintptr_t va, size_t len, unsigned attr) { return change("protect", va, len, attr); }

/* ---- the walker: what maps va, level by level ---- */

int i386_walk(uintptr_t va, struct i386_walk *w)
{
	*w = (struct i386_walk){ .va = va };
	if (cur->pae) {
		w->pdpte = ((uint64_t *)i386_root)[va >> 30];
		if (!(w->pdpte & PTE_P))
			return -1;
	}
	uintptr_t dir = dir_for(va, 0);
	w->pde_at = dir + dir_index(va) * (cur->pae ? 8 : 4);
	w->pde = get(dir, dir_index(va));
	if (!(w->pde & PTE_P))
		return -1;
	if (w->pde & PTE_PS) {
		w->large = large_size();
		w->pa = large_frame(w->pde) + (va & (large_size() - 1));
		w->leaf = w->pde;
		return 0;
	}
	w->pte_at = frame(w->pde) + tab_index(va) * (cur->pae ? 8 : 4);
	w->pte = get(frame(w->pde), tab_index(va));
	if (!(w->pte & PTE_P))
		return -1;
	w->pa = frame(w->pte) + (va & (PAGE - 1));
	w->leaf = w->pte;
	return 0;
}

int i386_query(uintptr_t va, uintptr_t *pa, unsigned *attr)
{
	struct i386_walk w;

	if (i386_walk(va, &w) < 0)
		return -1;
	*pa = w.pa;
	*attr = MMU_READ | (w.leaf & PTE_RW ? MMU_WRITE : 0) | (w.leaf & PTE_NX ? 0 : MMU_EXEC) |
		(w.leaf & PTE_PCD ? MMU_UNCACHED : 0) | (w.leaf & PTE_G ? MMU_GLOBAL : 0) |
		(w.leaf & PTE_US ? MMU_USER : 0);
	return 0;
}
