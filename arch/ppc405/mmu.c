/* MMU modes of the 405 (issue 3).
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
 * PTEs; a PTE is the TLBLO word, its zone field = 2*SIZE+1.  enter()
 * rebuilds the default mapping (all RAM 1:1 read/write/execute, the UART
 * page I|G), empties the TLB (pinned slots aside), turns translation on and
 * runs the self-check.
 */
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "boot_info.h"
#include "config.h"
#include "mem.h"
#include "mmu.h"
#include "ppc405.h"
#include "report.h"

#define PAGE		4096u
#define TLB_SLOTS	64
#define PIN_SIZE	(16u << 20)

/* TLBHI / TLBLO fields */
#define TLBHI_V		0x40u
#define TLBLO_EX	0x200u
#define TLBLO_WR	0x100u
#define TLBLO_I		0x004u
#define TLBLO_G		0x001u
#define TLBLO_M		0x002u
#define ZONE_OF_SIZE(s)	((2u * (s) + 1) << 4)	/* zone field carries SIZE */
#define SIZE_OF(e)	(((e) >> 5) & 7)		/* SIZE code from an entry */
#define LEAF(e)		((e) & 0x10u)			/* odd zone: a mapping */
#define SZ_4K		1
#define SZ_4M		6
#define SZ_16M		7

static unsigned size_bytes(unsigned s) { return 1024u << (2 * s); }

extern uint32_t ppc405_pgd[1024];		/* vectors.S, 4 KiB aligned */
extern uint32_t ppc405_mmu_state[MMU_STATE_BYTES / 4];
#define STATE(off)	ppc405_mmu_state[(MMU_STATE_BYTES + (off)) / 4]

/* Tables: one empty (all zero) that unmapped regions share, and a pool. */
#define POOL_TABLES	72
static uint32_t empty_table[1024] __attribute__((aligned(4096)));
static uint32_t pool[POOL_TABLES][1024] __attribute__((aligned(4096)));
static int pool_used;

/* Boot arguments */
static unsigned long opt_pins = 2;
static unsigned opt_lpsize = SZ_16M;
static int opt_random, opt_tlbdump, opt_break;

/* The active translated mode (0 in real mode), and its pinned slots. */
struct mode_desc {
	const char *name;
	unsigned pins;
	int large;
	int dumped;			/* tlbdump done for this mode */
	int reported;			/* page-table figures printed */
};
static struct mode_desc *active;
static unsigned active_pins;

static inline void tlbwe_hi(unsigned i, uint32_t v)
{
	__asm__ volatile("tlbwe %0, %1, 0" : : "r"(v), "r"(i) : "memory");
}
static inline void tlbwe_lo(unsigned i, uint32_t v)
{
	__asm__ volatile("tlbwe %0, %1, 1" : : "r"(v), "r"(i) : "memory");
}
static inline uint32_t tlbre_hi(unsigned i)
{
	uint32_t v;
	__asm__ volatile("tlbre %0, %1, 0" : "=r"(v) : "r"(i));
	return v;
}
static inline uint32_t tlbre_lo(unsigned i)
{
	uint32_t v;
	__asm__ volatile("tlbre %0, %1, 1" : "=r"(v) : "r"(i));
	return v;
}
/* Slot holding va, or -1. */
static int tlb_search(uint32_t va)
{
	uint32_t idx, cr;
	__asm__ volatile("tlbsx. %0, 0, %2; mfcr %1" : "=r"(idx), "=r"(cr) : "r"(va) : "cr0");
	return (cr & 0x20000000u) ? (int)(idx & 63) : -1;
}

/* ---- the page table ---- */

static uint32_t *new_table(void)
{
	if (pool_used == POOL_TABLES)
		return 0;
	uint32_t *t = pool[pool_used++];
	for (unsigned i = 0; i < 1024; i++)	/* words: newlib's -Os memset goes byte by byte */
		t[i] = 0;
	return t;
}

/* The PTE slot of va, making a table if `create`; 0 when there is none
 * (or the pool ran dry, reported by the caller). */
