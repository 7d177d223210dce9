/* MMU modes of the 405: its page-table format, its TLB and its faults.
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
 */
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "boot_info.h"
#include "config.h"
#include "mmu_arch.h"
#include "ppc405.h"
#include "report.h"

#define PAGE		4096u
#define PIN_SIZE	(16u << 20)
#define ZONE_OF_SIZE(s)	((2u * (s) + 1) << 4)	/* zone field carries SIZE */
#define SIZE_OF(e)	(((e) >> 5) & 7)		/* SIZE code from an entry */
#define LEAF(e)		((e) & 0x10u)			/* odd zone: a mapping */
#define TABLE(e)	((uint32_t *)((e) & ~0xfffu))	/* a directory word's table */
#define SZ_4K		1
#define SZ_4M		6
#define SZ_16M		7
#define WINDOW_SLOT	(MMU_SPACE_BASE >> 22)

static unsigned size_bytes(unsigned s) { return 1024u << (2 * s); }

extern uint32_t ppc405_mmu_state[MMU_STATE_BYTES / 4];
#define STATE(off)	ppc405_mmu_state[(MMU_STATE_BYTES + (off)) / 4]

/* All-zero: the table of every unmapped 4 MiB, so the handler never needs
 * a "no table" test. */
static uint32_t empty_table[1024] __attribute__((aligned(4096)));


enum { V_NORMAL, V_PINNED, V_LARGE };
static unsigned active_pins, active_size;	/* the mode's pins and page size code */
static uint32_t dumped;				/* tlbdump done, a bit per variant */
static int active_variant, tagged_spaces;

unsigned ppc405_pinned_slots(void) { return active_pins; }

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

/* ---- the page table ---- */

/* The PTE slot of va, making a table if `create`; 0 when there is none,
 * the region is a large-page leaf (callers demote first), or the pool ran
 * dry (the core said so). */
static uint32_t *pte_slot(uint32_t va, int create)
{
	uint32_t *dir = &ppc405_pgd[va >> 22];

	if (LEAF(*dir))
		return 0;
	if (TABLE(*dir) == empty_table) {
		uint32_t *t = create ? (uint32_t *)mmu_table_alloc() : 0;
		if (!t)
			return 0;
		*dir = (uint32_t)t;
	}
	return TABLE(*dir) + ((va >> 12) & 1023);
}

uint32_t *ppc405_pte(uint32_t va) { return pte_slot(va, 0); }

static uint32_t lo_bits(unsigned attr)
{
	uint32_t lo = TLBLO_M;		/* M: no effect on the 405, keeps PTEs non-zero */
	if (attr & MMU_WRITE) lo |= TLBLO_WR;
	if (attr & MMU_EXEC) lo |= TLBLO_EX;
	if (attr & MMU_UNCACHED) lo |= TLBLO_I;
	if (attr & MMU_GUARDED) lo |= TLBLO_G;
	return lo;
}

/* Invalidate every TLB entry overlapping [va, va+len), whatever its TID;
 * pinned ones too when `pinned_too` (a mapping under a pin changed). */
static void tlb_invalidate(uint32_t va, uint32_t len, int pinned_too)
{
	unsigned top = pinned_too ? TLB_SLOTS : TLB_SLOTS - active_pins;
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
		*pte_slot(base + off, 0) = ((e & ~(sz - 1) & 0xfffffc00u) + off) | (e & 0x30fu) |
					   ZONE_OF_SIZE(SZ_4K);
}

/* Turn the large page holding va into 4K PTEs with the same rights. */
static int demote(uint32_t va)
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
		uint32_t *p = pte_slot(va, 0);
		if (!p || !*p || SIZE_OF(*p) == SZ_4K)
			return 0;
		e = *p;
		sz = size_bytes(SIZE_OF(e));
		base = va & ~(sz - 1);
	}
	split_entry(e, base, sz);
	tlb_invalidate(base, sz, 1);
	return 0;
}

/* Each 4K page of [va, va+len): demote what covers it, then set its PTE
 * (unmap: attr < 0; protect: keep the frame, must be mapped). */
static int change(uintptr_t va, uintptr_t pa, size_t len, int attr, int keep_frame)
{
	if ((va | pa | len) & (PAGE - 1))
		return -1;
	for (size_t off = 0; off < len; off += PAGE) {
		if (demote(va + off) < 0)
			return -1;
		uint32_t *p = pte_slot(va + off, attr >= 0 && !keep_frame);
		if (attr < 0) {
			if (p)
				*p = 0;
			continue;
		}
		if (!p || (keep_frame && !*p))
			return -1;	/* pool dry, or nothing to protect */
		uint32_t frame = keep_frame ? *p & 0xfffff000u : pa + off;
		*p = frame | lo_bits(attr) | ZONE_OF_SIZE(SZ_4K);
	}
	tlb_invalidate(va, len, 1);
	return 0;
}

