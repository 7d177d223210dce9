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
 * loads CR3, which keeps only global entries.  Every paging mode sets
 * CR0.WP (the kernel honours read-only too: copy-on-write); user pages
 * (MMU_USER, user.c's ring 3) are U/S leaves, 4K pages in every mode.
 *
 * Here: the formats, entering and leaving them, flushes, spaces, the
 * figures, #PF; the entries themselves are pagetable.c's.
 */
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "config.h"
#include "i386.h"
#include "mem.h"
#include "mmu_arch.h"
#include "pagetable.h"
#include "report.h"

struct mmu_counters mmu_count;
extern char __free_ram_start[];		/* end of the image's area (linker script) */

/* A page-table format: a mode's variant. */
static const struct pformat formats[] = {
	{ "2level", 0, 0 }, { "pse", 0, 1 }, { "pae", 1, 0 }, { "pae2m", 1, 1 },
};

const struct pformat *i386_cur;
uintptr_t i386_root;
int i386_nx_on;
static uintptr_t kern_root;		/* the kernel space's CR3 */
static uint64_t pdpt[4] __attribute__((aligned(32)));	/* PAE: the kernel's PDPT */
static int pge_on;

/* Boot arguments (arch_args below). */
static int opt_global;

static uintptr_t map_end;		/* default mapping: [0, map_end) */

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
	s->root = r, s->window[0] = w;
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
	i386_root = s ? s->root : kern_root;
	write_cr3(i386_root);		/* drops every non-global entry */
	mmu_count.flushes++;
}

static void space_fini(struct mmu_space *s)
{
	if (cur->pae)
		mmu_table_free(frame(((uint64_t *)s->root)[WINDOW_PDPTE]));
	for (unsigned i = 0; i < sizeof(s->window) / sizeof(s->window[0]); i++)
		if (s->window[i])	/* [0] and those its maps made (pagetable.c) */
			mmu_table_free(s->window[i]);
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
	if (i386_nx_on)
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) & ~(uint64_t)EFER_NXE);
	write_cr3(0);
	cur = 0;
	i386_nx_on = pge_on = 0;
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
	i386_nx_on = f->pae && i386_cpu.nx;
	pge_on = opt_global;
	map_end = mem_ram_end() & ~(PAGE - 1);
	memset(pdpt, 0, sizeof(pdpt));
	kern_root = f->pae ? (uintptr_t)pdpt : alloc_table();
	i386_root = kern_root;
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
		if (i386_map(a, a, PAGE, kattr) < 0)
			goto fail;
	if (i386_map(small_end, small_end, kend - small_end, kattr) < 0 ||
	    i386_map(kend, kend, map_end - kend, MMU_READ | MMU_WRITE) < 0)
		goto fail;

	/* Switch: paging off (it is), CR4, EFER.NXE, CR3, then PG and WP;
	 * PGE only once paging is on (SDM Vol. 3A 2.5, CR4.PGE). */
	cr4 = read_cr4() & ~(CR4_PSE | CR4_PAE | CR4_PGE);
	/* SMAP/SMEP off should a loader have left them on: the kernel writes
	 * user pages through the window (boot/proc.c) without STAC. */
	cr4 &= ~(CR4_SMAP | CR4_SMEP);
	if (f->pae)
		cr4 |= CR4_PAE;		/* PAE has 2M pages without PSE */
	else if (f->large)
		cr4 |= CR4_PSE;
	write_cr4(cr4);
	if (i386_nx_on)
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
		 (unsigned long)map_end - 1, i386_nx_on ? "on" : "off",
		 pge_on ? "on (0 .. image end)" : "off");
}

static const struct mmu_ops i386_ops = {
	.enter = enter, .leave = leave_paging,
	.map = i386_map, .unmap = i386_unmap, .protect = i386_protect, .query = i386_query,
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

/* The last fault, to catch a hook that fixes nothing; forgotten at each
 * entry to user mode (a forked child faults where its parent did). */
static uintptr_t last_addr, last_eip;
static int repeats;

void i386_page_fault_forget(void)
{
	last_addr = last_eip = 0;
	repeats = 0;
}

/* 1 when the fault was a probe's (its hook mapped or unprotected the page). */
int i386_page_fault(struct i386_frame *f)
{
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
