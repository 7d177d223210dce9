/* MMU modes of the e500: its TLBs, its modes and its faults.
 *
 *   real      the boot translation (tlb.c): one TLB1 entry over RAM 1:1,
 *             what Book-E has instead of translation off: no TLB misses
 *   normal    RAM in 4K PTEs refilled into TLB0 by our miss handlers, the
 *             kernel's pages too; TLB1 pins only the vectors' 4 KiB
 *   pinned    as normal, plus pins=N (default 2) 16 MB TLB1 entries over
 *             the low N x 16 MB: the kernel pinned, as Linux's CAM entries
 *   largepte  RAM in lpsize pages (default 16m) that the miss handler
 *             loads from directory leaves into TLB1, round robin over the
 *             unpinned entries; the one holding the vectors stays
 *
 * Book-E takes interrupts translated, so the code of the miss handlers
 * and the common path's entry and exit must never miss: every translated
 * mode pins the image's first 4 KiB, where the linker script keeps them
 * alone (vectors.S; their data they reach through address space 1, as
 * the 405's handlers run untranslated).  Nothing else of the kernel is
 * pinned in normal: its text, data, stack and heap take TLB0 misses as
 * the probes' pages do.  Where a mode's own entry covers the vectors
 * (pinned's 16 MB, largepte's large page holding them: written at entry
 * and kept, since no other entry may overlap it), that is their pin.  A
 * change under a mode's pin drops it (as the 405 does; largepte's page
 * first becomes 4K PTEs) and the vectors get their own 4 KiB pin, which
 * never goes.  Pins are IPROT: tlbivax and flash invalidation keep them.
 * TLB1 is rewritten from address space 1 (MSR[IS,DS] = 1, where
 * TLB1's top entries map RAM: tlb.c), since the entries we run in change.
 *
 * User mode (user.c) runs in AS 0 as the kernel does: the window's PTEs
 * carry UR/UW/UX, everything else (the kernel's PTEs, large pages, the
 * pins) only SR/SW/SX.  Mode real's boot entry has both, unprotected.
 *
 * Address spaces: PID tags (8 bits).  The window's directory word points
 * at the current space's table; its TLB entries carry TID = PID, every
 * other entry TID 0 (the handlers clear it), so a switch is a PID write.
 */
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "boot_info.h"
#include "mmu_arch.h"
#include "pagetable.h"
#include "report.h"

#define PIN_SIZE	(16u << 20)
#define MAX_PINS	(ESEL_AS1_LOWEST - ESEL_PINS - 1)	/* one TLB1 entry left for large pages */

extern uint32_t e500_mmu_state[MMU_STATE_BYTES / 4];
extern uint8_t e500_tlb0_victim[TLB0_SETS];
extern char __vectors_pin_end[];
#define STATE(off)	e500_mmu_state[(MMU_STATE_BYTES + (off)) / 4]

enum { V_NORMAL, V_PINNED, V_LARGE };
struct e500_opts e500_opt = { .pins = 2, .lpsize = TSIZE_16M };
static struct e500_pin pins[MAX_PINS];
static unsigned npins, mode_pins, active_lp, default_tables;
static int tagged_spaces;

static unsigned tsize_of(uint32_t bytes)
{
	unsigned s = 1;
	while (tsize_bytes(s) < bytes)
		s++;
	return s;
}

/* ---- pins ---- */

static void add_pin(uint32_t base, uint32_t size, int kind)
{
	pins[npins++] = (struct e500_pin){ base, size, kind };
}

int e500_pin_covering(uint32_t a, uint32_t len)
{
	for (unsigned i = 0; i < npins; i++)
		if (a < pins[i].base + pins[i].size && pins[i].base < a + len)
			return i;
	return -1;
}

/* A large page of largepte that is exactly the pin at a: its leaf may
 * stay in the directory (the pin is that leaf's one TLB1 entry). */
int e500_leaf_pinned(uint32_t a, uint32_t size)
{
	int i = e500_pin_covering(a, size);
	return i >= 0 && pins[i].base == a && pins[i].size == size && pins[i].kind == E500_PIN_LEAF;
}

/* The vectors' own pin, where no pin of the mode covers them: the image's
 * first page (the linker script ends .vectors there). */
static void add_vectors_pin(void)
{
	uint32_t base = (uint32_t)__image_start, len = (uint32_t)__vectors_pin_end - base;

	if (e500_pin_covering(base, len) < 0)
		add_pin(base, tsize_bytes(tsize_of(len)), E500_PIN_VECTORS);
}

