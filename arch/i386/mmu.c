/* MMU modes of i386.
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
 * Tables come from a pool set aside at the top of probe RAM
 * (i386_mmu_reserve) and are rebuilt on every enter().
 */
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "config.h"
#include "i386.h"
#include "mem.h"
#include "mmu.h"
#include "report.h"

struct mmu_counters mmu_count;
extern char __free_ram_start[];		/* end of the image's area (linker script) */

#define PTE_P		0x001u
#define PTE_RW		0x002u
#define PTE_US		0x004u
#define PTE_PWT		0x008u
#define PTE_PCD		0x010u
#define PTE_A		0x020u
#define PTE_D		0x040u
#define PTE_PS		0x080u		/* in a directory entry: a large page */
#define PTE_G		0x100u
#define PTE_LARGE_PAT	0x1000u		/* PAT bit of a large page: never set by us */
#define PTE_NX		(1ull << 63)
#define TABLE_LINK	(PTE_P | PTE_RW | PTE_US)	/* non-leaf: let the leaf decide */
#define PAGE		4096u

/* A page-table format. */
struct pformat {
	const char *name;
	int pae;		/* 64-bit entries, PDPT */
	int large;		/* use large pages where a region allows */
};

static const struct pformat fmt_2level = { "2level", 0, 0 };
static const struct pformat fmt_pse = { "pse", 0, 1 };
static const struct pformat fmt_pae = { "pae", 1, 0 };
static const struct pformat fmt_pae2m = { "pae2m", 1, 1 };

static const struct pformat *cur;	/* the active format; 0 while flat */
static uint32_t pd32;			/* 2level/pse: the page directory */
static uint64_t pdpt[4] __attribute__((aligned(32)));	/* PAE: CR3 points here */
static int nx_on, pge_on;

/* Boot arguments (arch_args below). */
static int opt_global, opt_break;
static uintptr_t ptdump_start, ptdump_end;

/* The pool the tables come from, and what the default mapping covers. */
static uintptr_t pool_start, pool_end, pool_next;
static uintptr_t map_end;		/* default mapping: [0, map_end) */
static uint32_t table_bytes;		/* bytes of tables allocated since enter */
static const char *pool_error;

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

static uintptr_t alloc_table(void)
{
	if (pool_next + PAGE > pool_end) {
		report_diag("error: %s: page-table pool (%lu KiB at %#lx) exhausted", cur->name,
			    (unsigned long)(pool_end - pool_start) >> 10, (unsigned long)pool_start);
		return 0;
	}
	uintptr_t t = pool_next;
	pool_next += PAGE;
	memset((void *)t, 0, PAGE);
	table_bytes += PAGE;
	return t;
}