static int do_map(uintptr_t va, uintptr_t pa, size_t len, unsigned attr)
{
	return change(va, pa, len, attr, 0);
}
static int do_unmap(uintptr_t va, size_t len) { return change(va, 0, len, -1, 0); }
static int do_protect(uintptr_t va, size_t len, unsigned attr) { return change(va, 0, len, attr, 1); }

static int do_query(uintptr_t va, uintptr_t *pa, unsigned *attr)
{
	uint32_t dir = ppc405_pgd[va >> 22], *p = pte_slot(va, 0);
	uint32_t e = LEAF(dir) ? dir : p ? *p : 0;

	if (!LEAF(e))
		return -1;
	uint32_t sz = size_bytes(SIZE_OF(e));
	*pa = (e & 0xfffffc00u & ~(sz - 1)) | (va & (sz - 1));
	*attr = MMU_READ | (e & TLBLO_WR ? MMU_WRITE : 0) | (e & TLBLO_EX ? MMU_EXEC : 0) |
		(e & TLBLO_I ? MMU_UNCACHED : 0) | (e & TLBLO_G ? MMU_GUARDED : 0);
	return 0;
}

/* Every unpinned slot, whatever its TID. */
static void do_flush_all(void)
{
	__asm__ volatile("sync");
	for (unsigned i = 0; i < TLB_SLOTS - active_pins; i++)
		tlbwe_hi(i, 0);
	__asm__ volatile("isync");
	mmu_count.flushes++;
}

/* The default mapping: RAM 1:1 in pages of size code `s`, the UART page. */
static int build_default(unsigned s)
{
	uint32_t ram = boot_info.ram_bytes, sz = size_bytes(s);
	const uint32_t rwx = lo_bits(MMU_READ | MMU_WRITE | MMU_EXEC);

	for (unsigned i = 0; i < 1024; i++)
		ppc405_pgd[i] = (uint32_t)empty_table;
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
		uint32_t *t = pte_slot(a, 1);
		if (!t)
			return -1;
		for (unsigned i = 0; i < 1024; i++) {
			uint32_t page = a + i * PAGE;
			t[i] = page < large_end ? (page & ~(psz - 1)) | rwx | ZONE_OF_SIZE(ps)
			     : page < ram ? page | rwx | ZONE_OF_SIZE(SZ_4K) : 0;
		}
		a = (a + (4u << 20)) & ~((4u << 20) - 1);
	}
	uint32_t *u = pte_slot(PPC405_UART0 & ~(PAGE - 1), 1);
	if (!u)
		return -1;
	*u = (PPC405_UART0 & ~(PAGE - 1)) |
	     lo_bits(MMU_READ | MMU_WRITE | MMU_UNCACHED | MMU_GUARDED) | ZONE_OF_SIZE(SZ_4K);
	return 0;
}

/* The self-check only reads these: the handler's state words and the
 * directory (one page each), and the shared empty table. */
int mmu_arch_live(uintptr_t a)
{
	return (a >= (uintptr_t)ppc405_pgd - PAGE && a < (uintptr_t)ppc405_pgd + PAGE) ||
	       (a >= (uintptr_t)empty_table && a < (uintptr_t)empty_table + PAGE);
}

/* Toggling MSR[DR] costs a few instructions: the self-check takes every
 * page of the image and the tables, and every 64th of probe memory. */
unsigned mmu_arch_check_samples(void)
{
	return 0;
}

/* Tables for 4K PTEs over RAM, a spare handful (UART page, the self-check's
 * alias, probes' windows), demotions of 16M leaves and the spaces' windows. */
uint32_t mmu_arch_pool_bytes(uintptr_t ram_end)
{
	return ((ram_end >> 22) + 8 + 32 + MMU_MAX_SPACES) * PAGE;
}

/* ---- address spaces ---- */

static int space_init(struct mmu_space *s)
{
	if (!(s->flags & MMU_SPACE_FLUSH) && s->id > 255) {
		report_diag("error: the 405's PID has 8 bits: no tag for space %d", s->id);
		return -1;
	}
	s->window = mmu_table_alloc();
	if (!s->window)
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

	ppc405_pgd[WINDOW_SLOT] = s ? s->window | (tagged ? DIR_PRIVATE : 0) : (uint32_t)empty_table;
	__asm__ volatile("sync");
	STATE(MMU_PID_OFF) = tagged ? s->id : 0;
	if (flush)
		do_flush_all();
	ppc405_pid_restore();
}