static uint32_t *pte_slot(uint32_t va, int create)
{
	uint32_t *dir = &ppc405_pgd[va >> 22];

	if (LEAF(*dir))
		return 0;		/* callers demote leaves first */
	if ((uint32_t *)*dir == empty_table) {
		if (!create)
			return 0;
		uint32_t *t = new_table();
		if (!t)
			return 0;
		*dir = (uint32_t)t;
	}
	return (uint32_t *)*dir + ((va >> 12) & 1023);
}

static uint32_t lo_bits(unsigned attr)
{
	uint32_t lo = TLBLO_M;		/* M: no effect on the 405, keeps PTEs non-zero */
	if (attr & MMU_WRITE) lo |= TLBLO_WR;
	if (attr & MMU_EXEC) lo |= TLBLO_EX;
	if (attr & MMU_UNCACHED) lo |= TLBLO_I;
	if (attr & MMU_GUARDED) lo |= TLBLO_G;
	return lo;
}

/* Invalidate every TLB entry overlapping [va, va+len); pinned ones too when
 * `pinned_too` (a mapping under a pin changed: the pin must go). */
static void tlb_invalidate(uint32_t va, uint32_t len, int pinned_too)
{
	unsigned top = pinned_too ? TLB_SLOTS : TLB_SLOTS - active_pins;

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
	mtspr(SPR_PID, 0);		/* tlbre loads PID with the entry's TID */
	__asm__ volatile("isync");
	mmu_count.flushes++;
}

/* Turn the large page holding va into 4K PTEs with the same rights. */
static int demote(uint32_t va)
{
	uint32_t *dir = &ppc405_pgd[va >> 22];
	uint32_t e, base, sz;

	if (LEAF(*dir)) {
		e = *dir;
		sz = size_bytes(SIZE_OF(e));
		base = va & ~(sz - 1);
		for (uint32_t r = base; r - base < sz; r += 4u << 20) {
			uint32_t *t = new_table();
			if (!t)
				return -1;
			for (unsigned i = 0; i < 1024; i++)
				t[i] = ((e & ~(sz - 1) & 0xfffffc00u) + (r - base) + i * PAGE) |
				       (e & 0x30fu) | ZONE_OF_SIZE(SZ_4K);
			ppc405_pgd[r >> 22] = (uint32_t)t;
		}
		tlb_invalidate(base, sz, 1);
		return 0;
	}
	uint32_t *p = pte_slot(va, 0);
	if (!p || !*p || SIZE_OF(*p) == SZ_4K)
		return 0;
	e = *p;
	sz = size_bytes(SIZE_OF(e));
	base = va & ~(sz - 1);
	for (uint32_t off = 0; off < sz; off += PAGE) {
		uint32_t *q = pte_slot(base + off, 0);
		*q = ((e & ~(sz - 1) & 0xfffffc00u) + off) | (e & 0x30fu) | ZONE_OF_SIZE(SZ_4K);
	}
	tlb_invalidate(base, sz, 1);
	return 0;
}

static int pool_dry(void)
{
	report_diag("error: ppc405 mmu: out of page tables (%d in the pool)", POOL_TABLES);
	return -1;
}

/* Map [va, va+len) to pa in 4K PTEs (sizes as the interface wants). */
static int do_map(uintptr_t va, uintptr_t pa, size_t len, unsigned attr)
{
	if ((va | pa | len) & (PAGE - 1))
		return -1;
	for (size_t off = 0; off < len; off += PAGE) {
		if (demote(va + off) < 0)
			return pool_dry();
		uint32_t *p = pte_slot(va + off, 1);
		if (!p)
			return pool_dry();
		*p = (pa + off) | lo_bits(attr) | ZONE_OF_SIZE(SZ_4K);
	}
	tlb_invalidate(va, len, 1);
	return 0;
}

static int do_unmap(uintptr_t va, size_t len)
{
	if ((va | len) & (PAGE - 1))
		return -1;
	for (size_t off = 0; off < len; off += PAGE) {
		if (demote(va + off) < 0)
			return pool_dry();
		uint32_t *p = pte_slot(va + off, 0);
		if (p)
			*p = 0;
	}
	tlb_invalidate(va, len, 1);
	return 0;
}

