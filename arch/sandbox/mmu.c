/* MMU modes of the sandbox: what Linux lets a process do with its own
 * address space, behind the same struct mmu_ops as the boards' page tables.
 *
 *   4k       RAM is the memfd, MAP_SHARED, MADV_NOHUGEPAGE: 4K pages
 *   thp      probe memory is anonymous memory with MADV_HUGEPAGE, so the
 *            kernel backs it with 2 MiB pages where it can (transparent
 *            huge pages); the image's area stays the memfd in 4K pages
 *   hugetlb  probe memory is MAP_HUGETLB 2 MiB pages from the reserved pool
 *
 * "Physical" addresses are RAM_BASE + offset in the memfd (sandbox.h);
 * every mode maps RAM 1:1 when entered.  map/unmap/protect are
 * mmap(MAP_FIXED) of the memfd, munmap and mprotect; a record of what we
 * mapped (one word a 4K page below 4 GiB) is what query() starts from,
 * and /proc/self/pagemap, where it shows page frames (root), says whether
 * the hardware's page goes to the same frame as the memfd's page.
 *
 * Only the memfd can be mapped twice.  So in thp and hugetlb, a probe that
 * maps, unmaps or protects 4K pages of probe memory first splits the 2 MiB
 * around them, as i386's pse splits a large page: its data is copied into
 * the memfd, which is then mapped there in 4K pages.  The self-check's
 * physical side is the memfd's second mapping (the physical view), or,
 * for 2 MiB still anonymous, /proc/self/mem: the kernel's own walk of the
 * page tables, not the CPU's TLB.
 *
 * What a process cannot do: count TLB misses, flush the TLB when asked
 * (flush_all does nothing and counts nothing; the kernel
 * flushes on munmap and mprotect), or switch page tables without the
 * scheduler: an address space is a record of its window's pages, and a
 * switch unmaps the window and maps the new space's pages.
 *
 * Faults are SIGSEGV (faults.c): the handler counts them (SEGV_MAPERR a page fault,
 * SEGV_ACCERR a protection fault), calls the probe's hook and resumes,
 * at mmu_probe_load_skip where the hook skips the load.
 *
 * Here: the modes and struct mmu_ops; the memfd, the physical view and
 * splitting are ram.c's, address spaces spaces.c's. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/mman.h>		/* MAP_HUGE_2MB */
#include "sort.h"
#include "arch.h"
#include "config.h"
#include "mem.h"
#include "probe.h"
#include "report.h"
#include "sandbox_mmu.h"

struct mmu_counters mmu_count;

static int variant = -1;		/* the mode entered: 0 4k, 1 thp, 2 hugetlb */
uint32_t record[1u << 20];

/* ---- the interface ---- */

static int check_range(const char *what, uintptr_t va, size_t len, unsigned attr)
{
	if ((va | len) & (PAGE - 1) || !len || va + len < va || va + len > 0x100000000ull) {
		report_diag("error: %s: %#lx+%#lx is not whole 4K pages below 4 GiB", what,
			    (unsigned long)va, (unsigned long)len);
		return -1;
	}
	if (va < PROBE_START && va + len > RAM_BASE) {
		report_diag("error: %s: %#lx+%#lx: the image's area (heap, stack) is not "
			    "remapped", what, (unsigned long)va, (unsigned long)len);
		return -1;
	}
	if (attr & MMU_UNCACHED) {
		report_diag("error: %s: a Linux process cannot map memory uncached", what);
		return -1;
	}
	return 0;
}

static int do_map(uintptr_t va, uintptr_t pa, size_t len, unsigned attr)
{
	if (check_range("map", va, len, attr) < 0)
		return -1;
	if ((pa & (PAGE - 1)) || !in_ram(pa) || pa + len > RAM_END) {
		report_diag("error: map: %#lx+%#lx is not in the sandbox's RAM", (unsigned long)pa,
			    (unsigned long)len);
		return -1;
	}
	if (split_range(va, len) < 0 || split_range(pa, len) < 0)
		return -1;
	if (mmap((void *)va, len, prot_of(attr), MAP_SHARED | MAP_FIXED, ram_fd,
		 pa - RAM_BASE) == MAP_FAILED) {
		report_diag("error: map: mmap %#lx+%#lx: %s", (unsigned long)va, (unsigned long)len,
			    strerror(errno));
		return -1;
	}
	for (size_t o = 0; o < len; o += PAGE)
		*entry(va + o) = (uint32_t)(pa + o) | (attr & 0x3f) | PRESENT;
	return 0;
}

