/* The MMU core: the mode entered last, the page-table pool, the self-check
 * every enter runs, address spaces, the fault hook and the once-per-mode
 * figures.  Each arch's struct mmu_ops (include/mmu_arch.h) does the
 * page-table work; probes call the mmu_* functions of include/mmu.h. */
#include <stdio.h>
#include "arch.h"
#include "config.h"
#include "mem.h"
#include "mmu_arch.h"
#include "report.h"
#include "watchdog.h"
#include "mmu_core.h"

#define PAGE	4096u

const struct mmu_mode *mmu_current;
struct mmu_space *mmu_current_space;
static const struct mmu_ops *ops;	/* mmu_current's, or 0 */
static mmu_fault_hook fault_hook;
static int opt_break;

int mmu_translated(const struct mmu_mode *m) { return m->ops != 0; }

/* ---- the page-table pool: a bump allocator with a free list ---- */

static uintptr_t pool_start, pool_end, pool_next, pool_free;
static uint32_t pool_used, default_tables;
static char pool_error[120];

/* After board_init: the pool off the top of free RAM, sized by the arch. */
void mmu_init(void)
{
	uintptr_t end = mem_ram_end();
	uint32_t bytes = mmu_arch_pool_bytes(end);

	pool_start = mem_reserve_top(bytes);
	if (!pool_start)
		snprintf(pool_error, sizeof(pool_error), "RAM ends at %#lx: no room for %lu KiB "
			 "of page tables above the image", (unsigned long)end,
			 (unsigned long)bytes >> 10);
	pool_end = pool_start + bytes;
}

uintptr_t mmu_table_alloc(void)
{
	uintptr_t t = pool_free;

	if (t) {
		pool_free = *(uintptr_t *)t;
	} else if (pool_next + PAGE <= pool_end) {
		t = pool_next;
		pool_next += PAGE;
	} else {
		report_diag("error: %s: page-table pool (%lu KiB at %#lx) exhausted",
			    mmu_current ? mmu_current->name : "mmu",
			    (unsigned long)(pool_end - pool_start) >> 10, (unsigned long)pool_start);
		return 0;
	}
	for (uint32_t *w = (uint32_t *)t; w < (uint32_t *)(t + PAGE); w++)
		*w = 0;		/* words: newlib's -Os memset goes byte by byte */
	pool_used += PAGE;
	return t;
}

void mmu_table_free(uintptr_t t)
{
	*(uintptr_t *)t = pool_free;
	pool_free = t;
	pool_used -= PAGE;
}


/* ---- the self-check ---- */

/* One word of page pg, at an offset that moves from page to page (never
 * the last 256 bytes, where the 405 keeps its handler's state words):
 * query() must say it maps 1:1, and the word written on one side must be
 * read on the other.  read_only for code and live tables: read both ways. */
static int check_page(const char *region, uintptr_t pg, int read_only)
{
	uintptr_t a = pg + ((pg >> 10) % 0xf00 & ~3u), qpa = 0;
	uint32_t p1 = 0x5a5a0000u ^ (uint32_t)(pg * 2654435761u), p2 = ~p1, got[2];
	unsigned attr;
	int mapped = ops->query(a, &qpa, &attr) == 0;

	ops->check_word(a, a, p1, p2, got, read_only);
	int bad = read_only ? got[0] != got[1] : got[0] != p1 || got[1] != p2;
	if (!bad && mapped && qpa == a)
		return 0;
	if (bad)
		report_diag("self-check of %s failed: %s at 0x%08lx: through the mapping read "
			    "0x%08lx (want 0x%08lx), physically read 0x%08lx (want 0x%08lx)",
			    mmu_current->name, region, (unsigned long)a, (unsigned long)got[0],
			    (unsigned long)(read_only ? got[1] : p1), (unsigned long)got[1],
			    (unsigned long)(read_only ? got[0] : p2));
	if (!mapped) {
		report_diag("self-check of %s failed: %s at 0x%08lx: query says not mapped",
			    mmu_current->name, region, (unsigned long)a);
	} else if (qpa != a) {
		/* Does the hardware go where query says?  Same check at qpa. */
		ops->check_word(a, qpa, p1, p2, got, read_only);
		int agrees = read_only ? got[0] == got[1] : got[0] == p1 && got[1] == p2;
		report_diag("self-check of %s failed: %s at 0x%08lx: query says it maps to "
			    "0x%08lx, not 1:1; the hardware %s", mmu_current->name, region,
			    (unsigned long)a, (unsigned long)qpa,
			    agrees ? "goes there too" : "does not go there either");
	}
	ops->explain(a);
	return -1;
}