static int do_protect(uintptr_t va, size_t len, unsigned attr)
{
	if ((va | len) & (PAGE - 1))
		return -1;
	for (size_t off = 0; off < len; off += PAGE) {
		if (demote(va + off) < 0)
			return pool_dry();
		uint32_t *p = pte_slot(va + off, 0);
		if (!p || !*p)
			return -1;	/* nothing mapped there */
		*p = (*p & 0xfffff000u) | lo_bits(attr) | ZONE_OF_SIZE(SZ_4K);
	}
	tlb_invalidate(va, len, 1);
	return 0;
}

static void do_flush_all(void)
{
	__asm__ volatile("sync" ::: "memory");		/* earlier accesses done first */
	for (unsigned i = 0; i < TLB_SLOTS - active_pins; i++)
		tlbwe_hi(i, 0);
	__asm__ volatile("isync");
	mmu_count.flushes++;
}

static void do_flush_page(uintptr_t va)
{
	tlb_invalidate(va & ~(PAGE - 1), PAGE, 0);
}

/* The default mapping: RAM 1:1 in pages of size code `s`, the UART page. */
static int build_default(unsigned s)
{
	uint32_t ram = boot_info.ram_bytes, sz = size_bytes(s);
	const uint32_t rwx = lo_bits(MMU_READ | MMU_WRITE | MMU_EXEC);

	pool_used = 0;
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
			return pool_dry();
		for (unsigned i = 0; i < 1024; i++) {
			uint32_t page = a + i * PAGE;
			t[i] = page < large_end ? (page & ~(psz - 1)) | rwx | ZONE_OF_SIZE(ps)
			     : page < ram ? page | rwx | ZONE_OF_SIZE(SZ_4K) : 0;
		}
		a = (a + (4u << 20)) & ~((4u << 20) - 1);
	}
	uint32_t *u = pte_slot(PPC405_UART0 & ~(PAGE - 1), 1);
	if (!u)
		return pool_dry();
	*u = (PPC405_UART0 & ~(PAGE - 1)) |
	     lo_bits(MMU_READ | MMU_WRITE | MMU_UNCACHED | MMU_GUARDED) | ZONE_OF_SIZE(SZ_4K);
	return 0;
}

/* ---- tlbdump ---- */

static void print_entry(unsigned i, uint32_t hi, uint32_t lo)
{
	static const char *const sizes[] = { "1K", "4K", "16K", "64K", "256K", "1M", "4M", "16M" };
	report_diag("  tlb[%2u] EPN 0x%08lx %-4s %s TID %lu RPN 0x%08lx %s%s zone %lu WIMG %c%c%c%c%s",
		    i, (unsigned long)(hi & 0xfffffc00u), sizes[(hi >> 7) & 7],
		    hi & TLBHI_V ? "V" : "-", (unsigned long)mfspr(SPR_PID),
		    (unsigned long)(lo & 0xfffffc00u), lo & TLBLO_EX ? "EX" : "--",
		    lo & TLBLO_WR ? "WR" : "--", (unsigned long)((lo >> 4) & 15),
		    lo & 8 ? 'W' : '-', lo & 4 ? 'I' : '-', lo & 2 ? 'M' : '-', lo & 1 ? 'G' : '-',
		    i >= TLB_SLOTS - active_pins ? " (pinned)" : "");
}

static void tlbdump(const char *why)
{
	report_diag("tlbdump (%s): 64 entries (QEMU's tlbre returns no zone/WIMG bits)", why);
	for (unsigned i = 0; i < TLB_SLOTS; i++) {
		uint32_t hi = tlbre_hi(i), lo = tlbre_lo(i);
		print_entry(i, hi, lo);	/* TID: tlbre just loaded it into PID */
	}
	mtspr(SPR_PID, 0);
}