static int do_unmap(uintptr_t va, size_t len)
{
	if (check_range("unmap", va, len, 0) < 0 || split_range(va, len) < 0)
		return -1;
	if (munmap((void *)va, len) < 0) {
		report_diag("error: unmap: munmap %#lx+%#lx: %s", (unsigned long)va,
			    (unsigned long)len, strerror(errno));
		return -1;
	}
	for (size_t o = 0; o < len; o += PAGE)
		*entry(va + o) = 0;
	return 0;
}

static int do_protect(uintptr_t va, size_t len, unsigned attr)
{
	if (check_range("protect", va, len, attr) < 0)
		return -1;
	for (size_t o = 0; o < len; o += PAGE)
		if (!(*entry(va + o) & PRESENT)) {
			report_diag("error: protect: %#lx is not mapped", (unsigned long)(va + o));
			return -1;
		}
	if (split_range(va, len) < 0)
		return -1;
	if (mprotect((void *)va, len, prot_of(attr)) < 0) {
		report_diag("error: protect: mprotect %#lx+%#lx: %s", (unsigned long)va,
			    (unsigned long)len, strerror(errno));
		return -1;
	}
	for (size_t o = 0; o < len; o += PAGE)
		*entry(va + o) = (*entry(va + o) & ~0x3fu) | (attr & 0x3f);
	return 0;
}

/* The record says where va goes; where the page is present and pagemap
 * shows frames, its frame must be the memfd page's, else the page that
 * frame belongs to is the answer (~0: not RAM). */
static int do_query(uintptr_t va, uintptr_t *pa, unsigned *attr)
{
	uint32_t e = *entry(va);
	uintptr_t page = e & ~(PAGE - 1);
	uint64_t f;

	if (!(e & PRESENT))
		return -1;
	*pa = page + (va & (PAGE - 1));
	*attr = e & 0x3f;
	if (!(f = pfn(va)) || large[chunk(page)])	/* anonymous 2 MiB: only 1:1 exists */
		return 0;
	(void)*(volatile char *)(phys + (page - RAM_BASE));	/* present in the view */
	if (pfn((uintptr_t)phys + (page - RAM_BASE)) != f) {
		uintptr_t other = ram_page_of(f);
		*pa = other ? other + (va & (PAGE - 1)) : ~(uintptr_t)0;
	}
	return 0;
}

static void do_flush_all(void) { }		/* a process cannot: see the top */

/* Through va and physically; only plain loads and stores on the memfd path,
 * so a word in our own stack's page survives. */
static void check_word(uintptr_t va, uintptr_t pa, uint32_t p1, uint32_t p2, uint32_t got[2],
		       int read_only)
{
	volatile uint32_t *v = (volatile uint32_t *)va;

	if (read_only) {
		got[1] = phys_read(pa);
		got[0] = *v;
		return;
	}
	uint32_t keep = phys_read(pa);
	phys_write(pa, p1);
	got[0] = *v;
	*v = p2;
	got[1] = phys_read(pa);
	phys_write(pa, keep);
}

static void explain(uintptr_t va)
{
	uint32_t e = *entry(va);
	uint64_t f = pfn(va);
	uintptr_t page = e & ~(PAGE - 1);

	report_diag("sandbox: %#lx: record %s%#lx attr %#x; %s", (unsigned long)va,
		    e & PRESENT ? "maps to " : "unmapped, ", (unsigned long)page, e & 0x3f,
		    pagemap_why ? pagemap_why : "");
	if (pfns && (e & PRESENT) && in_ram(page) && !large[chunk(page)])
		report_diag("sandbox: page frame %#llx through va, %#llx through the physical view",
			    (unsigned long long)f,
			    (unsigned long long)pfn((uintptr_t)phys + (page - RAM_BASE)));
	else if (pfns)
		report_diag("sandbox: page frame %#llx through va", (unsigned long long)f);
}

