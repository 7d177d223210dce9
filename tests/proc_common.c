/* What the process probes (trap, fork, exec, mmap) share: a time in
 * microseconds, as LMbench prints these columns, and the MMU's counts of
 * one operation.  Not a probe itself (no struct probe here). */
#include <stdio.h>
#include "probe.h"

void probe_sample_us(struct probe_ctx *ctx, const char *probe, const char *name,
		     const struct probe_time *t)
{
	char m[40];

	if (t->ns100 < 0) {
		probe_diag(ctx, probe, "%s_us absent: the timer's rate is unknown", name);
		return;
	}
	snprintf(m, sizeof(m), "%s_us", name);
	probe_sample(ctx, m, t->ns100 / 1000, 2, "us");
	snprintf(m, sizeof(m), "%s_spread", name);
	probe_sample(ctx, m, t->spread100, 2, "percent");
}

static void sample_count(struct probe_ctx *ctx, const char *prefix, const char *what, uint32_t n)
{
	char m[48];

	snprintf(m, sizeof(m), "%s_%s", prefix, what);
	probe_sample(ctx, m, n, 0, "count");
}

/* <prefix>_page_faults ... for what happened between a and b: only what
 * something counts in this mode (a count nothing counts is absent). */
void probe_sample_op_counts(struct probe_ctx *ctx, const char *prefix,
			    const struct mmu_counters *a, const struct mmu_counters *b)
{
	unsigned counts = mmu_tlb()->counts;

	if (counts & MMU_COUNTS_FAULTS) {
		sample_count(ctx, prefix, "page_faults", b->page_faults - a->page_faults);
		sample_count(ctx, prefix, "prot_faults", b->prot_faults - a->prot_faults);
	}
	if (counts & MMU_COUNTS_TLB_MISSES) {
		sample_count(ctx, prefix, "dtlb_misses", b->dtlb_misses - a->dtlb_misses);
		sample_count(ctx, prefix, "itlb_misses", b->itlb_misses - a->itlb_misses);
	}
	if (counts & MMU_COUNTS_KERNEL_MISSES) {
		sample_count(ctx, prefix, "kernel_dtlb_misses",
			     b->kernel_dtlb_misses - a->kernel_dtlb_misses);
		sample_count(ctx, prefix, "kernel_itlb_misses",
			     b->kernel_itlb_misses - a->kernel_itlb_misses);
	}
}
