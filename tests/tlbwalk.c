/* Probe `tlbwalk`: exact TLB miss counts.  A cyclic walk, one load per 4K
 * page, over walk_pages pages placed low (inside the low 32 MiB, where
 * pinned entries sit) or high (at or above 64 MiB).  After two warm-up
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
static int walk_high = 1;

static int set_walk_pages(const char *key, const char *value)
{
	/* The region decides the real limit (checked when the probe runs). */
	return arg_uint(key, value, 1, probe_ram_bytes() / PAGE, &walk_pages);
}

static int set_walk_region(const char *key, const char *value)
{
	static const char *const regions[] = { "low", "high", 0 };
	return arg_choice(key, value, regions, &walk_high);
}

static int tlbwalk_run(struct probe_ctx *ctx)
{
	const struct mmu_tlb_info *tlb = mmu_tlb();
	uint32_t len = walk_pages * PAGE, ticks, misses;
	uintptr_t base;

	probe_mem_reset();
	if (walk_high && probe_ram_bytes() <= HIGH_START)	/* e.g. mem=32M */
		return probe_skip(ctx, "RAM ends at %lu MiB: none at or above 64 MiB to walk "
				  "(walk_region=low walks the low 32 MiB)",
				  (unsigned long)(probe_ram_bytes() >> 20));
	base = probe_mem_alloc(len, PAGE, walk_high ? HIGH_START : 0, "tlbwalk: walk_pages");
	if (!base || (!walk_high && base + len > LOW_LIMIT))
		return probe_fail(ctx, "walk_pages=%lu (%lu KiB) does not fit %s", walk_pages,
				  (unsigned long)len >> 10,
				  walk_high ? "in RAM at or above 64 MiB" : "in free RAM below 32 MiB");
	if (!tlb->walk)		/* hardware refill, or nothing to count with */
		return probe_skip(ctx, "%s refills its TLB in hardware: no miss is counted",
				  probe_arch_name());
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
		{ "walk_region", "low (inside the low 32 MiB) or high (at or above 64 MiB, default)",
		  set_walk_region },
		{ 0 } },
};