/* For the exception dump and the self-check: what maps va. */
void ppc405_mmu_describe_entry(uintptr_t va)
{
	int i = tlb_search(va);
	uint32_t dir = ppc405_pgd[va >> 22];

	if (!active) {
		report_diag("  mmu: real mode (no translated mode active)");
		return;
	}
	if (i >= 0)
		print_entry(i, tlbre_hi(i), tlbre_lo(i));
	else
		report_diag("  no TLB entry for 0x%08lx", (unsigned long)va);
	mtspr(SPR_PID, 0);
	if (LEAF(dir))
		report_diag("  directory[%lu] = 0x%08lx (large-page leaf)", (unsigned long)(va >> 22),
			    (unsigned long)dir);
	else {
		uint32_t *p = pte_slot(va, 0);
		report_diag("  directory[%lu] = 0x%08lx, PTE = 0x%08lx", (unsigned long)(va >> 22),
			    (unsigned long)dir, (unsigned long)(p ? *p : 0));
	}
}

/* ---- self-check ---- */

/* One page, with data translation toggled around it and nothing but
 * registers in between: real: keep the word at pa, write p1; virtual: read
 * (must be p1), write p2; real: read (must be p2), put the word back.
 * Returns the two values read, via got[]. */
static void check_word(uint32_t va, uint32_t pa, uint32_t p1, uint32_t p2, uint32_t *got)
{
	uint32_t msr = mfmsr(), real = msr & ~MSR_DR, orig, g1, g2;

	__asm__ volatile(
		"mtmsr	%[real]\n\tisync\n\t"
		"lwz	%[orig], 0(%[pa])\n\t"		/* keep the word */
		"stw	%[p1], 0(%[pa])\n\t"		/* pattern 1, physically */
		"mtmsr	%[virt]\n\tisync\n\t"
		"lwz	%[g1], 0(%[va])\n\t"		/* through the mapping */
		"stw	%[p2], 0(%[va])\n\t"		/* pattern 2, virtually */
		"mtmsr	%[real]\n\tisync\n\t"
		"lwz	%[g2], 0(%[pa])\n\t"		/* physically again */
		"stw	%[orig], 0(%[pa])\n\t"		/* put the word back */
		"mtmsr	%[virt]\n\tisync"
		: [orig] "=&r"(orig), [g1] "=&r"(g1), [g2] "=&r"(g2)
		: [real] "r"(real), [virt] "r"(msr), [pa] "b"(pa), [va] "b"(va),
		  [p1] "r"(p1), [p2] "r"(p2)
		: "memory");
	got[0] = g1, got[1] = g2;
}

/* Read-only variant for pages whose contents must not change (code, the
 * page tables): the same word read both ways must agree. */
static void read_word(uint32_t va, uint32_t pa, uint32_t *got)
{
	uint32_t msr = mfmsr(), real = msr & ~MSR_DR, g1, g2;

	__asm__ volatile(
		"mtmsr	%[real]\n\tisync\n\t"
		"lwz	%[g2], 0(%[pa])\n\t"
		"mtmsr	%[virt]\n\tisync\n\t"
		"lwz	%[g1], 0(%[va])"
		: [g1] "=&r"(g1), [g2] "=&r"(g2)
		: [real] "r"(real), [virt] "r"(msr), [pa] "b"(pa), [va] "b"(va)
		: "memory");
	got[0] = g1, got[1] = g2;
}

extern char __data_start[], __bss_start[];
extern char ppc405_exc_stack_top[];

static int mismatch(const char *region, uint32_t va, uint32_t want1, uint32_t want2,
		    const uint32_t *got)
{
	report_diag("self-check of %s failed: %s at 0x%08lx: through the mapping read 0x%08lx "
		    "(want 0x%08lx), physically read 0x%08lx (want 0x%08lx)", active->name, region,
		    (unsigned long)va, (unsigned long)got[0], (unsigned long)want1,
		    (unsigned long)got[1], (unsigned long)want2);
	ppc405_mmu_describe_entry(va);
	return -1;
}

/* One page of the self-check: a word at an offset that moves from page to
 * page (never the state words at a page's end).  Code and page tables are
 * compared read-only; everything else gets the pattern both ways. */
static int check_page(const char *region, uint32_t pg, int read_only)
{
	uint32_t a = pg + ((pg >> 10) % 0xf00 & ~3u), got[2];

	if (read_only) {
		read_word(a, a, got);
		return got[0] != got[1] ? mismatch(region, a, got[1], got[0], got) : 0;
	}
	uint32_t p1 = 0x5a5a0000u ^ (pg * 2654435761u), p2 = ~p1;
	check_word(a, a, p1, p2, got);
	return got[0] != p1 || got[1] != p2 ? mismatch(region, a, p1, p2, got) : 0;
}