/* TLB1 as the pin table says, from address space 1: the boot RAM entry
 * and every old pin and large page gone, the pins written, TLB0 empty. */
static void write_pins(int boot_entry)
{
	uint32_t msr = mfmsr();

	mtmsr((msr & ~MSR_EE) | MSR_IS | MSR_DS);
	for (unsigned e = 0; e < e500_ram.as1_first; e++)
		if (e != ESEL_CCSR)
			e500_tlbwe(MAS0_TLBSEL1 | MAS0_ESEL(e), 0, 0, 0, 0);
	if (boot_entry)
		e500_write_ram(0);
	for (unsigned i = 0; i < npins; i++) {
		e500_tlbwe(MAS0_TLBSEL1 | MAS0_ESEL(ESEL_PINS + i),
			   MAS1_V | MAS1_IPROT | MAS1_TSIZE(tsize_of(pins[i].size)), pins[i].base,
			   pins[i].base | MAS3_SX | MAS3_SW | MAS3_SR, 0);
		mmu_count.tlb_writes++;
	}
	mtspr(SPR_MMUCSR0, 4);				/* TLB0 flash invalidate */
	while (mfspr(SPR_MMUCSR0) & 4)
		;
	STATE(MMU_RRFIRST_OFF) = STATE(MMU_RRNEXT_OFF) = ESEL_PINS + npins;
	mmu_count.flushes++;
	mtmsr(msr);
}

/* A change under mode pinned's pin i: it goes (the handlers' own pins take
 * over what it covered of theirs). */
int e500_pin_drop(int i)
{
	if (pins[i].kind == E500_PIN_VECTORS) {
		report_diag("error: %s: 0x%08lx-0x%08lx holds the interrupt vectors, pinned: "
			    "its mapping cannot change", mmu_current ? mmu_current->name : "mmu",
			    (unsigned long)pins[i].base, (unsigned long)(pins[i].base + pins[i].size - 1));
		return -1;
	}
	/* largepte's page: 4K PTEs first, so that no miss loads the leaf over
	 * the vectors' own pin once this one has gone. */
	if (pins[i].kind == E500_PIN_LEAF && e500_demote(pins[i].base) < 0)
		return -1;
	mode_pins -= pins[i].kind == E500_PIN_MODE;
	pins[i] = pins[--npins];
	add_vectors_pin();
	write_pins(0);
	return 0;
}

/* ---- modes ---- */

static void do_flush_all(void)
{
	__asm__ volatile("msync");
	mtspr(SPR_MMUCSR0, 6);		/* TLB0 and TLB1 flash invalidate: IPROT pins stay */
	while (mfspr(SPR_MMUCSR0) & 6)
		;
	__asm__ volatile("isync");
	STATE(MMU_RRNEXT_OFF) = STATE(MMU_RRFIRST_OFF);
	mmu_count.flushes++;
}

static int translated_enter(const struct mmu_mode *m)
{
	npins = mode_pins = 0;
	active_lp = m->variant == V_LARGE ? e500_opt.lpsize : 0;
	if (m->variant == V_PINNED)
		for (unsigned k = 0; k < e500_opt.pins && (uint64_t)(k + 1) * PIN_SIZE <= boot_info.ram_bytes; k++)
			add_pin(k * PIN_SIZE, PIN_SIZE, E500_PIN_MODE), mode_pins++;
	if (active_lp) {
		uint32_t lsz = tsize_bytes(active_lp), a = (uint32_t)__image_start & ~(lsz - 1);
		if ((uint64_t)a + lsz <= boot_info.ram_bytes)
			add_pin(a, lsz, E500_PIN_LEAF);	/* the vectors' large page */
	}
	add_vectors_pin();
	if (e500_build_default(active_lp, &default_tables) < 0)
		return -1;
	for (unsigned i = 0; i < WINDOW_SLOTS; i++)
		e500_pgd[WINDOW_SLOT + i] = (uint32_t)e500_empty_table;
	mtspr(SPR_MAS4, MAS1_TSIZE(TSIZE_4K));	/* a miss fills MAS for TLB0, 4K, TID = PID */
	mtspr(SPR_SPRG3, (uint32_t)e500_pgd);
	mtspr(SPR_PID, 0);
	memset(e500_tlb0_victim, 0, sizeof(e500_tlb0_victim));	/* runs repeat */
	write_pins(0);
	return 0;
}

