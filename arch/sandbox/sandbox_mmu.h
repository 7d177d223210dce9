/* Between the sandbox's MMU files: RAM and the physical view (ram.c), the
 * modes and the record of what is mapped (mmu.c), address spaces
 * (spaces.c).  What each holds is said at the top of mmu.c. */
#ifndef SANDBOX_MMU_H
#define SANDBOX_MMU_H
#include <stdint.h>
#include <sys/mman.h>
#include "mmu_arch.h"
#include "sandbox.h"

#define PAGE		4096u
#define PRESENT		0x800u		/* in a record word, besides MMU_* (bits 0-5) */
#define CHUNKS		(RAM_MAX_BYTES / LARGE)	/* for the largest RAM the layout allows */

/* ram.c */
extern int ram_fd;
extern char *phys;			/* the physical view: the whole memfd */
extern int pfns;			/* pagemap shows page frames (root) */
extern const char *pagemap_why;		/* why not, or 0 */
extern uint8_t large[CHUNKS];		/* 2 MiB of RAM still in the mode's large pages */
void sandbox_die(const char *what) __attribute__((noreturn));
void map_probe_memory_4k(void);		/* RAM as the memfd, 1:1, in 4K pages */
uint64_t pfn(uintptr_t va);		/* the page frame behind va; 0 */
uintptr_t ram_page_of(uint64_t f);	/* the RAM page with frame f; 0 */
uint32_t phys_read(uintptr_t pa);
void phys_write(uintptr_t pa, uint32_t v);
int split_range(uintptr_t a, size_t len);	/* 2 MiB pages there into 4K */

/* The record: what we mapped at each 4K page below 4 GiB (pa | MMU_* |
 * PRESENT; mmu.c); the window's pages are per space (spaces.c). */
extern uint32_t record[1u << 20];
extern uint32_t window[MMU_MAX_SPACES + 1][MMU_SPACE_SIZE / PAGE];
extern int space_now;			/* 0: the kernel space */
void window_load(int id);		/* unmap the window, map space id's pages */
int sandbox_space_init(struct mmu_space *s);
void sandbox_space_switch(struct mmu_space *s);
void sandbox_space_fini(struct mmu_space *s);

static inline int in_window(uintptr_t va)
{
	return va >= MMU_SPACE_BASE && va < MMU_SPACE_BASE + MMU_SPACE_SIZE;
}

static inline uint32_t *entry(uintptr_t va)
{
	if (in_window(va))
		return &window[space_now][(va - MMU_SPACE_BASE) / PAGE];
	return &record[va / PAGE];
}

static inline int in_ram(uintptr_t a) { return a >= RAM_BASE && a < RAM_END; }
static inline int chunk(uintptr_t a) { return (a - RAM_BASE) / LARGE; }

static inline int prot_of(unsigned attr)
{
	return (attr & (MMU_READ | MMU_WRITE | MMU_EXEC) ? PROT_READ : 0) |
	       (attr & MMU_WRITE ? PROT_WRITE : 0) | (attr & MMU_EXEC ? PROT_EXEC : 0);
}

#endif
