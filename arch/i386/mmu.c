/* MMU modes of i386: the page-table formats, their modes and #PF.
 *
 *   flat    paging off (CR0.PG = 0), the baseline
 *   2level  32-bit entries, page directory + page tables, 4K pages
 *   pse     32-bit entries, 4M pages where a region allows (CR4.PSE), 4K elsewhere
 *   pae     64-bit entries, PDPT + directories + tables (CR4.PAE), 4K pages
 *   pae2m   64-bit entries, 2M pages where a region allows, 4K elsewhere
 *
 * In pse and pae2m the default mapping's first large page (0..4M, 0..2M)
 * is 4K pages: see enter().
 *
 * Each translated mode's enter() builds the default mapping from scratch:
 * all RAM from 0 to the end of the RAM region holding the image, 1:1
 * (the PC's devices are reached through I/O ports: none needs MMIO).  With
 * global=1 the kernel-like part (0 .. end of the image's area) is global
 * and CR4.PGE is on.  Under PAE with NX, RAM above the image is no-execute.
 * Tables come from the core's pool (boot/mmu.c).  An address space has its
 * own root (a directory; or a PDPT and the directory of the top GiB) that
 * shares the kernel part's tables, and its own window table; switching
 * loads CR3, which keeps only global entries.
 */
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "config.h"
#include "i386.h"
#include "mem.h"
#include "mmu_arch.h"
#include "report.h"

struct mmu_counters mmu_count;
extern char __free_ram_start[];		/* end of the image's area (linker script) */

#define TABLE_LINK	(PTE_P | PTE_RW | PTE_US)	/* non-leaf: let the leaf decide */
#define PAGE		4096u

/* A page-table format: a mode's variant. */
static const struct pformat formats[] = {
	{ "2level", 0, 0 }, { "pse", 0, 1 }, { "pae", 1, 0 }, { "pae2m", 1, 1 },
};

const struct pformat *i386_cur;		/* the active format; 0 while flat */
#define cur i386_cur
static uintptr_t kern_root, root;	/* the kernel's and the current space's CR3 */
static uint64_t pdpt[4] __attribute__((aligned(32)));	/* PAE: the kernel's PDPT */
static int nx_on, pge_on;

/* Boot arguments (arch_args below). */
static int opt_global;

static uintptr_t map_end;		/* default mapping: [0, map_end) */

/* ---- geometry of the current format ---- */

static unsigned large_shift(void) { return cur->pae ? 21 : 22; }
static uint32_t large_size(void) { return 1u << large_shift(); }
static unsigned dir_index(uintptr_t va) { return cur->pae ? (va >> 21) & 511 : va >> 22; }
static unsigned tab_index(uintptr_t va) { return cur->pae ? (va >> 12) & 511 : (va >> 12) & 1023; }
static unsigned entries(void) { return cur->pae ? 512 : 1024; }
static uint32_t frame(uint64_t e) { return (uint32_t)e & 0xfffff000u; }
static uint32_t large_frame(uint64_t e) { return (uint32_t)e & ~(large_size() - 1); }

static uint64_t get(uintptr_t table, unsigned i)
{
	return cur->pae ? ((volatile uint64_t *)table)[i] : ((volatile uint32_t *)table)[i];
}

static void set(uintptr_t table, unsigned i, uint64_t v)
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

static int paging_on(void) { return (read_cr0() & CR0_PG) != 0; }

static uintptr_t alloc_table(void) { return mmu_table_alloc(); }

/* The directory for va in the current root (PAE: through its PDPT),
 * created when asked. */