static void translated_leave(void)
{
	npins = mode_pins = 0;
	write_pins(1);			/* the boot translation back */
	mtspr(SPR_PID, 0);
	__asm__ volatile("isync");
}

extern char e500_ivor13[], e500_dtlb_rfi[], e500_walk_loop[], e500_walk_loop_end[];
uint32_t e500_walk_pass(uintptr_t base, uint32_t pages, uint32_t warm, uint32_t *ticks);

/* TLB0 is what the 4K walk fills; mode pinned's entries are TLB1's and
 * leave TLB0 whole, but the walk goes above them.  The miss path: a
 * kernel page's 4K miss runs every instruction from the vector to its
 * rfi once. */
static void tlb_info(struct mmu_tlb_info *t)
{
	t->refill = MMU_REFILL_SOFTWARE;
	t->entries = mfspr(SPR_TLB0CFG) & 0xfff;
	t->ways = mfspr(SPR_TLB0CFG) >> 24;
	t->pinned = mode_pins;
	t->pinned_end = mode_pins * PIN_SIZE;
	t->page_sizes = 1u << 12 | (active_lp ? tsize_bytes(active_lp) : 0) | (mode_pins ? PIN_SIZE : 0);
	t->miss_path = (e500_dtlb_rfi - e500_ivor13) / 4 + 1;
	t->space_switch = MMU_SWITCH_TAGGED;
	t->counts = MMU_COUNTS_TLB_MISSES | MMU_COUNTS_FAULTS | MMU_COUNTS_TLB_WRITES |
		    MMU_COUNTS_FLUSHES | MMU_COUNTS_KERNEL_MISSES;
	t->walk = e500_walk_pass;
	t->walk_loop_instructions = (e500_walk_loop_end - e500_walk_loop) / 4;
}

void mmu_arch_untranslated_tlb(struct mmu_tlb_info *t)
{
	t->walk = e500_walk_pass;
	t->walk_loop_instructions = (e500_walk_loop_end - e500_walk_loop) / 4;
}

static void figures(struct mmu_figures *f)
{
	f->pagetable_bytes = (2 + default_tables) * PAGE;	/* directory, empty table, tables */
	f->mapped_bytes = boot_info.ram_bytes;
	snprintf(f->summary, sizeof(f->summary), "1:1 map of RAM 0x00000000-0x%08lx in %s pages, "
		 "%u TLB1 entries pinned (%u of them the mode's)", (unsigned long)boot_info.ram_bytes - 1,
		 active_lp ? (active_lp == TSIZE_4M ? "4m" : active_lp == TSIZE_16M ? "16m" : "64m") : "4k",
		 npins, mode_pins);
}

unsigned mmu_arch_check_samples(void)
{
	return 0;		/* MSR[DS] toggles cheaply: every page */
}

/* ---- address spaces ---- */

_Static_assert(WINDOW_SLOT == MMU_SPACE_BASE >> 22 && WINDOW_SLOTS == MMU_SPACE_SIZE >> 22 &&
	       WINDOW_TOP8 == MMU_SPACE_BASE >> 24 && MMU_SPACE_SIZE == 16u << 20,
	       "the miss handlers' window test: EA >> 24");

static int space_init(struct mmu_space *s)
{
	if (!(s->flags & MMU_SPACE_FLUSH) && s->id > 255) {
		report_diag("error: the e500's PID has 8 bits: no tag for space %d", s->id);
		return -1;
	}
	s->window[0] = mmu_table_alloc();
	if (!s->window[0])
		return -1;
	tagged_spaces += !(s->flags & MMU_SPACE_FLUSH);
	return 0;
}

/* Tagged: PID = the space's id, whose window entries the handler writes
 * with that TID; untagged spaces use PID 0 and flush on every switch. */
static void space_switch(struct mmu_space *s)
{
	struct mmu_space *old = mmu_current_space;
	int flush = (old && (old->flags & MMU_SPACE_FLUSH)) || (s && (s->flags & MMU_SPACE_FLUSH));
	int tagged = s && !(s->flags & MMU_SPACE_FLUSH);

	for (unsigned i = 0; i < WINDOW_SLOTS; i++)
		e500_pgd[WINDOW_SLOT + i] = s && s->window[i] ? s->window[i] : (uint32_t)e500_empty_table;
	__asm__ volatile("msync");
	if (flush)
		do_flush_all();
	mtspr(SPR_PID, tagged ? s->id : 0);
	__asm__ volatile("isync");
}

