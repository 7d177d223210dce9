/* Between the MMU core (boot/mmu.c) and each arch/'s page-table code.
 * Probes do not include this: they see include/mmu.h. */
#ifndef MMU_ARCH_H
#define MMU_ARCH_H
#include "mmu.h"

struct mmu_mode {
	const char *name;
	const char *what;		/* one line for banners and errors */
	const struct mmu_ops *ops;	/* 0: no translation (real, flat) */
	int variant;			/* the arch's: page format, page size */
};

struct mmu_space {
	int id;				/* 1..MMU_MAX_SPACES; the kernel space is 0 */
	unsigned flags;			/* MMU_SPACE_* */
	uintptr_t root;			/* the arch's root table */
	uintptr_t window[MMU_SPACE_SIZE >> 21];	/* the window's tables in order (2 MiB
						 * or 4 MiB each, the arch's); 0: none yet */
};
#define MMU_MAX_SPACES	32

/* What a mode's default mapping costs, for the run loop's figures. */
struct mmu_figures {
	uint32_t pagetable_bytes, mapped_bytes;
	char summary[120];		/* "1:1 map of ... in 4k pages ..." */
};

struct mmu_ops {
	/* Build the default mapping with tables from mmu_table_alloc(), empty
	 * the TLB, turn translation on.  0, or -1 after printing why. */
	int (*enter)(const struct mmu_mode *m);
	void (*leave)(void);
	int (*map)(uintptr_t va, uintptr_t pa, size_t len, unsigned attr);
	int (*unmap)(uintptr_t va, size_t len);
	int (*protect)(uintptr_t va, size_t len, unsigned attr);
	int (*query)(uintptr_t va, uintptr_t *pa, unsigned *attr);
	void (*flush_all)(void);
	int (*space_init)(struct mmu_space *s);		/* tables for a new space */
	void (*space_switch)(struct mmu_space *s);	/* 0: the kernel space */
	void (*space_fini)(struct mmu_space *s);	/* forget it (TLB too) */
	void (*tlb_info)(struct mmu_tlb_info *t);
	void (*figures)(struct mmu_figures *f);
	/* The self-check's access: with translation off keep the word at pa
	 * and write p1 there; through va read got[0] and write p2; physically
	 * read got[1], put the word back.  Registers only in between, so live
	 * data survives.  read_only: just read both ways. */
	void (*check_word)(uintptr_t va, uintptr_t pa, uint32_t p1, uint32_t p2,
			   uint32_t got[2], int read_only);
	void (*explain)(uintptr_t va);	/* print what maps va: TLB entry, table chain */
	/* Optional: why the host cannot offer mode m (its probes then SKIP
	 * with this reason), or 0.  The sandbox's: no THP, no huge pages. */
	const char *(*unavailable)(const struct mmu_mode *m);
};

/* The arch's modes, 0-terminated, and what it needs from the core. */
extern const struct mmu_mode *const mmu_modes[];

/* Page-table pool (boot/mmu.c): zeroed 4 KiB tables from RAM that
 * boot/mem.c set aside at the top; reset on every enter. */
uintptr_t mmu_table_alloc(void);		/* 0 after printing "pool exhausted" */
void mmu_table_free(uintptr_t t);

/* The arch's pool size for a 1:1 map of [0, ram_end), and its live ranges
 * the self-check must only read (tables the CPU or handler walks). */
uint32_t mmu_arch_pool_bytes(uintptr_t ram_end);
int mmu_arch_live(uintptr_t a);
/* Pages the self-check samples at most per region, or 0: every page. */
unsigned mmu_arch_check_samples(void);

/* The TLB while translation is off (real, flat): the 405 still offers its
 * counted walk there, as the baseline with no misses. */
void mmu_arch_untranslated_tlb(struct mmu_tlb_info *t);

/* Called by the arch's fault handlers; 0 means nobody expected it.  pc is
 * the faulting instruction's address: on MMU_FAULT_SKIP, *resume is where
 * to go on (mmu_probe_load's skip path), or the call returns 0 after
 * saying why when the fault was not that load's. */
int mmu_call_fault_hook(uintptr_t addr, int write, int protection, uintptr_t pc,
			uintptr_t *resume);
extern char mmu_probe_load_insn[], mmu_probe_load_skip[];	/* arch assembly */

/* The mode entered last (0 in real/flat) and the current space. */
extern const struct mmu_mode *mmu_current;
extern struct mmu_space *mmu_current_space;

/* A table an arch made for window address va, each table mapping 1 << shift
 * bytes: the current space's from now on (its switch links it, its fini
 * frees it).  Only [0] comes with the space: a process that maps nothing
 * past its first table costs no more than one. */
static inline void mmu_window_adopt(uintptr_t va, unsigned shift, uintptr_t table)
{
	if (mmu_current_space && va - MMU_SPACE_BASE < MMU_SPACE_SIZE)
		mmu_current_space->window[(va - MMU_SPACE_BASE) >> shift] = table;
}

#endif
