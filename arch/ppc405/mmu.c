/* MMU modes of the 405: its TLB, its modes and its faults.
 *
 *   real      MSR[IR,DR] = 0: the baseline
 *   normal    every page a 4K PTE, nothing pinned ("nopintlb")
 *   pinned    as normal, plus pins=N (default 2) 16 MB entries in the top
 *             TLB slots over the low N x 16 MB, never chosen as victims
 *   largepte  RAM in lpsize pages (default 16m) that the miss handler loads
 *             straight from the table: 4m/16m as directory leaves, smaller
 *             sizes as one large entry repeated in each 4K PTE it covers
 *
 * The page table is Linux-405-like (vectors.S explains the entry format):
 * a 1024-word directory (one word per 4 MiB) and 4 KiB tables of 1024
 * PTEs; a PTE is the TLBLO word, its zone field = 2*SIZE+1.  Tables come
 * from the core's pool (boot/mmu.c).  Address spaces share the directory:
 * switching one in points the window's directory word at its table and
 * loads PID with its id (TID-tagged entries, no flush), or flushes the TLB
 * (MMU_SPACE_FLUSH).
 *
 * Here: the TLB, spaces, entering and leaving the modes, faults; the
 * page table's entries and the default mapping are pagetable.c's.
 */
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "boot_info.h"
#include "config.h"
#include "mmu_arch.h"
#include "pagetable.h"
#include "ppc405.h"
#include "report.h"

#define PIN_SIZE	(16u << 20)
#define WINDOW_SLOT	(MMU_SPACE_BASE >> 22)
#define WINDOW_SLOTS	(MMU_SPACE_SIZE >> 22)
_Static_assert(MMU_SPACE_BASE >> 24 == PPC405_WINDOW_TOP8 && MMU_SPACE_SIZE == 16u << 20,
	       "the miss handlers' window test: EA >> 24");

extern uint32_t ppc405_mmu_state[MMU_STATE_BYTES / 4];
#define STATE(off)	ppc405_mmu_state[(MMU_STATE_BYTES + (off)) / 4]

enum { V_NORMAL, V_PINNED, V_LARGE };
unsigned ppc405_active_pins;			/* the mode's pinned slots (pagetable.h) */
static unsigned active_size;			/* the mode's page size code */
static uint32_t dumped;				/* tlbdump done, a bit per variant */
static int active_variant, tagged_spaces;

unsigned ppc405_pinned_slots(void) { return ppc405_active_pins; }

/* PID = the current space's id, made effective by an rfi to the next
 * instruction: context-synchronizing as isync is on the 405, and QEMU 7.2
 * drops its cached translations for the old PID only at an rfi or an
 * exception, not at isync. */
void ppc405_pid_restore(void)
{
	uint32_t tmp;

	__asm__ volatile(
		"mtspr	945, %1\n\t"		/* PID */
		"mfmsr	%0\n\t"
		"mtsrr1	%0\n\t"		/* rfi keeps the MSR ... */
		"bl	1f\n"
		"1:	mflr	%0\n\t"
		"addi	%0, %0, 16\n\t"	/* ... and goes on after itself */
		"mtsrr0	%0\n\t"
		"rfi\n\t"
		: "=&r"(tmp) : "r"(STATE(MMU_PID_OFF)) : "lr", "memory");
}

/* Every unpinned slot, whatever its TID. */
static void do_flush_all(void)
{
	__asm__ volatile("sync");
	for (unsigned i = 0; i < TLB_SLOTS - ppc405_active_pins; i++)
		tlbwe_hi(i, 0);
	__asm__ volatile("isync");
	mmu_count.flushes++;
}

/* Toggling MSR[DR] costs a few instructions: the self-check takes every
 * page of the image and the tables, and every 64th of probe memory. */
unsigned mmu_arch_check_samples(void)
{
	return 0;
}

/* ---- address spaces ---- */

static int space_init(struct mmu_space *s)
{
	if (!(s->flags & MMU_SPACE_FLUSH) && s->id > 255) {
		report_diag("error: the 405's PID has 8 bits: no tag for space %d", s->id);
		return -1;
	}
	s->window[0] = mmu_table_alloc();
	if (!s->window[0])
		return -1;
	if (!(s->flags & MMU_SPACE_FLUSH) && tagged_spaces++ == 0)
		ppc405_install_miss_handlers(1);
	return 0;
}

/* Tagged: the window's word marked private, PID = the space's id; the
 * kernel part keeps TID 0, so no flush.  Untagged spaces load their window
 * with TID 0 like the kernel part: a switch from or to one flushes. */