/* Pattern through the mapping of every probe region, read back physically,
 * and the other way round: every 4K page of the image (code, data, stack,
 * heap); of probe memory its first and last page and one page in every
 * CHECK_STRIDE, starting one page further on each enter, so that 64 enters
 * cover every page (all ~31000 pages on every enter would cost about a
 * second of QEMU time, too much for 100 switches). */
#define CHECK_STRIDE	(64u * PAGE)
static unsigned check_phase;

static int self_check(void)
{
	uint32_t tables_lo = (uint32_t)ppc405_pgd - PAGE, tables_hi = (uint32_t)ppc405_pgd + PAGE;
	uint32_t pool_lo = (uint32_t)empty_table, pool_hi = (uint32_t)(pool + POOL_TABLES);
	uint32_t data = ((uint32_t)__data_start + PAGE - 1) & ~(PAGE - 1);
	uint32_t got[2];

	for (uint32_t pg = (uint32_t)__image_start; pg < data; pg += PAGE)
		if (check_page("image code", pg, 1) < 0)
			return -1;
	for (uint32_t pg = data; pg < (uint32_t)__heap_end; pg += PAGE) {
		int tables = (pg >= tables_lo && pg < tables_hi) || (pg >= pool_lo && pg < pool_hi);
		if (check_page("image data, stack and heap", pg, tables) < 0)
			return -1;
	}
	uint32_t first = probe_mem_start, last = (probe_mem_end - 1) & ~(PAGE - 1);
	if (check_page("probe memory", first, 0) < 0 || check_page("probe memory", last, 0) < 0)
		return -1;
	check_phase = (check_phase + 1) % (CHECK_STRIDE / PAGE);
	for (uint32_t pg = first + check_phase * PAGE; pg < last; pg += CHECK_STRIDE)
		if (check_page("probe memory", pg, 0) < 0)
			return -1;
	/* The UART page, through the 16550's scratch register (offset 7). */
	uint32_t scr = PPC405_UART0 + 7, msr = mfmsr();
	uint8_t v1, v2;
	__asm__ volatile(
		"stb	%[a], 0(%[p])\n\t"		/* through the mapping */
		"eieio\n\t"
		"mtmsr	%[real]\n\tisync\n\t"
		"lbz	%[v1], 0(%[p])\n\t"		/* physically */
		"stb	%[b], 0(%[p])\n\t"
		"eieio\n\t"
		"mtmsr	%[virt]\n\tisync\n\t"
		"lbz	%[v2], 0(%[p])"			/* through the mapping */
		: [v1] "=&r"(v1), [v2] "=&r"(v2)
		: [p] "b"(scr), [a] "r"(0xa5), [b] "r"(0x3c), [real] "r"(msr & ~MSR_DR),
		  [virt] "r"(msr)
		: "memory");
	if (v1 != 0xa5 || v2 != 0x3c) {
		got[0] = v2, got[1] = v1;
		return mismatch("the UART page (scratch register)", scr, 0x3c, 0xa5, got);
	}
	return 0;
}

/* ---- modes ---- */

static struct mode_desc desc_normal = { "normal", 0, 0, 0, 0 };
static struct mode_desc desc_pinned = { "pinned", 2, 0, 0, 0 };
static struct mode_desc desc_large = { "largepte", 0, 1, 0, 0 };

static void translated_leave(void)
{
	mtmsr(mfmsr() & ~(MSR_IR | MSR_DR));
	if (active && opt_tlbdump && !active->dumped) {
		active->dumped = 1;
		tlbdump(active->name);
	}
	active = 0;
}

