/* Probe `spaces`: address spaces work, and what a switch flushes.  Two
 * spaces map the same window page to two physical pages; SWITCHES switches
 * back and forth must each show that space's own data, query() must name
 * each space's page, and the MMU's counters say what the switches cost:
 * with tags (the 405's PID) no flush and, once warm, no TLB miss; without
 * (MMU_SPACE_FLUSH, or a CR3 load) a flush each. */
#include "probe.h"

#define PAGE		4096u
#define SWITCHES	32		/* even: the loop ends in space 1 */
#define VA		(MMU_SPACE_BASE + 5 * PAGE)

/* Map VA in space s to pa and leave `tag` there. */
static int prepare(struct mmu_space *s, uintptr_t pa, uint32_t tag)
{
	if (mmu_space_switch(s) < 0 || mmu_map(VA, pa, PAGE, MMU_READ | MMU_WRITE) < 0)
		return -1;
	*(volatile uint32_t *)VA = tag;
	return 0;
}

/* n switches, alternating, each checked: the first bad one, or -1. */
static int switches(struct mmu_space *s[2], const uint32_t tag[2], int n, uint32_t *seen)
{
	for (int i = 0; i < n; i++) {
		mmu_space_switch(s[i & 1]);
		*seen = *(volatile uint32_t *)VA;
		if (*seen != tag[i & 1])
			return i;
	}
	return -1;
}

static int one_kind(struct probe_ctx *ctx, uintptr_t pa, unsigned flags, const char *kind)
{
	struct mmu_space *s[2] = { mmu_space_create(flags), mmu_space_create(flags) };
	const uint32_t tag[2] = { 0xa000a000u, 0xb000b000u };
	uint32_t seen = 0;
	uintptr_t qpa;
	unsigned attr;
	int bad = -1;

	if (!s[0] || !s[1] || prepare(s[0], pa, tag[0]) < 0 || prepare(s[1], pa + PAGE, tag[1]) < 0)
		return probe_fail(ctx, "%s: could not create and map two address spaces", kind);
	/* Warm: the loop itself until a pass misses nothing (a refill on a
	 * software-loaded TLB may evict a page the loop needs; a few passes
	 * settle it), or 4 passes where every switch flushes. */
	for (int pass = 0; pass < 4 && bad < 0; pass++) {
		uint32_t misses = mmu_count.dtlb_misses + mmu_count.itlb_misses;
		bad = switches(s, tag, 2, &seen);
		if (mmu_count.dtlb_misses + mmu_count.itlb_misses == misses)
			break;
	}
	struct mmu_counters before = mmu_count;
	uint64_t t0 = probe_ticks();
	if (bad < 0)
		bad = switches(s, tag, SWITCHES, &seen);
	uint64_t t1 = probe_ticks();
	struct mmu_counters after = mmu_count;
	for (int k = 0; k < 2 && bad < 0; k++)
		if (mmu_space_switch(s[k]) < 0 || mmu_query(VA, &qpa, &attr) < 0 || qpa != pa + k * PAGE)
			return probe_fail(ctx, "%s: query in space %d: %#lx, not %#lx", kind, k,
					  (unsigned long)qpa, (unsigned long)(pa + k * PAGE));
	mmu_space_switch(0);
	mmu_space_destroy(s[0]);
	mmu_space_destroy(s[1]);
	if (bad >= 0)
		return probe_fail(ctx, "%s: switch %d read %#lx at %#lx, not space %d's %#lx", kind,
				  bad + 1, (unsigned long)seen, (unsigned long)VA, bad & 1,
				  (unsigned long)tag[bad & 1]);
	if (*(volatile uint32_t *)pa != tag[0] || *(volatile uint32_t *)(pa + PAGE) != tag[1])
		return probe_fail(ctx, "%s: the physical pages do not hold the spaces' data", kind);

	/* Counts only where something counts them (else absent, not 0). */
	if (mmu_tlb()->counts & MMU_COUNTS_FLUSHES)
		probe_sample(ctx, flags ? "flush_switch_flushes" : "tagged_switch_flushes",
			     after.flushes - before.flushes, 0, "count");
	if (mmu_tlb()->counts & MMU_COUNTS_TLB_MISSES)
		probe_sample(ctx, flags ? "flush_switch_dtlb_misses" : "tagged_switch_dtlb_misses",
			     after.dtlb_misses - before.dtlb_misses, 0, "count");
	probe_sample(ctx, flags ? "flush_switch_ns" : "tagged_switch_ns",
		     ticks_to_ns100(t1 - t0) / SWITCHES, 2, "ns");
	return RESULT_PASS;
}

static int spaces_run(struct probe_ctx *ctx)
{
	if (!mmu_translated(ctx->mode))
		return probe_skip(ctx, "mode %s has no translation, so no address spaces",
				  ctx->mode_name);
	probe_mem_reset();
	uintptr_t pa = probe_mem_alloc(2 * PAGE, PAGE, 0, "spaces: two pages");
	if (!pa)
		return probe_fail(ctx, "no room for two pages");
	probe_sample(ctx, "switches", SWITCHES, 0, "count");
	/* What a switch is here (the tables' word: enum mmu_switch's values). */
	probe_sample(ctx, "switch_kind", mmu_tlb()->space_switch, 0, "kind");
	if (mmu_tlb()->space_switch == MMU_SWITCH_TAGGED) {
		int r = one_kind(ctx, pa, 0, "tagged");
		if (r != RESULT_PASS)
			return r;
	}
	return one_kind(ctx, pa, MMU_SPACE_FLUSH, "untagged");
}

const struct probe probe_spaces = {
	.name = "spaces",
	.what = "two address spaces, one window page each: own data, query, flushes per switch",
	.run = spaces_run,
};