/* The directory for va (PAE: through the PDPT), created when asked. */
static uintptr_t dir_for(uintptr_t va, int create)
{
	if (!cur->pae)
		return pd32;
	unsigned i = va >> 30;
	if (!(pdpt[i] & PTE_P)) {
		if (!create)
			return 0;
		uintptr_t d = alloc_table();
		if (!d)
			return 0;
		pdpt[i] = d | PTE_P;	/* PDPTEs take P only: RW/US/NX are reserved */
		if (paging_on())	/* the CPU caches PDPTEs at each CR3 load */
			write_cr3(read_cr3());
	}
	return frame(pdpt[i]);
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

static void do_flush_page(uintptr_t va)
{
	mmu_count.flushes++;
	if (cur)
		invlpg(va);
}

/* ---- decoding: the PTE chain and ptdump ---- */

static void flags(char *buf, size_t size, uint64_t e, int leaf)
{
	snprintf(buf, size, "%s%s%s%s%s%s%s%s%s%s", e & PTE_P ? "P" : "not-present",
		 e & PTE_RW ? " RW" : e & PTE_P ? " RO" : "", e & PTE_US ? " US" : "",
		 e & PTE_PWT ? " PWT" : "", e & PTE_PCD ? " PCD" : "", e & PTE_A ? " A" : "",
		 leaf && (e & PTE_D) ? " D" : "", e & PTE_PS ? " PS" : "",
		 leaf && (e & PTE_G) ? " G" : "", e & PTE_NX ? " NX" : "");
}

void i386_print_pte_chain(uintptr_t va)
{
	char f[64];

	if (!cur || !paging_on()) {
		report_diag("  PTE chain for 0x%08lx: paging off: physical = virtual",
			    (unsigned long)va);
		return;
	}
	report_diag("  PTE chain for 0x%08lx (%s, CR3 0x%08lx):", (unsigned long)va, cur->name,
		    (unsigned long)read_cr3());
	if (cur->pae) {
		uint64_t p = pdpt[va >> 30];
		report_diag("    PDPTE[%lu] = 0x%016llx (%s)", (unsigned long)(va >> 30),
			    (unsigned long long)p, p & PTE_P ? "P" : "not-present");
		if (!(p & PTE_P))
			return;
	}
	uintptr_t dir = dir_for(va, 0);
	uint64_t de = get(dir, dir_index(va));
	flags(f, sizeof(f), de, !!(de & PTE_PS));
	report_diag("    PDE[%u] @0x%08lx = 0x%0*llx (%s)", dir_index(va),
		    (unsigned long)(dir + dir_index(va) * (cur->pae ? 8 : 4)), cur->pae ? 16 : 8,
		    (unsigned long long)de, f);
	if (!(de & PTE_P))
		return;
	if (de & PTE_PS) {
		report_diag("    large page: physical 0x%08lx",
			    (unsigned long)(large_frame(de) + (va & (large_size() - 1))));
		return;
	}
	uint64_t e = get(frame(de), tab_index(va));
	flags(f, sizeof(f), e, 1);
	report_diag("    PTE[%u] @0x%08lx = 0x%0*llx (%s)", tab_index(va),
		    (unsigned long)(frame(de) + tab_index(va) * (cur->pae ? 8 : 4)),
		    cur->pae ? 16 : 8, (unsigned long long)e, f);
	if (e & PTE_P)
		report_diag("    4K page: physical 0x%08lx", (unsigned long)(frame(e) + (va & 0xfff)));
}

/* One line per run of entries that map consecutive frames with the same flags. */
static void ptdump(uintptr_t start, uintptr_t end)
{
	report_diag("ptdump %s: 0x%08lx-0x%08lx (CR3 0x%08lx, CR4 %#lx)", cur->name,
		    (unsigned long)start, (unsigned long)end - 1, (unsigned long)read_cr3(),
		    (unsigned long)read_cr4());
	uintptr_t va = start & ~(PAGE - 1);
	while (va < end && va >= start) {
		uintptr_t dir = dir_for(va, 0);
		uint32_t L = large_size();
		char f[64];
		if (!dir) {
			report_diag("  0x%08lx: PDPTE[%lu] not present", (unsigned long)va,
				    (unsigned long)(va >> 30));
			va = (va | 0x3fffffffu) + 1;
			continue;
		}
		uint64_t de = get(dir, dir_index(va));
		flags(f, sizeof(f), de, !!(de & PTE_PS));
		if (!(de & PTE_P) || (de & PTE_PS)) {
			report_diag("  0x%08lx-0x%08lx PDE[%u] = %#llx: %s%s", (unsigned long)va,
				    (unsigned long)(va | (L - 1)), dir_index(va), (unsigned long long)de, f,
				    de & PTE_PS ? " (large page)" : "");
			va = (va | (L - 1)) + 1;
			continue;
		}
		report_diag("  0x%08lx-0x%08lx PDE[%u] = %#llx: %s -> table %#lx", (unsigned long)va,
			    (unsigned long)(va | (L - 1)), dir_index(va), (unsigned long long)de, f,
			    (unsigned long)frame(de));
		uintptr_t t = frame(de), dir_end = (va | (L - 1)) + 1;
		while (va < end && va < dir_end && va >= start) {
			uint64_t e = get(t, tab_index(va)), mask = 0xfffu | PTE_NX;
			uintptr_t run = va;
			int n = 0;
			/* The run: same flags (ignoring A/D) and frames one page apart. */
			while (va < end && va < dir_end && va >= run) {
				uint64_t x = get(t, tab_index(va));
				if (((x ^ e) & mask & ~(uint64_t)(PTE_A | PTE_D)) ||
				    ((e & PTE_P) && frame(x) != frame(e) + n * PAGE))
					break;
				va += PAGE, n++;
			}
			flags(f, sizeof(f), e, 1);
			if (e & PTE_P)
				report_diag("    0x%08lx-0x%08lx %4d PTE(s) -> 0x%08lx.. %s", (unsigned long)run,
					    (unsigned long)va - 1, n, (unsigned long)frame(e), f);
			else
				report_diag("    0x%08lx-0x%08lx %4d PTE(s) not present", (unsigned long)run,
					    (unsigned long)va - 1, n);
			if (va == 0)
				return;
		}
	}
}

/* ---- the self-check: virtual write / physical read-back, and back ---- */

#define MAX_SAMPLES 72
static volatile uint32_t check_word;		/* a sample inside the image */
static uint32_t *sample[MAX_SAMPLES];
static uint32_t saved[MAX_SAMPLES];

static void pg_off(void) { write_cr0(read_cr0() & ~CR0_PG); }
static void pg_on(void) { write_cr0(read_cr0() | CR0_PG); }

static int self_check(void)
{
	int n = 0, bad = -1;
	uint32_t got = 0, want = 0;
	uintptr_t span = probe_mem_end - probe_mem_start;
	uintptr_t step = span / 64 > (1u << 20) ? (span / 64) & ~(PAGE - 1) : (1u << 20);

	/* Samples: the image, probe RAM every `step`, its last word. */
	sample[n++] = (uint32_t *)&check_word;
	for (uintptr_t a = probe_mem_start; a + 4 <= probe_mem_end && n < MAX_SAMPLES - 1; a += step)
		sample[n++] = (uint32_t *)a;
	if (probe_mem_end > probe_mem_start + 4)
		sample[n++] = (uint32_t *)(probe_mem_end - 4);

	pg_off();				/* the truth: physical contents */
	for (int i = 0; i < n; i++)
		saved[i] = *(volatile uint32_t *)sample[i];
	pg_on();				/* virtual writes */
	for (int i = 0; i < n; i++)
		*(volatile uint32_t *)sample[i] = (uint32_t)(uintptr_t)sample[i] ^ 0x5a5a0000u;
	pg_off();				/* physical read-back, physical writes */
	for (int i = 0; i < n; i++) {
		uint32_t v = *(volatile uint32_t *)sample[i];
		if (bad < 0 && v != ((uint32_t)(uintptr_t)sample[i] ^ 0x5a5a0000u))
			bad = i, got = v, want = (uint32_t)(uintptr_t)sample[i] ^ 0x5a5a0000u;
		*(volatile uint32_t *)sample[i] = ~((uint32_t)(uintptr_t)sample[i]);
	}
	pg_on();				/* virtual read-back */
	for (int i = 0; i < n && bad < 0; i++) {
		uint32_t v = *(volatile uint32_t *)sample[i];
		if (v != ~(uint32_t)(uintptr_t)sample[i])
			bad = i, got = v, want = ~(uint32_t)(uintptr_t)sample[i];
	}
	pg_off();				/* put the physical contents back */
	for (int i = 0; i < n; i++)
		*(volatile uint32_t *)sample[i] = saved[i];
	pg_on();
	if (bad >= 0) {
		report_diag("error: %s self-check: address 0x%08lx read 0x%08lx, expected 0x%08lx "
			    "(1:1 mapping broken)", cur->name, (unsigned long)sample[bad],
			    (unsigned long)got, (unsigned long)want);
		i386_print_pte_chain((uintptr_t)sample[bad]);
		return -1;
	}

	/* An alias: a virtual page outside the 1:1 range onto a physical
	 * page of probe RAM.  Write one, read the other, both ways. */
	uintptr_t va = ((map_end + (4u << 20) - 1) & ~((4u << 20) - 1)) + (4u << 20);
	uintptr_t pa = (probe_mem_end - PAGE) & ~(PAGE - 1);
	if (va < map_end || va >= 0xff000000u || pa < probe_mem_start) {
		report_diag("%s self-check: no room for the alias check (RAM up to %#lx)", cur->name,
			    (unsigned long)map_end);
		return 0;
	}
	if (do_map(va, pa, PAGE, MMU_READ | MMU_WRITE) < 0)
		return -1;
	volatile uint32_t *v = (volatile uint32_t *)va, *p = (volatile uint32_t *)pa;
	pg_off();
	uint32_t keep = *p;
	pg_on();
	*v = 0xa11a5000u;			/* virtual write ... */
	pg_off();
	got = *p;				/* ... physical read-back */
	*p = 0x0a11a5edu;			/* physical write ... */
	pg_on();
	invlpg(va);
	uint32_t got2 = *v;			/* ... virtual read-back */
	pg_off();
	*p = keep;
	pg_on();
	do_unmap(va, PAGE);
	if (got != 0xa11a5000u || got2 != 0x0a11a5edu) {
		report_diag("error: %s self-check: alias %#lx -> %#lx read %#lx/%#lx, expected "
			    "0xa11a5000/0x0a11a5ed", cur->name, (unsigned long)va, (unsigned long)pa,
			    (unsigned long)got, (unsigned long)got2);
		do_map(va, pa, PAGE, MMU_READ | MMU_WRITE);	/* for the chain, then undo */
		i386_print_pte_chain(va);
		do_unmap(va, PAGE);
		return -1;
	}
	return 0;
}

/* ---- entering and leaving ---- */

static void leave_paging(void)
{
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
	if (pool_error)
		return pool_error;
	if (f->pae && !i386_cpu.pae)
		return "the CPU has no PAE (CPUID 1 EDX bit 6)";
	if (f->large && !f->pae && !i386_cpu.pse)
		return "the CPU has no PSE (CPUID 1 EDX bit 3)";
	if (opt_global && !i386_cpu.pge)
		return "global=1 but the CPU has no PGE (CPUID 1 EDX bit 13)";
	return 0;
}

static int enter(const struct pformat *f, int reporting)
{
	static uint32_t reported;	/* one bit per format: measurements printed */
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
	pool_next = pool_start;
	table_bytes = 0;
	memset(pdpt, 0, sizeof(pdpt));
	if (!f->pae && !(pd32 = alloc_table()))
		goto fail;
	if (f->pae)
		table_bytes += sizeof(pdpt);

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
	uint32_t bytes = table_bytes;

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
	write_cr3(f->pae ? (uint32_t)pdpt : pd32);
	write_cr0(read_cr0() | CR0_PG | CR0_WP);
	if (pge_on)
		write_cr4(cr4 | CR4_PGE);
	do_flush_all();			/* every mode starts from a full flush */

	if (opt_break) {
		/* Test only: point one sample page at its neighbour. */
		report_diag("mmu_break=1: mapping %#lx to %#lx on purpose", (unsigned long)probe_mem_start,
			    (unsigned long)probe_mem_start + PAGE);
		do_map(probe_mem_start, probe_mem_start + PAGE, PAGE, MMU_READ | MMU_WRITE);
	}
	if (self_check() < 0) {
		leave_paging();
		return -1;
	}
	if (reporting) {
		/* Once per mode, inside the measurement block. */
		unsigned bit = f == &fmt_2level ? 0 : f == &fmt_pse ? 1 : f == &fmt_pae ? 2 : 3;
		if (!(reported & (1u << bit))) {
			reported |= 1u << bit;
			report_diag("%s: 1:1 map of 0x00000000-0x%08lx, %lu KiB of tables, NX %s, global %s",
				    f->name, (unsigned long)map_end - 1,
				    (unsigned long)bytes >> 10, nx_on ? "on" : "off",
				    pge_on ? "on (0 .. image end)" : "off");
			if (f->large) {
				uintptr_t lend = map_end & ~(large_size() - 1);
				char tail[40] = "";
				if (lend < map_end)
					snprintf(tail, sizeof(tail), ", 0x%08lx-0x%08lx (RAM's end)",
						 (unsigned long)lend, (unsigned long)map_end - 1);
				if (lend > small_end)
					report_diag("%s: large pages 0x%08lx-0x%08lx; 4K pages 0x00000000-0x%08lx "
						    "(fixed-range MTRRs split the first MiB)%s", f->name,
						    (unsigned long)small_end, (unsigned long)lend - 1,
						    (unsigned long)small_end - 1, tail);
				else
					report_diag("%s: no large pages (RAM ends at %#lx)", f->name,
						    (unsigned long)map_end);
			}
			report_measurement("mmu", f->name, "pagetable_bytes", bytes, 0, "bytes");
			report_measurement("mmu", f->name, "mapped_bytes", map_end, 0, "bytes");
			if (ptdump_end > ptdump_start)
				ptdump(ptdump_start, ptdump_end);
		}
	}
	return 0;
fail:
	leave_paging();
	return -1;
}

/* First entry of any mode inside the measurement block: the CPUID figures. */
static int reporting(void)
{
	static int cpuid_done;

	if (config.crash)
		return 0;
	if (!cpuid_done) {
		cpuid_done = 1;
		i386_report_cpuid();
	}
	return 1;
}

static int flat_enter(void) { reporting(); leave_paging(); return 0; }
static void flat_leave(void) { }
static int enter_2level(void) { return enter(&fmt_2level, reporting()); }
static int enter_pse(void) { return enter(&fmt_pse, reporting()); }
static int enter_pae(void) { return enter(&fmt_pae, reporting()); }
static int enter_pae2m(void) { return enter(&fmt_pae2m, reporting()); }

static const struct mmu_mode mode_flat = {
	.name = "flat",
	.what = "paging off (CR0.PG = 0)",
	.translated = 0,
	.enter = flat_enter,
	.leave = flat_leave,
};

#define PAGING_MODE(id, desc, sizes) \
	static const struct mmu_mode mode_##id = { \
		.name = #id, .what = desc, .translated = 1, \
		.enter = enter_##id, .leave = leave_paging, .map = do_map, .unmap = do_unmap, \
		.protect = do_protect, .flush_all = do_flush_all, .flush_page = do_flush_page, \
		.page_sizes = sizes, \
	}
