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
 * Faults are SIGSEGV: the handler counts them (SEGV_MAPERR a page fault,
 * SEGV_ACCERR a protection fault), calls the probe's hook and resumes,
 * at mmu_probe_load_skip where the hook skips the load. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/mman.h>		/* MAP_HUGE_2MB */
#include "sort.h"
#include "arch.h"
#include "config.h"
#include "mem.h"
#include "mmu_arch.h"
#include "probe.h"
#include "report.h"
#include "sandbox.h"

#define PAGE		4096u
#define PRESENT		0x800u		/* in a record word, besides MMU_* (bits 0-5) */
#define CHUNKS		(RAM_MAX_BYTES / LARGE)	/* for the largest RAM the layout allows */

struct mmu_counters mmu_count;

static int ram_fd = -1, mem_fd = -1, pagemap_fd = -1;
static char *phys;			/* the physical view: the whole memfd */
static int pfns;			/* pagemap shows page frames (root) */
static const char *pagemap_why;
static int variant = -1;		/* the mode entered: 0 4k, 1 thp, 2 hugetlb */
static uint8_t large[CHUNKS];		/* 2 MiB of RAM still in the mode's large pages */

/* The record: what we mapped at each 4K page below 4 GiB (pa | MMU_* |
 * PRESENT); the window's pages are per space. */
static uint32_t record[1u << 20];
static uint32_t window[MMU_MAX_SPACES + 1][MMU_SPACE_SIZE / PAGE];
static int space_now;			/* 0: the kernel space */

static int in_window(uintptr_t va)
{
	return va >= MMU_SPACE_BASE && va < MMU_SPACE_BASE + MMU_SPACE_SIZE;
}

static uint32_t *entry(uintptr_t va)
{
	if (in_window(va))
		return &window[space_now][(va - MMU_SPACE_BASE) / PAGE];
	return &record[va / PAGE];
}

static int in_ram(uintptr_t a) { return a >= RAM_BASE && a < RAM_END; }
static int chunk(uintptr_t a) { return (a - RAM_BASE) / LARGE; }

/* ---- RAM ---- */

static void die(const char *what)
{
	fprintf(stderr, "mmubench: sandbox: %s: %s\n", what, strerror(errno));
	exit(3);
}

/* RAM as the memfd, 1:1, in 4K pages: how every mode starts and ends. */
static void map_probe_memory_4k(void)
{
	if (mmap((void *)PROBE_START, RAM_END - PROBE_START, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, ram_fd, PROBE_START - RAM_BASE) == MAP_FAILED)
		die("mmap of probe memory");
	madvise((void *)PROBE_START, RAM_END - PROBE_START, MADV_NOHUGEPAGE);
	memset(large, 0, sizeof(large));
}

void sandbox_ram_init(void)
{
	static int done;
	uint64_t e = 0;

	if (done)
		return;
	done = 1;
	sandbox_ram_choose();
	ram_fd = memfd_create("mmubench-ram", MFD_CLOEXEC);
	if (ram_fd < 0 || ftruncate(ram_fd, RAM_BYTES) < 0)
		die("memfd for RAM");
	phys = mmap(0, RAM_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, ram_fd, 0);
	if (phys == MAP_FAILED)
		die("the physical view");
	if (mmap((void *)RAM_BASE, IMAGE_BYTES, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, ram_fd, 0) == MAP_FAILED)
		die("mmap of RAM at 0x10000000 (is something else there?)");
	map_probe_memory_4k();
	mem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	*(volatile char *)phys = 0;	/* present, so that pagemap shows its frame */
	if (pagemap_fd < 0)
		pagemap_why = "/proc/self/pagemap cannot be opened";
	else if (pread(pagemap_fd, &e, 8, (uintptr_t)phys / PAGE * 8) != 8 || !(e >> 63))
		pagemap_why = "/proc/self/pagemap cannot be read";
	else if (!(e & ((1ull << 55) - 1)))
		pagemap_why = "/proc/self/pagemap hides page frames (not CAP_SYS_ADMIN)";
	else
		pfns = 1;
}