extern char __image_data[];	/* where the image's written part begins */

/* The pages of [start, end): the first and the last, and one in every
 * `step` from a phase that moves one page on at each enter, so that `step`
 * enters cover every page.  step: 1, or what keeps the region within the
 * arch's sample budget, and at least `min_step`.  read_only(pg) says which
 * pages only read (live tables); 0 for none. */
static unsigned check_phase;

static int check_region(const char *region, uintptr_t start, uintptr_t end, int all_read_only,
			unsigned min_step)
{
	uintptr_t pages = end > start ? (end - start) / PAGE : 0;
	unsigned budget = mmu_arch_check_samples(), step = min_step;

	if (!pages)
		return 0;
	if (budget && pages / step > budget)
		step = (pages + budget - 1) / budget;
	uintptr_t last = start + (pages - 1) * PAGE;
	if (check_page(region, start, all_read_only || mmu_arch_live(start)) < 0 ||
	    check_page(region, last, all_read_only || mmu_arch_live(last)) < 0)
		return -1;
	for (uintptr_t pg = start + (check_phase % step) * PAGE; pg < last; pg += (uintptr_t)step * PAGE)
		if (check_page(region, pg, all_read_only || mmu_arch_live(pg)) < 0)
			return -1;
	return 0;
}

/* The image (code read-only; data, stack and heap with patterns, the
 * arch's live tables read-only), the page-table pool pages in use (read
 * only), probe memory (every 64th page: all of it each time would cost a
 * second of QEMU per enter); all of them where the arch's sample budget
 * allows (the 405's translation toggle is cheap; i386's CR0.PG is not).
 * Then an alias outside RAM onto probe memory, mapped and unmapped. */
static int self_check(void)
{
	uintptr_t data = ((uintptr_t)__image_data + PAGE - 1) & ~(uintptr_t)(PAGE - 1);

	check_phase++;
	if (check_region("image code", (uintptr_t)__image_start, data, 1, 1) < 0 ||
	    check_region("image data, stack and heap", data, (uintptr_t)__heap_end, 0, 1) < 0 ||
	    check_region("page tables", pool_start, pool_next, 1, 1) < 0 ||
	    check_region("probe memory", mem_probe_start(), mem_probe_end(), 0, 64) < 0)
		return -1;
	uintptr_t last = (mem_probe_end() - 1) & ~(uintptr_t)(PAGE - 1);

	/* The alias: the page 4 MiB below the address-space window, where
	 * no RAM is mapped on our boards, onto the last page of probe memory. */
	uintptr_t va = MMU_SPACE_BASE - (4u << 20), qpa;
	uint32_t got[2];
	unsigned attr;
	if (ops->query(va, &qpa, &attr) == 0) {
		report_diag("%s self-check: no room for the alias check (%#lx is RAM)",
			    mmu_current->name, (unsigned long)va);
		return 0;
	}
	if (ops->map(va, last, PAGE, MMU_READ | MMU_WRITE) < 0)
		return -1;
	int q = ops->query(va, &qpa, &attr);
	ops->check_word(va, last, 0xa11a5000u, 0x0a11a5edu, got, 0);
	if (q < 0 || qpa != last || got[0] != 0xa11a5000u || got[1] != 0x0a11a5edu) {
		report_diag("self-check of %s failed: alias 0x%08lx -> 0x%08lx: query %s 0x%08lx, "
			    "read 0x%08lx/0x%08lx (want 0xa11a5000/0x0a11a5ed)", mmu_current->name,
			    (unsigned long)va, (unsigned long)last, q < 0 ? "unmapped" : "maps to",
			    (unsigned long)qpa, (unsigned long)got[0], (unsigned long)got[1]);
		ops->explain(va);
		ops->unmap(va, PAGE);
		return -1;
	}
	if (ops->unmap(va, PAGE) < 0 || ops->query(va, &qpa, &attr) == 0) {
		report_diag("self-check of %s failed: alias 0x%08lx still mapped after unmap",
			    mmu_current->name, (unsigned long)va);
		return -1;
	}
	return 0;
}

