/* The sandbox's RAM: the memfd mapped 1:1 and once more as the physical
 * view, what pagemap says of page frames, physical reads and writes, and
 * the split of a 2 MiB page into the memfd's 4K pages.  Apart from the
 * MMU's modes (mmu.c): this is the "hardware" they drive. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "report.h"
#include "sandbox_mmu.h"

int ram_fd = -1;
char *phys;				/* the physical view: the whole memfd */
int pfns;				/* pagemap shows page frames (root) */
const char *pagemap_why;
uint8_t large[CHUNKS];			/* 2 MiB of RAM still in the mode's large pages */
static int mem_fd = -1, pagemap_fd = -1;

void sandbox_die(const char *what)
{
	fprintf(stderr, "mmubench: sandbox: %s: %s\n", what, strerror(errno));
	exit(3);
}

/* RAM as the memfd, 1:1, in 4K pages: how every mode starts and ends. */
void map_probe_memory_4k(void)
{
	if (mmap((void *)PROBE_START, RAM_END - PROBE_START, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, ram_fd, PROBE_START - RAM_BASE) == MAP_FAILED)
		sandbox_die("mmap of probe memory");
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
		sandbox_die("memfd for RAM");
	phys = mmap(0, RAM_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, ram_fd, 0);
	if (phys == MAP_FAILED)
		sandbox_die("the physical view");
	if (mmap((void *)RAM_BASE, IMAGE_BYTES, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, ram_fd, 0) == MAP_FAILED)
		sandbox_die("mmap of RAM at 0x10000000 (is something else there?)");
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
uint64_t pfn(uintptr_t va)
{
	uint64_t e;

	if (!pfns || pread(pagemap_fd, &e, 8, va / PAGE * 8) != 8 || !(e >> 63))
		return 0;
	return e & ((1ull << 55) - 1);
}

/* A word of RAM, physically: through the physical view, or where the 2 MiB
 * is still anonymous (mapped 1:1 by construction), /proc/self/mem. */
uint32_t phys_read(uintptr_t pa)
{
	uint32_t v = 0;

	if (!large[chunk(pa)])
		return *(volatile uint32_t *)(phys + (pa - RAM_BASE));
	if (pread(mem_fd, &v, 4, pa) != 4)
		report_diag("error: sandbox: /proc/self/mem read at %#lx: %s", (unsigned long)pa,
			    strerror(errno));
	return v;
}

void phys_write(uintptr_t pa, uint32_t v)
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

int split_range(uintptr_t a, size_t len)
{
	for (uintptr_t p = a & ~(uintptr_t)(LARGE - 1); p < a + len; p += LARGE)
		if (split(p) < 0)
			return -1;
	return 0;
}

/* Which RAM page has page frame f, by the physical view's pagemap; 0 none. */
uintptr_t ram_page_of(uint64_t f)
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
