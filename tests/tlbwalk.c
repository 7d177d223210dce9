/* Probe `tlbwalk`: exact TLB miss counts.  A cyclic walk, one load per 4K
 * page, over walk_pages pages placed low (inside the low 32 MiB, where
 * pinned entries sit), high (at or above 64 MiB), or by default (auto) high
 * where RAM reaches that far and as high as it fits otherwise (a 32 MiB
 * Walnut: the top of probe memory, said in a diagnostic).  After two warm-up
 * passes, one pass is measured: the DTLB misses the miss handler counted
 * during it, and its time.  The pass is the walk the TLB description
 * offers where misses are counted in software (registers only, counters
 * read so that the reads cannot miss; with translation off it counts
 * none); elsewhere the probe says SKIP. */
#include "probe.h"

#define PAGE		4096u
#define LOW_LIMIT	(32u << 20)
#define HIGH_START	(64u << 20)

static unsigned long walk_pages = 256;
enum { REGION_AUTO, REGION_LOW, REGION_HIGH };
static int walk_region = REGION_AUTO;

static int set_walk_pages(const char *key, const char *value)
{
	/* The region decides the real limit (checked when the probe runs). */
	return arg_uint(key, value, 1, probe_ram_bytes() / PAGE, &walk_pages);
}

static int set_walk_region(const char *key, const char *value)
{
	static const char *const regions[] = { "auto", "low", "high", 0 };
	return arg_choice(key, value, regions, &walk_region);
}

/* auto below 64 MiB + len: the walk's page-aligned place at the top of
 * probe memory (0 when it does not fit at all). */
static uintptr_t top_of_probe_mem(uint32_t len)
{
	uintptr_t lo;
	size_t avail;

	probe_mem_reset();
	lo = probe_mem_alloc(0, PAGE, 0, "tlbwalk");	/* where probe memory starts */
	avail = lo ? probe_mem_avail(PAGE, 0) : 0;
	probe_mem_reset();
	return avail >= len ? lo + ((avail - len) & ~(uintptr_t)(PAGE - 1)) : 0;
}

static uintptr_t place_walk(struct probe_ctx *ctx, uint32_t len)
{
	uintptr_t top;

	probe_mem_reset();
	if (walk_region != REGION_AUTO || probe_mem_avail(PAGE, HIGH_START) >= len)
		return probe_mem_alloc(len, PAGE, walk_region == REGION_LOW ? 0 : HIGH_START,
				       "tlbwalk: walk_pages");
	top = top_of_probe_mem(len);
	if (top && ctx->rep == 0 && ctx->mode_index == 0)
		probe_diag(ctx, "tlbwalk", "no room for %lu KiB at or above 64 MiB: the walk lies "
			   "at %#lx-%#lx, the top of probe memory (where pins reach, under them)",
			   (unsigned long)len >> 10, (unsigned long)top, (unsigned long)(top + len));
	return top ? probe_mem_alloc(len, PAGE, top, "tlbwalk: walk_pages") : 0;
}

static int tlbwalk_run(struct probe_ctx *ctx)
{
	const struct mmu_tlb_info *tlb = mmu_tlb();
	uint32_t len = walk_pages * PAGE, ticks, misses;
	uintptr_t base;

	if (!tlb->walk)		/* hardware refill, or nothing to count with: whatever the RAM */
		return probe_skip(ctx, "%s refills its TLB in hardware: no miss is counted",
				  probe_arch_name());
	base = place_walk(ctx, len);
	if (!base || (walk_region == REGION_LOW && base + len > LOW_LIMIT))
		return probe_fail(ctx, "walk_pages=%lu (%lu KiB) does not fit %s", walk_pages,
				  (unsigned long)len >> 10,
				  walk_region == REGION_LOW ? "in free RAM below 32 MiB" :
				  walk_region == REGION_HIGH ? "in RAM at or above 64 MiB" :
				  "in probe memory");
	misses = tlb->walk(base, walk_pages, 2, &ticks);	/* 2 passes warm up */

	probe_sample(ctx, "dtlb_misses_per_pass", misses, 0, "count");
	probe_sample(ctx, "ns_per_page", ticks_to_ns100(ticks) / walk_pages, 2, "ns");
	probe_sample(ctx, "region_start", base, 0, "bytes");
	/* Under QEMU -icount, time is instructions: what one miss costs,
	 * handler and exception entry/exit included, beyond the loop body. */
	if (ctx->icount_shift >= 0 && misses && probe_tick_hz()) {
		uint64_t instr = muldiv64(ticks, 1000000000ull, probe_tick_hz()) >>
				 ctx->icount_shift;
		int64_t extra = (int64_t)instr - (int64_t)tlb->walk_loop_instructions * walk_pages;
		probe_sample(ctx, "instructions_per_miss", extra * 100 / misses, 2, "instructions");
	}
	return RESULT_PASS;
}

const struct probe probe_tlbwalk = {
	.name = "tlbwalk",
	.what = "cyclic one-load-per-page walk: DTLB misses per warm pass, exactly",
	.run = tlbwalk_run,
	.args = (const struct boot_arg[]){
		{ "walk_pages", "pages the tlbwalk probe walks (default 256; must fit its region)",
		  set_walk_pages },
		{ "walk_region", "auto (default: high where RAM reaches, else the top of probe "
		  "memory), low (inside the low 32 MiB) or high (at or above 64 MiB)",
		  set_walk_region },
		{ 0 } },
};