static struct mmu_space spaces[MMU_MAX_SPACES];

/* ---- modes ---- */

int mmu_enter(const struct mmu_mode *m)
{
	if (mmu_current)
		mmu_leave();
	if (!m->ops)
		return 0;		/* real, flat: nothing to build */
	if (pool_error[0]) {
		report_diag("error: cannot enter %s: %s", m->name, pool_error);
		return -1;
	}
	pool_next = pool_start, pool_free = 0, pool_used = 0;
	if (m->ops->enter(m) < 0)
		return -1;
	mmu_current = m, ops = m->ops;
	default_tables = pool_used;
	if (opt_break) {
		/* Test hook: the last page of probe memory shows the page below. */
		uintptr_t last = (mem_probe_end() - 1) & ~(uintptr_t)(PAGE - 1);
		report_diag("mmu_break: mapping 0x%08lx to 0x%08lx on purpose", (unsigned long)last,
			    (unsigned long)(last - PAGE));
		ops->map(last, last - PAGE, PAGE, MMU_READ | MMU_WRITE);
	}
	if (self_check() < 0) {
		mmu_leave();
		return -1;
	}
	return 0;
}

void mmu_leave(void)
{
	if (!ops)
		return;
	if (mmu_current_space)
		mmu_space_switch(0);
	for (int i = 0; i < MMU_MAX_SPACES; i++)	/* a probe's leftovers */
		mmu_space_destroy(&spaces[i]);
	ops->leave();
	mmu_current = 0, ops = 0;
}

/* Why this host cannot offer mode m, or 0 (most modes: always offered). */
const char *mmu_unavailable(const struct mmu_mode *m)
{
	return m->ops && m->ops->unavailable ? m->ops->unavailable(m) : 0;
}

/* The default mapping's cost, once per mode (the run loop calls this in
 * the measurement block after the mode's first enter). */
void mmu_report_figures(const struct mmu_mode *m)
{
	struct mmu_figures f = { 0 };
	const struct mmu_tlb_info *t = mmu_tlb();

	if (!m->ops || mmu_current != m)
		return;
	ops->figures(&f);
	f.pagetable_bytes += default_tables;
	report_diag("%s: %s, %lu KiB of tables", m->name, f.summary,
		    (unsigned long)f.pagetable_bytes >> 10);
	report_measurement("mmu", m->name, "pagetable_bytes", f.pagetable_bytes, 0, "bytes");
	report_measurement("mmu", m->name, "mapped_bytes", f.mapped_bytes, 0, "bytes");
	if (t->miss_path > 0)
		report_measurement("mmu", m->name, "dtlb_miss_path", t->miss_path, 0, "instructions");
}

/* ---- the interface, on the current mode ---- */

/* Who may change va..va+len: the window belongs to the current space, the
 * rest to the kernel space (switch back to change it: spaces share it). */
static int owner_ok(const char *what, uintptr_t va, size_t len)
{
	int in_window = va < MMU_SPACE_BASE + MMU_SPACE_SIZE && va + len > MMU_SPACE_BASE;

	if (!ops) {
		report_diag("error: %s: translation is off", what);
		return 0;
	}
	if (in_window && (!mmu_current_space || va < MMU_SPACE_BASE ||
			  va + len > MMU_SPACE_BASE + MMU_SPACE_SIZE)) {
		report_diag("error: %s %#lx+%#lx: the window %#lx-%#lx belongs to address spaces",
			    what, (unsigned long)va, (unsigned long)len,
			    (unsigned long)MMU_SPACE_BASE,
			    (unsigned long)(MMU_SPACE_BASE + MMU_SPACE_SIZE - 1));
		return 0;
	}
	if (!in_window && mmu_current_space) {
		report_diag("error: %s %#lx: the kernel part is changed from the kernel space",
			    what, (unsigned long)va);
		return 0;
	}
	return 1;
}