PAGING_MODE(2level, "32-bit entries, 2 levels, 4K pages", 1u << 12);
PAGING_MODE(pse, "32-bit entries, 4M pages where the region allows (CR4.PSE) but 0..4M, else 4K",
	    1u << 12 | 1u << 22);
PAGING_MODE(pae, "PAE: 64-bit entries, 3 levels, 4K pages (NX where the CPU has it)", 1u << 12);
PAGING_MODE(pae2m, "PAE: 64-bit entries, 2M pages where the region allows but 0..2M, else 4K",
	    1u << 12 | 1u << 21);

const struct mmu_mode *const mmu_modes[] = {
	&mode_flat, &mode_2level, &mode_pse, &mode_pae, &mode_pae2m, 0
};

/* ---- the page-table pool ---- */

/* Set the pool aside at the top of the RAM region probes use; everything
 * up to ram_end is mapped 1:1.  Sized for the largest format (PAE with 4K
 * pages) plus room for splits and probe mappings. */
void i386_mmu_reserve(uintptr_t ram_end)
{
	uint32_t tables, size;

	map_end = ram_end & ~(PAGE - 1);
	tables = 4 + (map_end >> 21) + 1 + 64 + (map_end >> 21) / 4;
	size = tables * PAGE;
	if (map_end < size || map_end - size < probe_mem_start + (1u << 20)) {
		static char why[96];
		snprintf(why, sizeof(why), "RAM ends at %#lx: no room for %lu KiB of page tables "
			 "above the image", (unsigned long)map_end, (unsigned long)size >> 10);
		pool_error = why;
		return;
	}
	pool_end = map_end;
	pool_start = map_end - size;
	probe_mem_end = pool_start;	/* probe buffers stay below the tables */
}

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
	return mmu_call_fault_hook(addr, write, prot);
}

