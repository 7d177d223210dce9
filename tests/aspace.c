/* Probe `aspace`: address-space switch with working sets, LMbench's ctxsw
 * columns (2p/0K 2p/16K 2p/64K 8p/16K 8p/64K 16p/16K 16p/64K; quick: 2p/0K
 * 2p/64K 16p/64K).  N spaces each map K bytes of their own pages in the
 * space window; a round switches to each space in turn and reads its K
 * bytes, one word a cache line.  The cost of a switch and its refill is a
 * round's time over N, less the time to read K bytes without switching
 * (as lat_ctx subtracts its summing).
 *
 * What a switch is comes from the TLB description, recorded per mode as
 * switch_kind (the tables show it as a word): where the TLB is tagged (the
 * 405's PID) both kinds are measured, tagged spaces (<n>p_<k>k) and spaces
 * that flush on every switch (<n>p_<k>k_flush); untagged (a CR3 load) has
 * the one kind.  Where spaces are emulated by an OS (the sandbox remaps
 * the window) that remap is <n>p_<k>k_remap; the OS's own process switch
 * by lat_ctx's method is the ctx probe's (logs before it have it here as
 * <n>p_<k>k with switch_kind 3, "process": doc/mmureport.md). */
#include <stdio.h>
#include <stdlib.h>
#include "probe.h"

#define PAGE		4096u
#define MAX_SPACES	16
#define MAX_K		(64u << 10)
/* switch_kind: enum mmu_switch's values (lib/table_defs.c has the words
 * in this order, and 3, "process", of older logs). */
static const char *const kinds[] = {
	"untagged, a table switch that flushes the TLB's non-global entries (CR3 load)",
	"tagged, the TLB's tag changes (the 405's PID), no flush",
	"emulated, no such switch: the window remapped (munmap + mmap); the OS's process "
	"switch is ctx's",
};

static const struct { unsigned n, k, quick; } columns[] = {
	{ 2, 0, 1 }, { 2, 16, 0 }, { 2, 64, 1 }, { 8, 16, 0 }, { 8, 64, 0 }, { 16, 16, 0 }, { 16, 64, 1 },
};

struct round {
	struct mmu_space *space[MAX_SPACES];
	unsigned n, bytes, line;
	uint32_t sum;
};

static uint32_t read_window(unsigned bytes, unsigned line)
{
	uint32_t sum = 0;

	for (unsigned off = 0; off < bytes; off += line)
		sum += *(volatile uint32_t *)(uintptr_t)(MMU_SPACE_BASE + off);
	return sum;
}

/* n rounds: every space once, its working set read. */
static uint64_t rounds_run(void *arg, uint32_t n)
{
	struct round *r = arg;
	uint64_t t0 = probe_ticks();

	for (uint32_t i = 0; i < n; i++)
		for (unsigned s = 0; s < r->n; s++) {
			mmu_space_switch(r->space[s]);
			r->sum += read_window(r->bytes, r->line);
		}
	return probe_ticks() - t0;
}

/* n rounds of the same reads with no switch: what the reads cost alone. */
static uint64_t reads_run(void *arg, uint32_t n)
{
	struct round *r = arg;
	uint64_t t0 = probe_ticks();

	for (uint32_t i = 0; i < n; i++)
		for (unsigned s = 0; s < r->n; s++)
			r->sum += read_window(r->bytes, r->line);
	return probe_ticks() - t0;
}

static int one(struct probe_ctx *ctx, uintptr_t mem, unsigned n, unsigned k, unsigned flags,
	       const char *suffix)
{
	struct round r = { .n = n, .bytes = k << 10, .line = probe_cache_line() ? probe_cache_line() : 32 };
	struct probe_time with, without;
	char name[24];
	int err = 0;

	for (unsigned s = 0; s < n && !err; s++) {
		r.space[s] = mmu_space_create(flags);
		err = !r.space[s] || mmu_space_switch(r.space[s]) < 0 ||
		      (r.bytes && mmu_map(MMU_SPACE_BASE, mem + s * MAX_K, r.bytes,
					  MMU_READ | MMU_WRITE) < 0);
	}
	/* Without switching, read in the last space: the same K bytes. */
	if (!err)
		err = probe_measure(rounds_run, &r, &with) < 0 || probe_measure(reads_run, &r, &without) < 0;
	mmu_space_switch(0);
	for (unsigned s = 0; s < n; s++)
		mmu_space_destroy(r.space[s]);
	if (err)
		return probe_fail(ctx, "%u spaces of %u KiB: could not create, map or time them", n, k);

	/* Per switch: (round - reads) / n. */
	struct probe_time t = with;
	int64_t d = (int64_t)with.ticks1000 - (int64_t)without.ticks1000;
	t.ticks1000 = d > 0 ? d / n : 0;
	t.ns100 = probe_tick_hz() ? (int64_t)muldiv64(t.ticks1000, 100000000ull, probe_tick_hz()) : -1;
	t.cycles100 = ns100_to_cycles100(t.ns100);
	snprintf(name, sizeof(name), "%up_%uk%s", n, k, suffix);
	probe_sample_time(ctx, name, &t);
	return RESULT_PASS;
}

static int aspace_run(struct probe_ctx *ctx)
{
	const struct mmu_tlb_info *tlb = mmu_tlb();

	if (!mmu_translated(ctx->mode))
		return probe_skip(ctx, "mode %s has no translation, so no address spaces",
				  ctx->mode_name);
	probe_mem_reset();
	uintptr_t mem = probe_mem_alloc(MAX_SPACES * MAX_K, PAGE, 0, "aspace: working sets");
	if (!mem)
		return probe_fail(ctx, "no room for %u working sets of 64 KiB", MAX_SPACES);
	int emulated = tlb->space_switch == MMU_SWITCH_EMULATED;
	unsigned kind = tlb->space_switch;
	probe_sample(ctx, "switch_kind", kind, 0, "kind");
	if (kind < sizeof(kinds) / sizeof(kinds[0]))
		probe_diag(ctx, "aspace", "switch_kind %u: %s", kind, kinds[kind]);
	for (unsigned i = 0; i < sizeof(columns) / sizeof(columns[0]); i++) {
		unsigned n = columns[i].n, k = columns[i].k;
		int r;
		if (ctx->quick && !columns[i].quick)
			continue;
		r = one(ctx, mem, n, k, 0, emulated ? "_remap" : "");
		if (r == RESULT_PASS && tlb->space_switch == MMU_SWITCH_TAGGED)
			r = one(ctx, mem, n, k, MMU_SPACE_FLUSH, "_flush");
		if (r != RESULT_PASS)
			return r;
	}
	return RESULT_PASS;
}

const struct probe probe_aspace = {
	.name = "aspace",
	.what = "address-space switch with working sets, LMbench's ctxsw columns (2p/0K .. 16p/64K); "
		"under an OS, a window remapped",
	.run = aspace_run,
};