/* ---- modes ---- */

static const char *unavailable(const struct mmu_mode *m)
{
	static char why[128];
	char buf[32];

	if (m->variant == 1) {
		if (!sandbox_thp_setting(buf, sizeof(buf), "enabled"))
			return "no transparent huge pages in this kernel";
		if (!strcmp(buf, "never"))
			return "THP is off (/sys/kernel/mm/transparent_hugepage/enabled: never)";
	}
	if (m->variant == 2) {
		long need = (RAM_END - PROBE_START) / LARGE, free = sandbox_meminfo("HugePages_Free");
		if (sandbox_meminfo("Hugepagesize") != 2048)
			return "the default huge page is not 2 MiB (/proc/meminfo Hugepagesize)";
		if (free < need) {
			snprintf(why, sizeof(why), "needs %ld free 2 MiB huge pages, has %ld "
				 "(vm.nr_hugepages; or a smaller ram=)", need, free);
			return why;
		}
	}
	return 0;
}

static int enter(const struct mmu_mode *m)
{
	size_t len = RAM_END - PROBE_START;

	variant = m->variant;
	memset(record, 0, sizeof(record));
	if (m->variant == 1 || m->variant == 2) {
		int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE;
		if (m->variant == 2)
			flags |= MAP_HUGETLB | MAP_HUGE_2MB;
		if (mmap((void *)PROBE_START, len, PROT_READ | PROT_WRITE, flags, -1, 0) == MAP_FAILED) {
			report_diag("error: cannot enter %s: mmap of probe memory: %s", m->name,
				    strerror(errno));
			map_probe_memory_4k();
			return -1;
		}
		if (m->variant == 1)
			madvise((void *)PROBE_START, len, MADV_HUGEPAGE);
		memset(large + chunk(PROBE_START), 1, len / LARGE);
	} else {
		map_probe_memory_4k();
	}
	for (uintptr_t a = RAM_BASE; a < RAM_END; a += PAGE)
		record[a / PAGE] = (uint32_t)a | MMU_READ | MMU_WRITE | PRESENT;
	return 0;
}

/* How much of probe memory the kernel gave as 2 MiB pages, once a mode has
 * touched most of it: said at leave (the figures come before any probe). */
static void say_huge(void)
{
	static int said[3];
	char line[128];
	long rss = 0, huge = 0;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "Anonymous: %ld", &rss);
		sscanf(line, "AnonHugePages: %ld", &huge);
	}
	if (f)
		fclose(f);
	if (variant == 2)
		huge = rss = (sandbox_meminfo("HugePages_Total") - sandbox_meminfo("HugePages_Free")) *
			     sandbox_meminfo("Hugepagesize");	/* KiB, as smaps */
	if (said[variant] || rss < 64 * 1024)
		return;
	said[variant] = 1;
	report_diag("%s: %ld of %ld MiB of anonymous memory touched were 2 MiB pages (%s)",
		    variant == 1 ? "thp" : "hugetlb", huge >> 10, rss >> 10,
		    variant == 1 ? "smaps AnonHugePages" : "HugePages_Total - Free");
}

static void leave(void)
{
	if (variant > 0)
		say_huge();
	for (uintptr_t a = 0; a < 0x100000000ull; a += PAGE)	/* the probes' other mappings */
		if (!in_ram(a) && (record[a / PAGE] & PRESENT))
			munmap((void *)a, PAGE);
	window_load(0);
	map_probe_memory_4k();
	memset(record, 0, sizeof(record));
	variant = -1;
}

static void tlb_info(struct mmu_tlb_info *t)
{
	t->refill = MMU_REFILL_HARDWARE;
	t->entries = sandbox_dtlb_entries(variant > 0);
	t->page_sizes = 1u << 12 | (variant > 0 ? 1u << 21 : 0);
	t->space_switch = MMU_SWITCH_EMULATED;	/* munmap + mmap of the window */
	t->counts = MMU_COUNTS_FAULTS;		/* SIGSEGV; Linux's flushes are its own */
}

void mmu_arch_untranslated_tlb(struct mmu_tlb_info *t)
{
	(void)t;
}