static int translated_enter(struct mode_desc *d)
{
	unsigned pins = d == &desc_pinned ? opt_pins : 0;

	if (build_default(d->large ? opt_lpsize : SZ_4K) < 0)
		return -1;
	active = d;
	active_pins = pins;
	/* Empty TLB, then the pinned entries at the top. */
	__asm__ volatile("sync; tlbia; isync" ::: "memory");	/* sync: as Linux does */
	mmu_count.flushes++;
	mtspr(SPR_PID, 0);
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
	mtspr(277, opt_random ? 0xc0000000u | (TLB_SLOTS - 1 - pins) : TLB_SLOTS - 1 - pins);
	mtspr(SPR_ZPR, 0x55555555u);			/* every zone: rights from the TLB */
	mtspr(275, (uint32_t)ppc405_pgd);		/* SPRG3: the directory */
	__asm__ volatile("isync");
	mtmsr(mfmsr() | MSR_IR | MSR_DR);

	if (opt_break) {
		/* Test hook: the last page of RAM now shows the page below it. */
		uint32_t last = (boot_info.ram_bytes - PAGE);
		report_diag("mmu_break: mapping 0x%08lx to 0x%08lx on purpose",
			    (unsigned long)last, (unsigned long)(last - PAGE));
		do_map(last, last - PAGE, PAGE, MMU_READ | MMU_WRITE);
	}
	if (self_check() < 0) {
		translated_leave();
		return -1;
	}
	if (!d->reported && !config.crash) {
		/* Once per mode (modes are entered inside the measurement
		 * block): what the default mapping costs in tables.  The
		 * directory, the shared empty table and the tables in use. */
		static const char *const sizes[] = { "", "4k", "16k", "64k", "256k", "1m", "4m", "16m" };
		uint32_t bytes = 2 * PAGE + pool_used * PAGE;
		d->reported = 1;
		report_diag("%s: 1:1 map of RAM 0x00000000-0x%08lx in %s pages + UART page I|G, "
			    "%lu KiB of tables, %u pinned", d->name,
			    (unsigned long)boot_info.ram_bytes - 1,
			    sizes[d->large ? opt_lpsize : SZ_4K], (unsigned long)bytes >> 10, pins);
		report_measurement("mmu", d->name, "pagetable_bytes", bytes, 0, "bytes");
		report_measurement("mmu", d->name, "mapped_bytes", boot_info.ram_bytes + PAGE, 0,
				   "bytes");
	}
	return 0;
}

static int normal_enter(void) { return translated_enter(&desc_normal); }
static int pinned_enter(void) { return translated_enter(&desc_pinned); }
static int large_enter(void) { return translated_enter(&desc_large); }

static int real_enter(void) { return 0; }
static void real_leave(void) { }

static const struct mmu_mode mode_real = {
	.name = "real",
	.what = "translation off (MSR[IR,DR] = 0)",
	.translated = 0,
	.enter = real_enter,
	.leave = real_leave,
};

#define TRANSLATED(n, w, e, sizes) {				\
	.name = n, .what = w, .translated = 1, .enter = e,	\
	.leave = translated_leave, .map = do_map, .unmap = do_unmap, \
	.protect = do_protect, .flush_all = do_flush_all,	\
	.flush_page = do_flush_page, .page_sizes = sizes }

static const struct mmu_mode mode_normal = TRANSLATED("normal",
	"4K PTEs for everything, no TLB slot pinned (nopintlb)", normal_enter, 1u << 12);
static const struct mmu_mode mode_pinned = TRANSLATED("pinned",
	"4K PTEs, pins=N 16M entries pinned in the top TLB slots (2pintlb)", pinned_enter,
	1u << 12 | 1u << 24);
static struct mmu_mode mode_large = TRANSLATED("largepte",
	"RAM in lpsize pages (default 16m) loaded by the miss handler", large_enter,
	1u << 12 | 1u << 24);

const struct mmu_mode *const mmu_modes[] = { &mode_real, &mode_normal, &mode_pinned,
					      &mode_large, 0 };

/* ---- faults (exceptions.c) ---- */

