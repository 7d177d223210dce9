/* Probe `demand`: fault cost, counted exactly.
 *  - page faults: K pages unmapped, touched once each; the fault hook maps
 *    each back, so exactly K faults must arrive;
 *  - protection faults: K pages made read-only, written once each; the
 *    hook makes each writable again: exactly K;
 *  - kmap: one virtual window remapped to K physical pages in turn, as
 *    highmem's kmap/kunmap does (map, touch, unmap with a one-page flush). */
#include <stdio.h>
#include "arch.h"
#include "config.h"
#include "mem.h"
#include "probe.h"

#define PAGE 4096u
#define KMAP_WINDOW 0xD0000000u		/* outside RAM on every board here */

static unsigned long fault_pages = 64;
static const struct mmu_mode *mode;
static unsigned hook_calls;

int demand_set_pages(const char *key, const char *value)
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
	return mode->map(page, page, PAGE, MMU_READ | MMU_WRITE) == 0;
}

static int make_writable(uintptr_t addr, int write, int protection)
{
	uintptr_t page = addr & ~(uintptr_t)(PAGE - 1);

	if (!protection || !write)
		return 0;
	hook_calls++;
	return mode->protect(page, PAGE, MMU_READ | MMU_WRITE) == 0;
}

static int expect(struct probe_ctx *ctx, const char *what, uint32_t counted, unsigned hooks)
{
	if (counted == fault_pages && hooks == fault_pages)
		return 0;
	snprintf(ctx->fail_reason, sizeof(ctx->fail_reason),
		 "%s: touched %lu pages, counted %lu faults, hook ran %u times", what,
		 fault_pages, (unsigned long)counted, hooks);
	return -1;
}

static int demand_run(struct probe_ctx *ctx)
{
	unsigned long k = fault_pages;
	volatile uint32_t *p;
	uint64_t t0, t1;
	uint32_t before;

	mode = ctx->mode;
	if (!mode->translated) {
		snprintf(ctx->skip_reason, sizeof(ctx->skip_reason),
			 "mode %s has no translation, so no faults", mode->name);
		return RESULT_SKIP;
	}
	probe_mem_reset();
	uintptr_t buf = probe_mem_alloc(k * PAGE, PAGE, 0, "demand: fault_pages");
	if (!buf) {
		snprintf(ctx->fail_reason, sizeof(ctx->fail_reason),
			 "fault_pages=%lu does not fit in RAM", k);
		return RESULT_FAIL;
	}

	/* Page faults: every page of the buffer unmapped, then touched. */
	if (mode->unmap(buf, k * PAGE) < 0) {
		snprintf(ctx->fail_reason, sizeof(ctx->fail_reason), "unmap failed");
		return RESULT_FAIL;
	}
	hook_calls = 0;
	mmu_set_fault_hook(map_back);
	before = mmu_count.page_faults;
	t0 = arch_ticks();
	for (unsigned long i = 0; i < k; i++) {
		p = (volatile uint32_t *)(buf + i * PAGE);
		(void)*p;
	}
	t1 = arch_ticks();
	mmu_set_fault_hook(0);
	if (expect(ctx, "page faults", mmu_count.page_faults - before, hook_calls) < 0)
		return RESULT_FAIL;
	probe_sample(ctx, "page_faults_counted", mmu_count.page_faults - before, 0, "count");
	probe_sample(ctx, "page_fault_ns", ticks_to_ns100(t1 - t0) / k, 2, "ns");

	/* Protection faults: read-only, then one write per page. */
	if (mode->protect(buf, k * PAGE, MMU_READ) < 0) {
		snprintf(ctx->fail_reason, sizeof(ctx->fail_reason), "protect failed");
		return RESULT_FAIL;
	}
	hook_calls = 0;
	mmu_set_fault_hook(make_writable);
	before = mmu_count.prot_faults;
	t0 = arch_ticks();
	for (unsigned long i = 0; i < k; i++) {
		p = (volatile uint32_t *)(buf + i * PAGE);
		*p = i;
	}
	t1 = arch_ticks();
	mmu_set_fault_hook(0);
	if (expect(ctx, "protection faults", mmu_count.prot_faults - before, hook_calls) < 0)
		return RESULT_FAIL;
	probe_sample(ctx, "prot_faults_counted", mmu_count.prot_faults - before, 0, "count");
	probe_sample(ctx, "prot_fault_ns", ticks_to_ns100(t1 - t0) / k, 2, "ns");

	/* kmap: one window, K physical pages in turn; each must show its own data. */
	t0 = arch_ticks();
	for (unsigned long i = 0; i < k; i++) {
		if (mode->map(KMAP_WINDOW, buf + i * PAGE, PAGE, MMU_READ | MMU_WRITE) < 0) {
			snprintf(ctx->fail_reason, sizeof(ctx->fail_reason), "kmap: map failed");
			return RESULT_FAIL;
		}
		uint32_t seen = *(volatile uint32_t *)KMAP_WINDOW;
		mode->unmap(KMAP_WINDOW, PAGE);
		if (seen != i) {
			snprintf(ctx->fail_reason, sizeof(ctx->fail_reason),
				 "kmap: window on page %lu read %#lx, not %#lx", i,
				 (unsigned long)seen, i);
			return RESULT_FAIL;
		}
	}
	t1 = arch_ticks();
	probe_sample(ctx, "kmap_ns", ticks_to_ns100(t1 - t0) / k, 2, "ns");
	return RESULT_PASS;
}

const struct probe probe_demand = {
	.name = "demand",
	.what = "page faults, protection faults and kmap-style map/unmap, counted",
	.run = demand_run,
};