/* ---- crash=data / crash=fetch ---- */

const char *i386_mmu_crash_unsupported(void)
{
	if (pool_error)
		return pool_error;
	if (probe_mem_end < probe_mem_start + 2 * PAGE)
		return "no free RAM for a page to unmap";
	return 0;
}

void i386_mmu_crash(int fetch)
{
	const struct pformat *f = fetch && i386_cpu.pae ? &fmt_pae : &fmt_2level;
	uintptr_t page = probe_mem_start;

	if (enter(f, 0) < 0)
		return;
	do_unmap(page, PAGE);
	report_diag("crash=%s: mode %s, %#lx unmapped, now %s it", fetch ? "fetch" : "data",
		    f->name, (unsigned long)page, fetch ? "calling into" : "writing to");
	if (fetch)
		((void (*)(void))page)();	/* #PF on the instruction fetch */
	else
		*(volatile uint32_t *)page = 0xbad;	/* #PF on the write */
	leave_paging();
}

/* ---- boot arguments ---- */

static int set_global(const char *key, const char *value) { return arg_flag(key, value, &opt_global); }
static int set_break(const char *key, const char *value) { return arg_flag(key, value, &opt_break); }

static int set_ptdump(const char *key, const char *value)
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

const struct boot_arg arch_args[] = {
	{ "global", "0 or 1: mark the image and low RAM global (CR4.PGE) in paging modes", set_global },
	{ "ptdump", "START-END: print the page tables of that range on each mode's first entry", set_ptdump },
	{ "mmu_break", "0 or 1 (tests only): corrupt one mapping so the self-check must fail", set_break },
	{ 0 }
};