int ppc405_mmu_fault(struct ppc405_frame *f)
{
	int r;

	if (!active)
		return 0;
	switch (f->vector) {
	case 0x1100:		/* DTLB miss with no PTE: page fault */
		mmu_count.page_faults++;
		r = mmu_call_fault_hook(f->dear, !!(f->esr & ESR_DST), 0);
		break;
	case 0x1200:		/* ITLB miss with no PTE */
		mmu_count.page_faults++;
		r = mmu_call_fault_hook(f->srr0, 0, 0);
		break;
	case 0x300:		/* a store to a page without WR */
		if (f->esr & ESR_DIZ)
			return 0;
		mmu_count.prot_faults++;
		r = mmu_call_fault_hook(f->dear, !!(f->esr & ESR_DST), 1);
		break;
	case 0x400:		/* a fetch from a page without EX */
		mmu_count.prot_faults++;
		r = mmu_call_fault_hook(f->srr0, 0, 1);
		break;
	default:
		return 0;
	}
	mtspr(SPR_ESR, 0);	/* QEMU ORs into ESR: start clean */
	return r;
}

void ppc405_mmu_init(void)
{
	/* The directory is always valid, even before any mode, so a stray
	 * translated access takes the slow path rather than a wild PTE. */
	for (unsigned i = 0; i < 1024; i++)
		ppc405_pgd[i] = (uint32_t)empty_table;
	STATE(MMU_RRTOP_OFF) = TLB_SLOTS - 1;
	STATE(MMU_NSLOTS_OFF) = TLB_SLOTS;
	mtspr(277, TLB_SLOTS - 1);			/* SPRG5: first victim */
	mtspr(275, (uint32_t)ppc405_pgd);		/* SPRG3 */
	mtspr(SPR_ZPR, 0x55555555u);
	/* The TLB is undefined at power-on and tlbia clears only V bits:
	 * write every entry invalid with TID 0 (TID comes from PID). */
	mtspr(SPR_PID, 0);
	__asm__ volatile("sync" ::: "memory");
	for (unsigned i = 0; i < TLB_SLOTS; i++) {
		tlbwe_lo(i, 0);
		tlbwe_hi(i, 0);
	}
	__asm__ volatile("isync");
}

/* Fast-path length, vector to rfi, counted from the code itself: the path
 * for a 4K PTE executes every instruction in between exactly once. */
extern char ppc405_dtlb_miss[], ppc405_dtlb_rfi[];
int mmu_dtlb_miss_path_length(void)
{
	return (ppc405_dtlb_rfi - ppc405_dtlb_miss) / 4 + 1;
}

/* ---- boot arguments ---- */

static int set_pins(const char *key, const char *value)
{
	return arg_uint(key, value, 0, 8, &opt_pins);
}

static int set_lpsize(const char *key, const char *value)
{
	static const char *const sizes[] = { "1k", "4k", "16k", "64k", "256k", "1m", "4m", "16m", 0 };
	int i;

	if (value && (!strcmp(value, "1k") || !strcmp(value, "1K"))) {
		console_printf("mmubench: error: boot argument 'lpsize=%s': 1K pages are not "
			       "used (QEMU aborts on a 1K TLB entry); 4k..16m\n", value);
		return -1;
	}
	if (arg_choice(key, value, sizes + 1, &i) < 0)
		return -1;
	opt_lpsize = i + 1;
	return 0;
}

static int set_tlbrepl(const char *key, const char *value)
{
	static const char *const how[] = { "rr", "random", 0 };
	return arg_choice(key, value, how, &opt_random);
}

static int set_tlbdump(const char *key, const char *value) { return arg_flag(key, value, &opt_tlbdump); }
static int set_break(const char *key, const char *value) { return arg_flag(key, value, &opt_break); }

const struct boot_arg arch_args[] = {
	{ "pins", "0..8 16M TLB entries pinned in mode pinned (default 2)", set_pins },
	{ "lpsize", "4k..16m: page size of mode largepte (default 16m)", set_lpsize },
	{ "tlbrepl", "rr (round robin, default) or random: TLB victim policy", set_tlbrepl },
	{ "tlbdump", "0 or 1: print the 64 TLB entries when each mode is first left", set_tlbdump },
	{ "mmu_break", "0 or 1 (tests only): corrupt one mapping so the self-check must fail", set_break },
	{ 0 }
};

/* Banner line (cpu.c): the replacement policy. */
const char *ppc405_tlbrepl_name(void)
{
	return opt_random ? "random (xorshift32 over the unpinned slots)"
			  : "round robin over the unpinned slots";
}