static void space_fini(struct mmu_space *s)
{
	for (unsigned i = 0; i < WINDOW_SLOTS; i++) {	/* its entries, any TID, where it has tables */
		if (!s->window[i])
			continue;
		e500_tlb_invalidate(MMU_SPACE_BASE + (i << 22), 4u << 20);
		mmu_table_free(s->window[i]);
	}
	tagged_spaces -= !(s->flags & MMU_SPACE_FLUSH);
}

/* The handlers pick TLB0's victims for a 512-entry 4-way TLB0. */
static const char *unavailable(const struct mmu_mode *m)
{
	static char why[120];
	uint32_t cfg = mfspr(SPR_TLB0CFG);

	(void)m;
	if ((cfg & 0xfff) == TLB0_SETS * TLB0_WAYS && cfg >> 24 == TLB0_WAYS)
		return 0;
	snprintf(why, sizeof(why), "TLB0CFG 0x%08lx: not the 512-entry 4-way TLB0 the miss "
		 "handlers choose victims for", (unsigned long)cfg);
	return why;
}

static const struct mmu_ops e500_ops = {
	.enter = translated_enter, .leave = translated_leave,
	.map = e500_map, .unmap = e500_unmap, .protect = e500_protect, .query = e500_query,
	.flush_all = do_flush_all,
	.space_init = space_init, .space_switch = space_switch, .space_fini = space_fini,
	.tlb_info = tlb_info, .figures = figures, .check_word = e500_check_word,
	.explain = e500_explain, .unavailable = unavailable,
};

static const struct mmu_mode mode_real = { "real",
	"the boot translation: one TLB1 entry maps RAM 1:1 (Book-E has no real mode)", 0, 0 };
static const struct mmu_mode mode_normal = { "normal",
	"4K PTEs refilled into TLB0, the kernel's too; TLB1 pins only the vectors' 4 KiB",
	&e500_ops, V_NORMAL };
static const struct mmu_mode mode_pinned = { "pinned",
	"4K PTEs, plus pins=N 16M TLB1 entries over the low N x 16M (the kernel pinned)",
	&e500_ops, V_PINNED };
static const struct mmu_mode mode_large = { "largepte",
	"RAM in lpsize pages (default 16m) loaded into TLB1 by the miss handler, round robin; "
	"the one holding the vectors kept",
	&e500_ops, V_LARGE };

const struct mmu_mode *const mmu_modes[] = { &mode_real, &mode_normal, &mode_pinned, &mode_large, 0 };

/* ---- faults (exceptions.c) ---- */

int e500_mmu_fault(struct e500_frame *f)
{
	uintptr_t resume;
	int r;

	if (!mmu_current)
		return 0;
	switch (f->vector) {
	case 13:		/* data TLB miss with no PTE: a page fault */
		mmu_count.page_faults++;
		r = mmu_call_fault_hook(f->dear, !!(f->esr & ESR_ST), 0, f->srr0, &resume);
		break;
	case 14:		/* instruction TLB miss with no PTE */
		mmu_count.page_faults++;
		r = mmu_call_fault_hook(f->srr0, 0, 0, f->srr0, &resume);
		break;
	case 2:			/* data storage: a store to a page without SW */
		mmu_count.prot_faults++;
		r = mmu_call_fault_hook(f->dear, !!(f->esr & ESR_ST), 1, f->srr0, &resume);
		break;
	case 3:			/* instruction storage: a fetch from a page without SX */
		mmu_count.prot_faults++;
		r = mmu_call_fault_hook(f->srr0, 0, 1, f->srr0, &resume);
		break;
	default:
		return 0;
	}
	mtspr(SPR_ESR, 0);
	if (r == MMU_FAULT_SKIP)
		f->srr0 = resume;
	return r != 0;
}

/* Before any mode: the directory valid (a stray miss takes the slow
 * path), the handler's state set. */
void e500_mmu_init(void)
{
	for (unsigned i = 0; i < 1024; i++)
		e500_pgd[i] = (uint32_t)e500_empty_table;
	STATE(MMU_RRFIRST_OFF) = STATE(MMU_RRNEXT_OFF) = ESEL_PINS;
	STATE(MMU_RRLIMIT_OFF) = e500_ram.as1_first;
	mtspr(SPR_SPRG3, (uint32_t)e500_pgd);
	mtspr(SPR_MAS4, MAS1_TSIZE(TSIZE_4K));
}