static void space_switch(struct mmu_space *s)
{
	struct mmu_space *old = mmu_current_space;
	int flush = (old && (old->flags & MMU_SPACE_FLUSH)) || (s && (s->flags & MMU_SPACE_FLUSH));
	int tagged = s && !(s->flags & MMU_SPACE_FLUSH);

	for (unsigned i = 0; i < WINDOW_SLOTS; i++) {
		uint32_t t = s && s->window[i] ? s->window[i] : (uint32_t)ppc405_empty_table;
		ppc405_pgd[WINDOW_SLOT + i] = t | (tagged ? DIR_PRIVATE : 0);
	}
	__asm__ volatile("sync");
	STATE(MMU_PID_OFF) = tagged ? s->id : 0;
	if (flush)
		do_flush_all();
	ppc405_pid_restore();
}

static void space_fini(struct mmu_space *s)
{
	ppc405_tlb_invalidate(MMU_SPACE_BASE, MMU_SPACE_SIZE, 0);	/* its entries, any TID */
	for (unsigned i = 0; i < WINDOW_SLOTS; i++)
		if (s->window[i])
			mmu_table_free(s->window[i]);
	if (!(s->flags & MMU_SPACE_FLUSH) && --tagged_spaces == 0)
		ppc405_install_miss_handlers(0);
}

/* ---- modes ---- */

static void translated_leave(void)
{
	mtmsr(mfmsr() & ~(MSR_IR | MSR_DR));
	if (ppc405_opt.tlbdump && !(dumped & (1u << active_variant))) {
		dumped |= 1u << active_variant;
		ppc405_tlbdump(mmu_current->name);
	}
}

static int translated_enter(const struct mmu_mode *m)
{
	unsigned pins = m->variant == V_PINNED ? ppc405_opt.pins : 0;

	active_variant = m->variant;
	active_size = m->variant == V_LARGE ? ppc405_opt.lpsize : SZ_4K;
	if (ppc405_build_default(active_size) < 0)
		return -1;
	/* Empty TLB, every entry TID 0, then the pinned entries at the top. */
	__asm__ volatile("sync; tlbia; isync" ::: "memory");
	mmu_count.flushes++;
	STATE(MMU_PID_OFF) = 0;
	ppc405_pid_restore();
	ppc405_active_pins = pins;
	for (unsigned k = 0; k < pins && (uint64_t)(k + 1) * PIN_SIZE <= boot_info.ram_bytes; k++) {
		unsigned slot = TLB_SLOTS - 1 - k;
		tlbwe_lo(slot, k * PIN_SIZE | ppc405_lo_bits(MMU_READ | MMU_WRITE | MMU_EXEC) |
			 ZONE_OF_SIZE(SZ_16M));
		tlbwe_hi(slot, k * PIN_SIZE | (SZ_16M << 7) | TLBHI_V);
		mmu_count.tlb_writes++;
	}
	/* Victim state for the miss handlers. */
	STATE(MMU_RRTOP_OFF) = TLB_SLOTS - 1 - pins;
	STATE(MMU_NSLOTS_OFF) = TLB_SLOTS - pins;
	STATE(MMU_RAND_OFF) = 0x2545f491u;		/* fixed seed: runs repeat */
	mtspr(277, ppc405_opt.random ? 0xc0000000u | (TLB_SLOTS - 1 - pins) : TLB_SLOTS - 1 - pins);
	mtspr(SPR_ZPR, PPC405_ZPR);			/* user zone 1, the rest kernel only */
	mtspr(275, (uint32_t)ppc405_pgd);		/* SPRG3: the directory */
	__asm__ volatile("isync");
	mtmsr(mfmsr() | MSR_IR | MSR_DR);
	return 0;
}

extern char ppc405_dtlb_miss[], ppc405_dtlb_rfi[], ppc405_dtlb_miss_tagged[], ppc405_dtlb_rfi_tagged[];
extern char ppc405_walk_loop[], ppc405_walk_loop_end[];
uint32_t ppc405_walk_pass(uintptr_t base, uint32_t pages, uint32_t warm, uint32_t *ticks);

/* Miss paths, vector to rfi, counted from the code: the path for a kernel
 * page's 4K PTE executes every instruction in between exactly once but the
 * window's size fix (one ori, vectors.S), which only user-window pages run. */
static void tlb_info(struct mmu_tlb_info *t)
{
	t->refill = MMU_REFILL_SOFTWARE;
	t->entries = TLB_SLOTS;
	t->pinned = ppc405_active_pins;
	t->pinned_end = ppc405_active_pins * PIN_SIZE < boot_info.ram_bytes ? ppc405_active_pins * PIN_SIZE
								      : boot_info.ram_bytes;
	t->page_sizes = 1u << 12 | 1u << (10 + 2 * active_size) | (ppc405_active_pins ? 1u << 24 : 0);
	t->miss_path = tagged_spaces ? (ppc405_dtlb_rfi_tagged - ppc405_dtlb_miss_tagged) / 4
				     : (ppc405_dtlb_rfi - ppc405_dtlb_miss) / 4;
	t->space_switch = MMU_SWITCH_TAGGED;
	t->counts = MMU_COUNTS_TLB_MISSES | MMU_COUNTS_FAULTS | MMU_COUNTS_TLB_WRITES |
		    MMU_COUNTS_FLUSHES | MMU_COUNTS_KERNEL_MISSES;
	t->walk = ppc405_walk_pass;
	t->walk_loop_instructions = (ppc405_walk_loop_end - ppc405_walk_loop) / 4;
}