/* The page frame behind va, 0 when not present or not shown. */
static uint64_t pfn(uintptr_t va)
{
	uint64_t e;

	if (!pfns || pread(pagemap_fd, &e, 8, va / PAGE * 8) != 8 || !(e >> 63))
		return 0;
	return e & ((1ull << 55) - 1);
}

/* A word of RAM, physically: through the physical view, or where the 2 MiB
 * is still anonymous (mapped 1:1 by construction), /proc/self/mem. */
static uint32_t phys_read(uintptr_t pa)
{
	uint32_t v = 0;

	if (!large[chunk(pa)])
		return *(volatile uint32_t *)(phys + (pa - RAM_BASE));
	if (pread(mem_fd, &v, 4, pa) != 4)
		report_diag("error: sandbox: /proc/self/mem read at %#lx: %s", (unsigned long)pa,
			    strerror(errno));
	return v;
}

static void phys_write(uintptr_t pa, uint32_t v)
{
	if (!large[chunk(pa)]) {
		*(volatile uint32_t *)(phys + (pa - RAM_BASE)) = v;
		return;
	}
	if (pwrite(mem_fd, &v, 4, pa) != 4)
		report_diag("error: sandbox: /proc/self/mem write at %#lx: %s", (unsigned long)pa,
			    strerror(errno));
}

/* The 2 MiB around a into the memfd's 4K pages, same data (see the top). */
static int split(uintptr_t a)
{
	int c = chunk(a);
	uintptr_t base = RAM_BASE + (uintptr_t)c * LARGE;

	if (!in_ram(a) || !large[c])
		return 0;
	memcpy(phys + (base - RAM_BASE), (void *)base, LARGE);
	if (mmap((void *)base, LARGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, ram_fd,
		 base - RAM_BASE) == MAP_FAILED) {
		report_diag("error: sandbox: splitting %#lx: %s", (unsigned long)base, strerror(errno));
		return -1;
	}
	large[c] = 0;
	return 0;
}

static int split_range(uintptr_t a, size_t len)
{
	for (uintptr_t p = a & ~(uintptr_t)(LARGE - 1); p < a + len; p += LARGE)
		if (split(p) < 0)
			return -1;
	return 0;
}

/* ---- the interface ---- */

static int prot_of(unsigned attr)
{
	return (attr & (MMU_READ | MMU_WRITE | MMU_EXEC) ? PROT_READ : 0) |
	       (attr & MMU_WRITE ? PROT_WRITE : 0) | (attr & MMU_EXEC ? PROT_EXEC : 0);
}

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

