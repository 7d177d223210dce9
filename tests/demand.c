/* Probe `demand`: fault cost, counted exactly.
 *  - page faults: K pages unmapped, touched once each; the fault hook maps
 *    each back, so exactly K faults must arrive;
 *  - protection faults: K pages made read-only, written once each; the
 *    hook makes each writable again: exactly K;
 *  - kmap: one virtual window remapped to K physical pages in turn, as
 *    highmem's kmap/kunmap does (map, touch, unmap with a one-page flush);
 *  - null fault: a load from an unmapped page whose hook only steps past
 *    it: the fault's entry and exit with no mapping work;
 *  - batch remap: BATCH pages mapped into the window at once, each
 *    touched, all unmapped with one flush (LMbench's Mmap Latency).
 * Under an OS (the sandbox) our page_fault_ns is SIGSEGV + our hook's
 * mmap + the minor fault that follows; the OS's own paths by LMbench's
 * methods are the pagefault and signal probes' (logs before them have
 * them here as lat_pagefault_ns, lat_sig_catch_ns, lat_sig_prot_ns). */
#include "probe.h"

#define PAGE 4096u
#define KMAP_WINDOW 0xD0000000u		/* outside RAM on every board here */

#define NULL_VA		(KMAP_WINDOW + 0x100000u)	/* never mapped */
#define BATCH		16

#define DEFAULT_PAGES	64
#define QUICK_PAGES	16

static unsigned long fault_pages;	/* 0: the default for this run */
static unsigned hook_calls;

static int set_fault_pages(const char *key, const char *value)
{
	return arg_uint(key, value, 1, 4096, &fault_pages);
}

static int map_back(uintptr_t addr, int write, int protection)
{
	uintptr_t page = addr & ~(uintptr_t)(PAGE - 1);

	(void)write;
	if (protection)
		return 0;
	hook_calls++;
	return mmu_map(page, page, PAGE, MMU_READ | MMU_WRITE) == 0;
}

static unsigned null_faults;

static int skip_it(uintptr_t addr, int write, int protection)
{
	(void)addr, (void)write, (void)protection;
	null_faults++;
	return MMU_FAULT_SKIP;
}

static uint64_t null_fault_run(void *arg, uint32_t n)
{
	uint64_t t0 = probe_ticks();

	(void)arg;
	for (uint32_t i = 0; i < n; i++)
		mmu_probe_load(NULL_VA);
	return probe_ticks() - t0;
}

/* Batches of map, touch each page, unmap (one flush). */
struct batch { uintptr_t buf; unsigned pages; int failed; };

static uint64_t remap_batch_run(void *arg, uint32_t n)
{
	struct batch *b = arg;
	uint64_t t0 = probe_ticks();

	for (uint32_t i = 0; i < n; i++) {
		if (mmu_map(KMAP_WINDOW, b->buf, b->pages * PAGE, MMU_READ | MMU_WRITE) < 0)
			b->failed = 1;
		for (unsigned p = 0; p < b->pages; p++)
			(void)*(volatile uint32_t *)(uintptr_t)(KMAP_WINDOW + p * PAGE);
		mmu_unmap(KMAP_WINDOW, b->pages * PAGE);
	}
	return probe_ticks() - t0;
}

static int make_writable(uintptr_t addr, int write, int protection)
{
	uintptr_t page = addr & ~(uintptr_t)(PAGE - 1);

	if (!protection || !write)
		return 0;
	hook_calls++;
	return mmu_protect(page, PAGE, MMU_READ | MMU_WRITE) == 0;
}

/* One pass over the K pages: each access must fault exactly once, through
 * `hook`, and `counter` (the arch's count of that kind) must say so too. */
struct fault_pass {
	const char *what, *count_metric, *ns_metric;
	int write;
	mmu_fault_hook hook;
	const uint32_t *counter;
};

static int fault_pass(struct probe_ctx *ctx, uintptr_t buf, const struct fault_pass *f)
{
	uint32_t before = *f->counter;
	uint64_t t0, t1;

	hook_calls = 0;
	mmu_set_fault_hook(f->hook);
	t0 = probe_ticks();
	for (unsigned long i = 0; i < fault_pages; i++) {
		volatile uint32_t *p = (volatile uint32_t *)(buf + i * PAGE);
		if (f->write)
			*p = i;
		else
			(void)*p;
	}
	t1 = probe_ticks();
	mmu_set_fault_hook(0);

	uint32_t counted = *f->counter - before;
	if (counted != fault_pages || hook_calls != fault_pages) {
		probe_fail(ctx, "%s: touched %lu pages, counted %lu faults, hook ran %u times",
			   f->what, fault_pages, (unsigned long)counted, hook_calls);
		return -1;
	}
	probe_sample(ctx, f->count_metric, counted, 0, "count");
	probe_sample(ctx, f->ns_metric, ticks_to_ns100(t1 - t0) / fault_pages, 2, "ns");
	return 0;
}