static uintptr_t dir_for(uintptr_t va, int create)
{
	if (!cur->pae)
		return root;
	uint64_t *p = (uint64_t *)root;
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

/* MMU_* attributes to entry bits (P always: x86 cannot deny reads). */
static uint64_t attr_bits(unsigned attr)
{
	uint64_t e = PTE_P;

	if (attr & MMU_WRITE)
		e |= PTE_RW;
	if (attr & MMU_UNCACHED)
		e |= PTE_PCD | PTE_PWT;
	if (attr & MMU_GLOBAL)
		e |= PTE_G;
	if (nx_on && !(attr & MMU_EXEC))
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

static int do_map(uintptr_t va, uintptr_t pa, size_t len, unsigned attr)
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
		if (cur->large && !((va | pa) & (L - 1)) && len >= L &&
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

static int do_unmap(uintptr_t va, size_t len) { return change("unmap", va, len, -1); }
static int do_protect(uintptr_t va, size_t len, unsigned attr) { return change("protect", va, len, attr); }

static void do_flush_all(void)
{
	mmu_count.flushes++;
	if (!cur)
		return;
	if (pge_on) {		/* toggling PGE drops global entries too */
		write_cr4(read_cr4() & ~CR4_PGE);
		write_cr4(read_cr4() | CR4_PGE);
	} else {
		write_cr3(read_cr3());
	}
}

/* ---- the walker: what maps va, level by level ---- */

int i386_walk(uintptr_t va, struct i386_walk *w)
{
	*w = (struct i386_walk){ .va = va };
	if (cur->pae) {
		w->pdpte = ((uint64_t *)root)[va >> 30];
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

static int do_query(uintptr_t va, uintptr_t *pa, unsigned *attr)
{
	struct i386_walk w;

	if (i386_walk(va, &w) < 0)
		return -1;
	*pa = w.pa;
	*attr = MMU_READ | (w.leaf & PTE_RW ? MMU_WRITE : 0) | (w.leaf & PTE_NX ? 0 : MMU_EXEC) |
		(w.leaf & PTE_PCD ? MMU_UNCACHED : 0) | (w.leaf & PTE_G ? MMU_GLOBAL : 0);
	return 0;
}

/* The CPU reloads the PDPT at every CR0.PG set: the self-check only reads it. */
int mmu_arch_live(uintptr_t a)
{
	return (a & ~(uintptr_t)(PAGE - 1)) == ((uintptr_t)pdpt & ~(uintptr_t)(PAGE - 1));
}

/* Each CR0.PG toggle flushes the TLB (and exits QEMU's translated code):
 * 64 sampled pages per region, moving on at each enter. */
unsigned mmu_arch_check_samples(void)
{
	return 64;
}

/* The largest format (PAE, 4K pages) for [0, ram_end), plus room for
 * splits, probe mappings and three tables for each address space. */
uint32_t mmu_arch_pool_bytes(uintptr_t ram_end)
{
	return (4 + (ram_end >> 21) + 1 + 64 + (ram_end >> 21) / 4 + 3 * MMU_MAX_SPACES) * PAGE;
}

/* ---- address spaces ---- */

#define WINDOW_PDPTE	(MMU_SPACE_BASE >> 30)

/* A root that shares every kernel entry, with the window on its own table. */
static int space_init(struct mmu_space *s)
{
	uintptr_t r = alloc_table(), w = alloc_table(), d = 0;

	if (!r || !w)
		return -1;
	s->root = r, s->window = w;
	if (!cur->pae) {
		memcpy((void *)r, (void *)kern_root, PAGE);
		set(r, dir_index(MMU_SPACE_BASE), w | TABLE_LINK);
		return 0;
	}
	if (!(d = alloc_table()))
		return -1;
	memcpy((void *)r, pdpt, sizeof(pdpt));
	if (pdpt[WINDOW_PDPTE] & PTE_P)
		memcpy((void *)d, (void *)frame(pdpt[WINDOW_PDPTE]), PAGE);
	((uint64_t *)r)[WINDOW_PDPTE] = d | PTE_P;
	set(d, dir_index(MMU_SPACE_BASE), w | TABLE_LINK);
	return 0;
}

static void space_switch(struct mmu_space *s)
{
	root = s ? s->root : kern_root;
	write_cr3(root);		/* drops every non-global entry */
	mmu_count.flushes++;
}

static void space_fini(struct mmu_space *s)
{
	if (cur->pae)
		mmu_table_free(frame(((uint64_t *)s->root)[WINDOW_PDPTE]));
	mmu_table_free(s->window);
	mmu_table_free(s->root);
}

/* ---- entering and leaving ---- */

static void leave_paging(void)
{
	if (cur)
		i386_ptdump_first_leave(formats);
	if (paging_on())
		write_cr0(read_cr0() & ~(CR0_PG | CR0_WP));
	write_cr4(read_cr4() & ~(CR4_PSE | CR4_PAE | CR4_PGE));
	if (nx_on)
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) & ~(uint64_t)EFER_NXE);
	write_cr3(0);
	cur = 0;
	nx_on = pge_on = 0;
}

static const char *missing(const struct pformat *f)
{
	if (f->pae && !i386_cpu.pae)
		return "the CPU has no PAE (CPUID 1 EDX bit 6)";
	if (f->large && !f->pae && !i386_cpu.pse)
		return "the CPU has no PSE (CPUID 1 EDX bit 3)";
	if (opt_global && !i386_cpu.pge)
		return "global=1 but the CPU has no PGE (CPUID 1 EDX bit 13)";
	return 0;
}

static int enter(const struct mmu_mode *m)
{
	const struct pformat *f = &formats[m->variant];
	const char *why = missing(f);
	uint32_t cr4;

	if (why) {
		report_diag("error: cannot enter %s: %s", f->name, why);
		return -1;
	}
	leave_paging();
	cur = f;
	nx_on = f->pae && i386_cpu.nx;
	pge_on = opt_global;
	map_end = mem_ram_end() & ~(PAGE - 1);
	memset(pdpt, 0, sizeof(pdpt));
	kern_root = f->pae ? (uintptr_t)pdpt : alloc_table();
	root = kern_root;
	if (!kern_root)
		goto fail;

	/* The kernel-like part: from 0 to the end of the image's area (rounded
	 * up to a large page in large-page modes); then the rest of RAM. */
	uintptr_t kend = (uintptr_t)__free_ram_start;
	if (f->large)
		kend = (kend + large_size() - 1) & ~(large_size() - 1);
	if (kend > map_end)
		kend = map_end;
	unsigned kattr = MMU_READ | MMU_WRITE | MMU_EXEC | (opt_global ? MMU_GLOBAL : 0);
	/* The first large page's span (0..4M pse, 0..2M pae2m) in 4K pages:
	 * the fixed-range MTRRs give the first MiB several memory types, and
	 * a CPU splits a large page over mixed types into 4K TLB entries
	 * (SDM Vol. 3A 11.11.9), so a large page there would not be one.
	 * One do_map per page: a 4K length never makes a large page. */
	uintptr_t small_end = f->large ? large_size() : 0;
	if (small_end > kend)
		small_end = kend;
	for (uintptr_t a = 0; a < small_end; a += PAGE)
		if (do_map(a, a, PAGE, kattr) < 0)
			goto fail;
	if (do_map(small_end, small_end, kend - small_end, kattr) < 0 ||
	    do_map(kend, kend, map_end - kend, MMU_READ | MMU_WRITE) < 0)
		goto fail;

	/* Switch: paging off (it is), CR4, EFER.NXE, CR3, then PG and WP;
	 * PGE only once paging is on (SDM Vol. 3A 2.5, CR4.PGE). */
	cr4 = read_cr4() & ~(CR4_PSE | CR4_PAE | CR4_PGE);
	if (f->pae)
		cr4 |= CR4_PAE;		/* PAE has 2M pages without PSE */
	else if (f->large)
		cr4 |= CR4_PSE;
	write_cr4(cr4);
	if (nx_on)
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	write_cr3(kern_root);
	write_cr0(read_cr0() | CR0_PG | CR0_WP);
	if (pge_on)
		write_cr4(cr4 | CR4_PGE);
	do_flush_all();			/* every mode starts from a full flush */
	return 0;
fail:
	leave_paging();
	return -1;
}

static void tlb_info(struct mmu_tlb_info *t)
{
	t->refill = MMU_REFILL_HARDWARE;
	t->entries = i386_dtlb_entries();
	t->page_sizes = 1u << 12 | (cur->large ? 1u << large_shift() : 0);
	t->space_switch = MMU_SWITCH_UNTAGGED;	/* no PCID: every CR3 load flushes */
	t->counts = MMU_COUNTS_FAULTS | MMU_COUNTS_FLUSHES;	/* the hardware walks: no miss count */
}

/* Paging off: the TLB is not used, and nothing counts its misses anyway. */
void mmu_arch_untranslated_tlb(struct mmu_tlb_info *t)
{
	(void)t;
}

static void figures(struct mmu_figures *f)
{
	if (cur->large) {	/* which pages are large (enter() keeps the first span 4K) */
		uintptr_t small_end = large_size() < map_end ? large_size() : map_end;
		uintptr_t lend = map_end & ~(large_size() - 1);
		char tail[40] = "";
		if (lend < map_end)
			snprintf(tail, sizeof(tail), ", 0x%08lx-0x%08lx (RAM's end)",
				 (unsigned long)lend, (unsigned long)map_end - 1);
		if (lend > small_end)
			report_diag("%s: large pages 0x%08lx-0x%08lx; 4K pages 0x00000000-0x%08lx "
				    "(fixed-range MTRRs split the first MiB)%s", cur->name,
				    (unsigned long)small_end, (unsigned long)lend - 1,
				    (unsigned long)small_end - 1, tail);
		else
			report_diag("%s: no large pages (RAM ends at %#lx)", cur->name,
				    (unsigned long)map_end);
	}
	f->pagetable_bytes = cur->pae ? sizeof(pdpt) : 0;	/* the rest is from the pool */
	f->mapped_bytes = map_end;
	snprintf(f->summary, sizeof(f->summary), "1:1 map of 0x00000000-0x%08lx, NX %s, global %s",
		 (unsigned long)map_end - 1, nx_on ? "on" : "off",
		 pge_on ? "on (0 .. image end)" : "off");
}

static const struct mmu_ops i386_ops = {
	.enter = enter, .leave = leave_paging,
	.map = do_map, .unmap = do_unmap, .protect = do_protect, .query = do_query,
	.flush_all = do_flush_all,
	.space_init = space_init, .space_switch = space_switch, .space_fini = space_fini,
	.tlb_info = tlb_info, .figures = figures, .check_word = i386_check_word,
	.explain = i386_print_pte_chain,
};

static const struct mmu_mode mode_flat = { "flat", "paging off (CR0.PG = 0)", 0, 0 };
const struct mmu_mode i386_mode_2level = { "2level", "32-bit entries, 2 levels, 4K pages",
	&i386_ops, 0 };
static const struct mmu_mode mode_pse = { "pse",
	"32-bit entries, 4M pages where the region allows (CR4.PSE), else 4K", &i386_ops, 1 };
const struct mmu_mode i386_mode_pae = { "pae",
	"PAE: 64-bit entries, 3 levels, 4K pages (NX where the CPU has it)", &i386_ops, 2 };
static const struct mmu_mode mode_pae2m = { "pae2m",
	"PAE: 64-bit entries, 2M pages where the region allows, else 4K", &i386_ops, 3 };

const struct mmu_mode *const mmu_modes[] = {
	&mode_flat, &i386_mode_2level, &mode_pse, &i386_mode_pae, &mode_pae2m, 0
};

/* ---- #PF ---- */

/* 1 when the fault was a probe's (its hook mapped or unprotected the page). */
int i386_page_fault(struct i386_frame *f)
{
	static uintptr_t last_addr, last_eip;
	static int repeats;
	uintptr_t addr = read_cr2();
	int prot = f->error & 1, write = !!(f->error & 2);

	if (prot)
		mmu_count.prot_faults++;
	else
		mmu_count.page_faults++;
	if (!cur || (f->error & 8))		/* reserved bits: our tables are wrong */
		return 0;
	/* A hook that claims success but fixes nothing would fault forever. */
	if (addr == last_addr && f->eip == last_eip) {
		if (++repeats >= 3) {
			report_diag("error: #PF at %#lx handled 3 times without effect",
				    (unsigned long)addr);
			return 0;
		}
	} else {
		repeats = 0;
	}
	last_addr = addr, last_eip = f->eip;
	uintptr_t resume;
	int r = mmu_call_fault_hook(addr, write, prot, f->eip, &resume);
	if (r == MMU_FAULT_SKIP)
		f->eip = resume, last_eip = 0;
	return r != 0;
}

/* ---- boot arguments ---- */

static int set_global(const char *key, const char *value) { return arg_flag(key, value, &opt_global); }

const struct boot_arg arch_args[] = {
	{ "global", "0 or 1: mark the image and low RAM global (CR4.PGE) in paging modes", set_global },
	{ "ptdump", "START-END: print the page tables of that range when each mode is first left", i386_set_ptdump },
	{ "stray_vector", "48..255: an int N after the banner, as a live source would (a test)", i386_set_stray_vector },
	{ 0 }
};
