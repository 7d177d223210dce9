/* The sandbox's address spaces: a record of each space's window pages,
 * and a switch that unmaps the window and maps the new space's pages (a
 * process cannot switch page tables).  Apart from mmu.c, as the boards'
 * spaces are their own code. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include "report.h"
#include "sandbox_mmu.h"

uint32_t window[MMU_MAX_SPACES + 1][MMU_SPACE_SIZE / PAGE];
int space_now;				/* 0: the kernel space */

void window_load(int id)
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

int sandbox_space_init(struct mmu_space *s)
{
	memset(window[s->id], 0, sizeof(window[0]));
	s->root = s->id;
	return 0;
}

void sandbox_space_switch(struct mmu_space *s)
{
	window_load(s ? s->id : 0);
}

void sandbox_space_fini(struct mmu_space *s)
{
	memset(window[s->id], 0, sizeof(window[0]));
}