int mmu_map(uintptr_t va, uintptr_t pa, size_t len, unsigned attr)
{
	return owner_ok("map", va, len) ? ops->map(va, pa, len, attr) : -1;
}

int mmu_unmap(uintptr_t va, size_t len)
{
	return owner_ok("unmap", va, len) ? ops->unmap(va, len) : -1;
}

int mmu_protect(uintptr_t va, size_t len, unsigned attr)
{
	return owner_ok("protect", va, len) ? ops->protect(va, len, attr) : -1;
}

int mmu_query(uintptr_t va, uintptr_t *pa, unsigned *attr)
{
	if (!ops) {		/* translation off: physical = virtual */
		*pa = va;
		*attr = MMU_READ | MMU_WRITE | MMU_EXEC;
		return 0;
	}
	return ops->query(va, pa, attr);
}

void mmu_flush_all(void)
{
	if (ops)
		ops->flush_all();
}

const struct mmu_tlb_info *mmu_tlb(void)
{
	static struct mmu_tlb_info t;

	t = (struct mmu_tlb_info){ .refill = MMU_REFILL_NONE, .miss_path = -1 };
	if (ops)
		ops->tlb_info(&t);
	else
		mmu_arch_untranslated_tlb(&t);
	return &t;
}

/* ---- address spaces ---- */

/* A space's slot and its tables are the core's bookkeeping, never cut
 * short by the watchdog (boot/watchdog.c): stopped inside space_init, a
 * slot would keep its id with no window table yet, and mmu_leave's
 * clean-up would free table 0, writing the pool's free list into the word
 * at physical 0 (a loader's vectors, under -icount: aspace stopped at 2 ms). */
static struct mmu_space *space_create(unsigned flags)
{
	if (!ops) {
		report_diag("error: address spaces need a translated mode");
		return 0;
	}
	for (int i = 0; i < MMU_MAX_SPACES; i++) {
		struct mmu_space *s = &spaces[i];
		if (s->id)
			continue;
		*s = (struct mmu_space){ .id = i + 1, .flags = flags };
		if (ops->space_init(s) < 0) {
			s->id = 0;
			return 0;
		}
		return s;
	}
	report_diag("error: more than %d address spaces", MMU_MAX_SPACES);
	return 0;
}

struct mmu_space *mmu_space_create(unsigned flags)
{
	watchdog_hold();
	struct mmu_space *s = space_create(flags);
	watchdog_release();
	return s;
}

int mmu_space_switch(struct mmu_space *s)
{
	if (!ops || (s && !s->id))
		return -1;
	ops->space_switch(s);
	mmu_current_space = s;
	return 0;
}

void mmu_space_destroy(struct mmu_space *s)
{
	if (!ops || !s || !s->id)
		return;
	watchdog_hold();
	if (s == mmu_current_space)
		mmu_space_switch(0);
	ops->space_fini(s);
	s->id = 0;
	watchdog_release();
}

/* ---- faults ---- */

void mmu_set_fault_hook(mmu_fault_hook hook)
{
	fault_hook = hook;
}

int mmu_call_fault_hook(uintptr_t addr, int write, int protection, uintptr_t pc,
			uintptr_t *resume)
{
	int r = fault_hook ? fault_hook(addr, write, protection) : 0;

	if (r != MMU_FAULT_SKIP)
		return r;
	if (pc != (uintptr_t)mmu_probe_load_insn) {
		report_diag("error: a fault hook asked to skip the access at 0x%08lx, which is not "
			    "mmu_probe_load's", (unsigned long)pc);
		return 0;
	}
	*resume = (uintptr_t)mmu_probe_load_skip;
	return MMU_FAULT_SKIP;
}

/* ---- boot arguments ---- */

static int set_break(const char *key, const char *value) { return arg_flag(key, value, &opt_break); }

const struct boot_arg mmu_args[] = {
	{ "mmu_break", "0 or 1 (tests only): corrupt one mapping so the self-check must fail", set_break },
	{ 0 }
};