/* Which RAM page has page frame f, by the physical view's pagemap; 0 none. */
static uintptr_t ram_page_of(uint64_t f)
{
	static uint64_t e[512];

	for (uintptr_t o = 0; o < RAM_BYTES; o += sizeof(e) / 8 * PAGE) {
		if (pread(pagemap_fd, e, sizeof(e), ((uintptr_t)phys + o) / PAGE * 8) != sizeof(e))
			return 0;
		for (unsigned i = 0; i < 512; i++)
			if ((e[i] >> 63) && (e[i] & ((1ull << 55) - 1)) == f)
				return RAM_BASE + o + i * PAGE;
	}
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

/* ---- address spaces: the window's record per space ---- */

static void window_load(int id)
{
	munmap((void *)MMU_SPACE_BASE, MMU_SPACE_SIZE);
	space_now = id;
	for (unsigned i = 0, j; i < MMU_SPACE_SIZE / PAGE; i = j) {
		uint32_t e = window[id][i];
		for (j = i + 1; j < MMU_SPACE_SIZE / PAGE; j++)	/* a run: contiguous, same attr */
			if (window[id][j] != e + (j - i) * PAGE)
				break;
		if (!(e & PRESENT))
			continue;
		uintptr_t pa = e & ~(PAGE - 1);
		if (mmap((void *)(MMU_SPACE_BASE + (uintptr_t)i * PAGE), (size_t)(j - i) * PAGE,
			 prot_of(e & 0x3f), MAP_SHARED | MAP_FIXED, ram_fd, pa - RAM_BASE) == MAP_FAILED)
			report_diag("error: sandbox: space %d: mmap: %s", id, strerror(errno));
	}
}

static int space_init(struct mmu_space *s)
{
	memset(window[s->id], 0, sizeof(window[0]));
	s->root = s->id;
	return 0;
}

static void space_switch(struct mmu_space *s)
{
	window_load(s ? s->id : 0);
}

static void space_fini(struct mmu_space *s)
{
	memset(window[s->id], 0, sizeof(window[0]));
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
	.space_init = space_init, .space_switch = space_switch, .space_fini = space_fini,
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

/* ---- faults: SIGSEGV, and the signals of crash= ---- */

static void unexpected(int sig, siginfo_t *si, ucontext_t *uc)
{
	static int nested;
	greg_t *g = uc->uc_mcontext.gregs;
	char why[80];

	if (nested++) {
		fprintf(stdout, "\nmmubench: signal %d while reporting a signal\n", sig);
		_exit(1);
	}
	report_diag("unexpected signal %d (%s), code %d, address %#lx", sig, strsignal(sig),
		    si->si_code, (unsigned long)si->si_addr);
	report_diag("rip %#llx rsp %#llx rbp %#llx err %#llx", (unsigned long long)g[REG_RIP],
		    (unsigned long long)g[REG_RSP], (unsigned long long)g[REG_RBP],
		    (unsigned long long)g[REG_ERR]);
	report_diag("rax %#llx rbx %#llx rcx %#llx rdx %#llx rsi %#llx rdi %#llx",
		    (unsigned long long)g[REG_RAX], (unsigned long long)g[REG_RBX],
		    (unsigned long long)g[REG_RCX], (unsigned long long)g[REG_RDX],
		    (unsigned long long)g[REG_RSI], (unsigned long long)g[REG_RDI]);
	snprintf(why, sizeof(why), "unexpected %s at %#lx", sig == SIGSEGV ? "SIGSEGV" :
		 strsignal(sig), (unsigned long)si->si_addr);
	exit(report_abort(why));
}

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	static uintptr_t last_addr, last_pc;
	static int repeats;
	ucontext_t *uc = ctx;
	greg_t *g = uc->uc_mcontext.gregs;
	uintptr_t addr = (uintptr_t)si->si_addr, pc = g[REG_RIP], resume;
	int prot = si->si_code == SEGV_ACCERR, write = (g[REG_ERR] & 2) != 0;

	if (sig != SIGSEGV || !mmu_current)
		unexpected(sig, si, uc);
	if (prot)
		mmu_count.prot_faults++;
	else
		mmu_count.page_faults++;
	/* A hook that claims success but fixes nothing would fault forever. */
	if (addr == last_addr && pc == last_pc) {
		if (++repeats >= 3) {
			report_diag("error: SIGSEGV at %#lx handled 3 times without effect",
				    (unsigned long)addr);
			unexpected(sig, si, uc);
		}
	} else {
		repeats = 0;
	}
	last_addr = addr, last_pc = pc;
	int r = mmu_call_fault_hook(addr, write, prot, pc, &resume);
	if (!r)
		unexpected(sig, si, uc);
	if (r == MMU_FAULT_SKIP)
		g[REG_RIP] = resume, last_pc = 0;
}

void sandbox_faults_init(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, 0);
}

/* ---- crash= ---- */

const char *arch_crash_unsupported(const char *kind)
{
	if (!strcmp(kind, "data") || !strcmp(kind, "illegal") || !strcmp(kind, "divide"))
		return 0;
	if (!strcmp(kind, "align"))
		return "Linux on x86-64 raises no alignment fault for ordinary loads";
	return "the sandbox's text is the Linux program's: crash=data, illegal or divide";
}

void arch_crash(const char *kind)
{
	if (!strcmp(kind, "data")) {
		if (mmu_enter(mmu_modes[0]) < 0)
			return;
		report_diag("crash=data: writing to %#x, which nothing maps", 0xD0200000u);
		*(volatile uint32_t *)0xD0200000u = 0xbad;
		mmu_leave();
	} else if (!strcmp(kind, "illegal")) {
		__asm__ volatile("ud2");
	} else {
		volatile int zero = 0, x = 1;
		x /= zero;
	}
}