/* Real mode: no TLB in use, but the walk still counts (none). */
void mmu_arch_untranslated_tlb(struct mmu_tlb_info *t)
{
	t->walk = ppc405_walk_pass;
	t->walk_loop_instructions = (ppc405_walk_loop_end - ppc405_walk_loop) / 4;
}

static void figures(struct mmu_figures *f)
{
	static const char *const sizes[] = { "", "4k", "16k", "64k", "256k", "1m", "4m", "16m" };

	f->pagetable_bytes = 2 * PAGE;	/* the directory, the shared empty table */
	f->mapped_bytes = boot_info.ram_bytes + PAGE;
	snprintf(f->summary, sizeof(f->summary), "1:1 map of RAM 0x00000000-0x%08lx in %s pages "
		 "+ UART page I|G, %u pinned", (unsigned long)boot_info.ram_bytes - 1,
		 sizes[active_size], ppc405_active_pins);
}

static const struct mmu_ops ppc405_ops = {
	.enter = translated_enter, .leave = translated_leave,
	.map = ppc405_map, .unmap = ppc405_unmap, .protect = ppc405_protect, .query = ppc405_query,
	.flush_all = do_flush_all,
	.space_init = space_init, .space_switch = space_switch, .space_fini = space_fini,
	.tlb_info = tlb_info, .figures = figures, .check_word = ppc405_check_word,
	.explain = ppc405_explain,
};

static const struct mmu_mode mode_real = { "real", "translation off (MSR[IR,DR] = 0)", 0, 0 };
static const struct mmu_mode mode_normal = { "normal",
	"4K PTEs for everything, no TLB slot pinned (nopintlb)", &ppc405_ops, V_NORMAL };
static const struct mmu_mode mode_pinned = { "pinned",
	"4K PTEs, pins=N 16M entries pinned in the top TLB slots (2pintlb)", &ppc405_ops, V_PINNED };
static const struct mmu_mode mode_large = { "largepte",
	"RAM in lpsize pages (default 16m) loaded by the miss handler", &ppc405_ops, V_LARGE };

const struct mmu_mode *const mmu_modes[] = { &mode_real, &mode_normal, &mode_pinned,
					      &mode_large, 0 };

/* ---- faults (exceptions.c) ---- */

int ppc405_mmu_fault(struct ppc405_frame *f)
{
	uintptr_t resume;
	int r;

	if (!mmu_current)
		return 0;
	switch (f->vector) {
	case 0x1100:		/* DTLB miss with no PTE: page fault */
		mmu_count.page_faults++;
		r = mmu_call_fault_hook(f->dear, !!(f->esr & ESR_DST), 0, f->srr0, &resume);
		break;
	case 0x1200:		/* ITLB miss with no PTE */
		mmu_count.page_faults++;
		r = mmu_call_fault_hook(f->srr0, 0, 0, f->srr0, &resume);
		break;
	case 0x300:		/* a store to a page without WR */
		if (f->esr & ESR_DIZ)
			return 0;
		mmu_count.prot_faults++;
		r = mmu_call_fault_hook(f->dear, !!(f->esr & ESR_DST), 1, f->srr0, &resume);
		break;
	case 0x400:		/* a fetch from a page without EX */
		mmu_count.prot_faults++;
		r = mmu_call_fault_hook(f->srr0, 0, 1, f->srr0, &resume);
		break;
	default:
		return 0;
	}
	mtspr(SPR_ESR, 0);	/* QEMU ORs into ESR: start clean */
	if (r == MMU_FAULT_SKIP)
		f->srr0 = resume;
	return r != 0;
}

/* Before any mode: the directory valid (a stray translated access takes
 * the slow path), the handler's state set, every TLB entry invalid with
 * TID 0 (the TLB is undefined at power-on; tlbia clears only V). */
void ppc405_mmu_init(void)
{
	for (unsigned i = 0; i < 1024; i++)
		ppc405_pgd[i] = (uint32_t)ppc405_empty_table;
	STATE(MMU_RRTOP_OFF) = TLB_SLOTS - 1;
	STATE(MMU_NSLOTS_OFF) = TLB_SLOTS;
	STATE(MMU_PID_OFF) = 0;
	mtspr(277, TLB_SLOTS - 1);			/* SPRG5: first victim */
	mtspr(275, (uint32_t)ppc405_pgd);		/* SPRG3 */
	mtspr(SPR_PID, 0);				/* tlbwe takes TID from PID */
	mtspr(SPR_ZPR, PPC405_ZPR);
	__asm__ volatile("sync; isync" ::: "memory");
	for (unsigned i = 0; i < TLB_SLOTS; i++) {
		tlbwe_lo(i, 0);
		tlbwe_hi(i, 0);
	}
	__asm__ volatile("isync" ::: "memory");
}