static void space_fini(struct mmu_space *s)
{
	tlb_invalidate(MMU_SPACE_BASE, MMU_SPACE_SIZE, 0);	/* its entries, any TID */
	mmu_table_free(s->window);
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
	if (build_default(active_size) < 0)
		return -1;
	/* Empty TLB, every entry TID 0, then the pinned entries at the top. */
	__asm__ volatile("sync; tlbia; isync" ::: "memory");
	mmu_count.flushes++;
	STATE(MMU_PID_OFF) = 0;
	ppc405_pid_restore();
	active_pins = pins;
	for (unsigned k = 0; k < pins && (uint64_t)(k + 1) * PIN_SIZE <= boot_info.ram_bytes; k++) {
		unsigned slot = TLB_SLOTS - 1 - k;
		tlbwe_lo(slot, k * PIN_SIZE | lo_bits(MMU_READ | MMU_WRITE | MMU_EXEC) |
			 ZONE_OF_SIZE(SZ_16M));
		tlbwe_hi(slot, k * PIN_SIZE | (SZ_16M << 7) | TLBHI_V);
		mmu_count.tlb_writes++;
	}
	/* Victim state for the miss handlers. */
	STATE(MMU_RRTOP_OFF) = TLB_SLOTS - 1 - pins;
	STATE(MMU_NSLOTS_OFF) = TLB_SLOTS - pins;
	STATE(MMU_RAND_OFF) = 0x2545f491u;		/* fixed seed: runs repeat */
	mtspr(277, ppc405_opt.random ? 0xc0000000u | (TLB_SLOTS - 1 - pins) : TLB_SLOTS - 1 - pins);
	mtspr(SPR_ZPR, 0x55555555u);			/* every zone: rights from the TLB */
	mtspr(275, (uint32_t)ppc405_pgd);		/* SPRG3: the directory */
	__asm__ volatile("isync");
	mtmsr(mfmsr() | MSR_IR | MSR_DR);
	return 0;
}

extern char ppc405_dtlb_miss[], ppc405_dtlb_rfi[], ppc405_dtlb_miss_tagged[], ppc405_dtlb_rfi_tagged[];
extern char ppc405_walk_loop[], ppc405_walk_loop_end[];
uint32_t ppc405_walk_pass(uintptr_t base, uint32_t pages, uint32_t warm, uint32_t *ticks);

/* Miss paths, vector to rfi, counted from the code: the path for a 4K PTE
 * executes every instruction in between exactly once. */
static void tlb_info(struct mmu_tlb_info *t)
{
	t->refill = MMU_REFILL_SOFTWARE;
	t->entries = TLB_SLOTS;
	t->pinned = active_pins;
	t->pinned_end = active_pins * PIN_SIZE < boot_info.ram_bytes ? active_pins * PIN_SIZE
								      : boot_info.ram_bytes;
	t->page_sizes = 1u << 12 | 1u << (10 + 2 * active_size) | (active_pins ? 1u << 24 : 0);
	t->miss_path = tagged_spaces ? (ppc405_dtlb_rfi_tagged - ppc405_dtlb_miss_tagged) / 4 + 1
				     : (ppc405_dtlb_rfi - ppc405_dtlb_miss) / 4 + 1;
	t->space_switch = MMU_SWITCH_TAGGED;
	t->counts = MMU_COUNTS_TLB_MISSES | MMU_COUNTS_FAULTS | MMU_COUNTS_TLB_WRITES |
		    MMU_COUNTS_FLUSHES;
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
		 sizes[active_size], active_pins);
}

static const struct mmu_ops ppc405_ops = {
	.enter = translated_enter, .leave = translated_leave,
	.map = do_map, .unmap = do_unmap, .protect = do_protect, .query = do_query,
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
		ppc405_pgd[i] = (uint32_t)empty_table;
	STATE(MMU_RRTOP_OFF) = TLB_SLOTS - 1;
	STATE(MMU_NSLOTS_OFF) = TLB_SLOTS;
	STATE(MMU_PID_OFF) = 0;
	mtspr(277, TLB_SLOTS - 1);			/* SPRG5: first victim */
	mtspr(275, (uint32_t)ppc405_pgd);		/* SPRG3 */
	mtspr(SPR_PID, 0);				/* tlbwe takes TID from PID */
	mtspr(SPR_ZPR, 0x55555555u);
	__asm__ volatile("sync; isync" ::: "memory");
	for (unsigned i = 0; i < TLB_SLOTS; i++) {
		tlbwe_lo(i, 0);
		tlbwe_hi(i, 0);
	}
	__asm__ volatile("isync" ::: "memory");
}