static int demand_run(struct probe_ctx *ctx)
{
	const struct fault_pass page_faults = {
		"page faults", "page_faults_counted", "page_fault_ns",
		0, map_back, &mmu_count.page_faults,
	};
	const struct fault_pass prot_faults = {
		"protection faults", "prot_faults_counted", "prot_fault_ns",
		1, make_writable, &mmu_count.prot_faults,
	};
	if (!fault_pages)
		fault_pages = ctx->quick ? QUICK_PAGES : DEFAULT_PAGES;
	unsigned long k = fault_pages;
	uint64_t t0, t1;

	if (!mmu_translated(ctx->mode))
		return probe_skip(ctx, "mode %s has no translation, so no faults", ctx->mode_name);
	probe_mem_reset();
	uintptr_t buf = probe_mem_alloc(k * PAGE, PAGE, 0, "demand: fault_pages");
	if (!buf)
		return probe_fail(ctx, "fault_pages does not fit in RAM");

	/* Page faults: every page of the buffer unmapped, then read. */
	if (mmu_unmap(buf, k * PAGE) < 0)
		return probe_fail(ctx, "unmap failed");
	if (fault_pass(ctx, buf, &page_faults) < 0)
		return RESULT_FAIL;

	/* Protection faults: read-only, then one write per page. */
	if (mmu_protect(buf, k * PAGE, MMU_READ) < 0)
		return probe_fail(ctx, "protect failed");
	if (fault_pass(ctx, buf, &prot_faults) < 0)
		return RESULT_FAIL;

	/* kmap: one window, K physical pages in turn; each must show its own
	 * data (the protection pass wrote i into page i). */
	t0 = probe_ticks();
	for (unsigned long i = 0; i < k; i++) {
		if (mmu_map(KMAP_WINDOW, buf + i * PAGE, PAGE, MMU_READ | MMU_WRITE) < 0)
			return probe_fail(ctx, "kmap: map failed");
		uint32_t seen = *(volatile uint32_t *)KMAP_WINDOW;
		mmu_unmap(KMAP_WINDOW, PAGE);
		if (seen != i) {
			return probe_fail(ctx, "kmap: window on page %lu read %#lx, not %#lx", i,
					  (unsigned long)seen, i);
		}
	}
	t1 = probe_ticks();
	probe_sample(ctx, "kmap_ns", ticks_to_ns100(t1 - t0) / k, 2, "ns");

	/* Null faults: nothing maps NULL_VA; the hook skips each load. */
	struct probe_time t;
	uintptr_t pa;
	unsigned attr;
	if (mmu_query(NULL_VA, &pa, &attr) == 0)
		return probe_fail(ctx, "null fault: %#lx is mapped", (unsigned long)NULL_VA);
	null_faults = 0;
	mmu_set_fault_hook(skip_it);
	int r = probe_measure(null_fault_run, 0, &t);
	mmu_set_fault_hook(0);
	if (r < 0)
		return probe_fail(ctx, "null fault: the timer did not move");
	probe_sample(ctx, "null_faults", null_faults, 0, "count");
	probe_sample_time(ctx, "null_fault", &t);

	/* Batch remap: BATCH pages (fewer when fault_pages is smaller). */
	struct batch b = { buf, k < BATCH ? k : BATCH, 0 };
	if (probe_measure(remap_batch_run, &b, &t) < 0 || b.failed)
		return probe_fail(ctx, "batch remap: %s", b.failed ? "map failed" : "no time");
	probe_sample(ctx, "remap_batch_pages", b.pages, 0, "count");
	probe_sample_time(ctx, "remap_batch", &t);
	return RESULT_PASS;
}

const struct probe probe_demand = {
	.name = "demand",
	.what = "page faults, protection faults and kmap-style map/unmap, counted",
	.run = demand_run,
	.args = (const struct boot_arg[]){
		{ "fault_pages", "1..4096 pages the demand probe faults in (default 64, 16 with quick)",
		  set_fault_pages },
		{ 0 } },
};
