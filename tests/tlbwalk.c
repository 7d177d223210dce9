/* Probe `tlbwalk`: exact TLB miss counts.  A cyclic walk, one load per 4K
 * page, over walk_pages pages placed low (inside the low 32 MiB, where
 * pinned entries sit) or high (at or above 64 MiB).  After two warm-up
 * passes, one pass is measured: the DTLB misses the miss handler counted
 * during it, and its time.  The pass itself is the arch's mmu_walk_pass
 * (registers only, counters read so that the reads cannot miss); the weak
 * C version below serves architectures without one. */
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "boot_info.h"
#include "config.h"
#include "mem.h"
#include "probe.h"
#include "report.h"

#define PAGE		4096u
#define LOW_LIMIT	(32u << 20)
#define HIGH_START	(64u << 20)

static unsigned long walk_pages = 256;
static int walk_high = 1;

int tlbwalk_set_pages(const char *key, const char *value)
{
	/* The region decides the real limit (checked when the probe runs). */
	return arg_uint(key, value, 1, boot_info.ram_bytes / PAGE, &walk_pages);
}

int tlbwalk_set_region(const char *key, const char *value)
{
	static const char *const regions[] = { "low", "high", 0 };
	return arg_choice(key, value, regions, &walk_high);
}

/* Architectures whose TLB is refilled by hardware count no misses: they
 * have no mmu_walk_pass, and the probe says SKIP. */
#define NOT_COUNTED 0xffffffffu
__attribute__((weak)) uint32_t mmu_walk_pass(uintptr_t base, uint32_t pages, uint32_t *ticks)
{
	(void)base, (void)pages, (void)ticks;
	return NOT_COUNTED;
}

/* The DTLB miss fast path's length in instructions, where the arch knows. */
__attribute__((weak)) int mmu_dtlb_miss_path_length(void) { return -1; }

static int tlbwalk_run(struct probe_ctx *ctx)
{
	uint32_t len = walk_pages * PAGE, ticks, misses;
	uintptr_t base;

	probe_mem_reset();
	base = probe_mem_alloc(len, PAGE, walk_high ? HIGH_START : 0, "tlbwalk: walk_pages");
	if (!base || (!walk_high && base + len > LOW_LIMIT)) {
		snprintf(ctx->fail_reason, sizeof(ctx->fail_reason),
			 "walk_pages=%lu (%lu KiB) does not fit %s", walk_pages,
			 (unsigned long)len >> 10,
			 walk_high ? "in RAM at or above 64 MiB" : "in free RAM below 32 MiB");
		return RESULT_FAIL;
	}
	if (mmu_walk_pass(base, walk_pages, &ticks) == NOT_COUNTED) {	/* warm up */
		snprintf(ctx->skip_reason, sizeof(ctx->skip_reason),
			 "%s refills its TLB in hardware: no miss is counted", arch_name);
		return RESULT_SKIP;
	}
	mmu_walk_pass(base, walk_pages, &ticks);
	misses = mmu_walk_pass(base, walk_pages, &ticks);

	probe_sample(ctx, "dtlb_misses_per_pass", misses, 0, "count");
	probe_sample(ctx, "ns_per_page", ticks_to_ns100(ticks) / walk_pages, 2, "ns");
	probe_sample(ctx, "region_start", base, 0, "bytes");
	/* Under QEMU -icount, time is instructions: what one miss costs,
	 * handler and exception entry/exit included, beyond the 3-instruction
	 * loop body. */
	if (config.icount_shift >= 0 && misses && boot_info.tick_hz) {
		uint64_t instr = ((uint64_t)ticks * 1000000000ull / boot_info.tick_hz) >>
				 config.icount_shift;
		int64_t extra = (int64_t)instr - 3 * (int64_t)walk_pages;
		probe_sample(ctx, "instructions_per_miss", extra * 100 / misses, 2, "instructions");
	}
	/* The fast path's length, counted from its code (vector to rfi). */
	if (!strcmp(ctx->mode->name, "normal") && ctx->rep == 0 && mmu_dtlb_miss_path_length() > 0)
		report_measurement("mmu", "normal", "dtlb_miss_path", mmu_dtlb_miss_path_length(), 0,
				   "instructions");
	return RESULT_PASS;
}

const struct probe probe_tlbwalk = {
	.name = "tlbwalk",
	.what = "cyclic one-load-per-page walk: DTLB misses per warm pass, exactly",
	.run = tlbwalk_run,
};