/* The kernel's own page fault, as LMbench's lat_pagefault means it: the
 * first touch of a page of a file already in the page cache, freshly
 * mapped (here 4 MiB of memfd pages at a scratch address, in order: the
 * kernel maps up to 16 neighbours a fault, fault_around_bytes).  The demand probe's
 * page fault adds the signal and the hook's mmap to this.  Median of 5. */
#define SCRATCH		0xE0000000u
#define TOUCH_PAGES	1024

static void first_touch(const char *mode)
{
	int64_t ns[5];

	for (int i = 0; i < TOUCH_PAGES; i++)		/* in the page cache */
		(void)*(volatile char *)(phys + (PROBE_START - RAM_BASE) + i * PAGE);
	for (int r = 0; r < 5; r++) {
		char *p = mmap((void *)SCRATCH, TOUCH_PAGES * PAGE, PROT_READ, MAP_SHARED | MAP_FIXED,
			       ram_fd, PROBE_START - RAM_BASE);
		if (p == MAP_FAILED)
			return;
		uint64_t t0 = arch_ticks();
		for (int i = 0; i < TOUCH_PAGES; i++)
			(void)*(volatile char *)(p + i * PAGE);
		uint64_t t1 = arch_ticks();
		munmap(p, TOUCH_PAGES * PAGE);
		ns[r] = ticks_to_ns100(t1 - t0) / TOUCH_PAGES;
	}
	report_measurement("mmu", mode, "first_touch_ns", median_i64(ns, 5), 2, "ns");
}

static void figures(struct mmu_figures *f)
{
	char line[128];
	long pte = 0;
	FILE *fp = fopen("/proc/self/status", "r");

	while (fp && fgets(line, sizeof(line), fp))
		sscanf(line, "VmPTE: %ld", &pte);
	if (fp)
		fclose(fp);
	f->pagetable_bytes = pte * 1024;
	f->mapped_bytes = RAM_BYTES;
	snprintf(f->summary, sizeof(f->summary), "1:1 map of %#lx-%#lx, probe memory %s; "
		 "the kernel's tables (VmPTE)", (unsigned long)RAM_BASE, (unsigned long)RAM_END - 1,
		 variant == 0 ? "the memfd in 4K pages" : variant == 1 ?
		 "anonymous, MADV_HUGEPAGE" : "MAP_HUGETLB 2 MiB");
	first_touch(mmu_current->name);
	if (pagemap_why)
		report_diag("%s: query() from our record only: %s", mmu_current->name, pagemap_why);
	else
		report_diag("%s: query() checks page frames in /proc/self/pagemap", mmu_current->name);
}

/* RAM's pages are checked through the physical view: cheap, but in thp
 * every page sampled costs a 2 MiB page: 64 a region. */
unsigned mmu_arch_check_samples(void) { return 64; }
uint32_t mmu_arch_pool_bytes(uintptr_t ram_end) { (void)ram_end; return 0; }
int mmu_arch_live(uintptr_t a) { (void)a; return 0; }

static const struct mmu_ops sandbox_ops = {
	.enter = enter, .leave = leave,
	.map = do_map, .unmap = do_unmap, .protect = do_protect, .query = do_query,
	.flush_all = do_flush_all,
	.space_init = sandbox_space_init, .space_switch = sandbox_space_switch,
	.space_fini = sandbox_space_fini,
	.tlb_info = tlb_info, .figures = figures, .check_word = check_word,
	.explain = explain, .unavailable = unavailable,
};

static const struct mmu_mode mode_4k = { "4k", "the memfd in 4K pages (MADV_NOHUGEPAGE)",
	&sandbox_ops, 0 };
static const struct mmu_mode mode_thp = { "thp",
	"probe memory anonymous with MADV_HUGEPAGE (transparent 2 MiB pages)", &sandbox_ops, 1 };
static const struct mmu_mode mode_hugetlb = { "hugetlb",
	"probe memory MAP_HUGETLB 2 MiB pages (reserved pool)", &sandbox_ops, 2 };

const struct mmu_mode *const mmu_modes[] = { &mode_4k, &mode_thp, &mode_hugetlb, 0 };
