/* Probe `pagefault`: LMbench 2.0's lat_pagefault, its "Page Fault"
 * column: a file's page faulted in from user mode through the kernel.
 *
 * On bare metal a process maps a RAM file (include/proc.h: page-cache
 * pages the kernel owns) read-only and shared, lazily; its user routine
 * reads one word from the file's end less 16 KiB downwards, 256 KiB
 * apart, while above the first byte (LMbench's order), each read a fault
 * the kernel resolves by mapping the file's page.  pagefault_ns: the run
 * with those reads less the same run without them, per read; the mapping
 * and the unmap stay outside, as LMbench times only the reads.  The loads'
 * sum is checked against the file's pattern.  One counted run's faults and
 * TLB misses (pagefault_*), and where the miss handler tells kernel pages,
 * fault_kernel_dtlb_misses / _itlb_misses: the kernel-page misses of that
 * run less the run without reads, each from a flushed TLB.
 *
 * Under an OS (probe_os(): the sandbox) the OS's own lat_pagefault
 * (include/probe.h): a file in its page cache, mapped read-only and
 * shared, every page read once in a shuffled order, per page less the
 * unmap and map alone (the kernel's fault-around maps several pages per
 * fault, as for LMbench). */
#include "probe.h"
#include "proc.h"
#include "mark.h"

#define PAGE		4096u
#define ALIGN		(16u << 10)	/* LMbench aligns the file's size to 16 KiB */
#define STRIDE		(256u << 10)	/* and reads every 256 KiB */
#define MIN_KB		1024		/* and wants 1 MiB at least */
#define OS_FILE_PAGES	16384		/* under an OS: a 64 MiB file ... */
#define OS_QUICK_PAGES	1024		/* ... 4 MiB with quick */

static unsigned long pagefault_kb;	/* 0: the largest the mmap part below the stack holds */
static int bad;				/* tests: 1 unmap what was never mapped, 2 read outside */

static int set_bad(const char *key, const char *value)
{
	static const char *const kinds[] = { "none", "unmap", "outside", 0 };
	return arg_choice(key, value, kinds, &bad);
}

static int set_pagefault_kb(const char *key, const char *value)
{
	return arg_uint(key, value, MIN_KB, 8192, &pagefault_kb);
}

struct pf {
	struct proc *p;
	struct proc_file *file;
	uint32_t bytes, reads;
	int failed, translated;		/* translated: for the region markers (mark.h) */
};

/* One run: the file mapped, `reads` reads (or none), unmapped; the run's
 * ticks alone (the mapping and unmap outside).  *sum: the loads' sum. */
static uint64_t one_run(struct pf *pf, uint32_t reads, uint32_t *sum)
{
	uintptr_t at = proc_mmap_file(pf->p, pf->file, pf->bytes, 0);
	struct proc_job job = { .rounds = 1, .touch_base = at + pf->bytes - ALIGN,
				.touch_pages = reads, .stride = -(int32_t)STRIDE };
	uint64_t t0, t1;

	if (!at) {
		pf->failed = 1;
		return 0;
	}
	if (reads)		/* a region of the timed span alone, the markers outside it */
		MARK_BEGIN(MARK_PAGEFAULT, pf->translated);
	t0 = probe_ticks();
	if (proc_run(pf->p, &job) < 0)
		pf->failed = 1;
	t1 = probe_ticks();
	if (reads)
		MARK_END(MARK_PAGEFAULT);
	if (proc_munmap(pf->p, at, pf->bytes) < 0)
		pf->failed = 1;
	if (sum)
		*sum = job.sum;
	return t1 - t0;
}

static uint64_t faults_run(void *arg, uint32_t n)
{
	struct pf *pf = arg;
	uint64_t with = 0, without = 0;

	for (uint32_t i = 0; i < n && !pf->failed; i++) {
		with += one_run(pf, pf->reads, 0);
		without += one_run(pf, 0, 0);
	}
	return with > without ? with - without : 0;
}

/* The run's time per iteration as per read. */
static void per_read(struct probe_time *t, uint32_t reads)
{
	t->ticks1000 /= reads;
	if (t->ns100 >= 0)
		t->ns100 /= reads;
	if (t->cycles100 >= 0)
		t->cycles100 /= reads;
}

/* One run from a flushed TLB, its counts before and after.  One copy
 * for both runs, so that the two windows execute the same probe code (when
 * count_run held both, the second one's return landed on another code
 * page, which cancelled a fault-only page). */
static __attribute__((noinline)) void flushed_run(struct pf *pf, uint32_t reads,
						   struct mmu_counters *a, struct mmu_counters *b)
{
	mmu_flush_all();
	*a = mmu_count;
	one_run(pf, reads, 0);
	*b = mmu_count;
}

/* One counted run with the reads (its counts sampled) and the kernel-page
 * misses it takes beyond the same run without them, each from a flushed
 * TLB (so that what the reads' faults add is what they touch). */
static void count_run(struct probe_ctx *ctx, struct pf *pf)
{
	struct mmu_counters a, b, c, d;

	flushed_run(pf, pf->reads, &a, &b);
	flushed_run(pf, 0, &c, &d);
	probe_sample_op_counts(ctx, "pagefault", &a, &b);
	if (!(mmu_tlb()->counts & MMU_COUNTS_KERNEL_MISSES))
		return;
	int64_t kd = (int64_t)(b.kernel_dtlb_misses - a.kernel_dtlb_misses) -
		     (d.kernel_dtlb_misses - c.kernel_dtlb_misses);
	int64_t ki = (int64_t)(b.kernel_itlb_misses - a.kernel_itlb_misses) -
		     (d.kernel_itlb_misses - c.kernel_itlb_misses);
	if (kd < 0 || ki < 0) {
		probe_diag(ctx, "pagefault", "fewer kernel-page misses with the faults than "
			   "without (data %lld, instruction %lld): no count", (long long)kd, (long long)ki);
		return;
	}
	probe_sample(ctx, "fault_kernel_dtlb_misses", kd, 0, "count");
	probe_sample(ctx, "fault_kernel_itlb_misses", ki, 0, "count");
}

/* The reads' sum as the file's pattern gives it: the right pages mapped. */
static int sum_right(struct pf *pf)
{
	uint32_t got = 0, want = 0, off = pf->bytes - ALIGN;

	one_run(pf, pf->reads, &got);
	for (uint32_t k = 0; k < pf->reads; k++, off -= STRIDE)
		want += proc_file_word(off);
	return !pf->failed && got == want;
}

/* pagefault_bad=: an unmap of what no mmap gave, or a read just past
 * the mapping (outside any): each must fail, with the kernel's error. */
static int bad_input(struct pf *pf)
{
	uintptr_t at;
	struct proc_job job = { .rounds = 1, .touch_pages = 1 };

	if (!bad)
		return 0;
	if (!(at = proc_mmap_file(pf->p, pf->file, pf->bytes, 0)))
		return 1;
	job.touch_base = at + pf->bytes;
	if (bad == 1 ? proc_munmap(pf->p, at + PAGE, PAGE) < 0 : proc_run(pf->p, &job) < 0)
		pf->failed = 1;
	proc_munmap(pf->p, at, pf->bytes);
	return 1;			/* passing would be the bug */
}

static int pagefault_run(struct probe_ctx *ctx)
{
	struct pf pf = { 0 };
	struct probe_time t;
	const char *why;

	if (probe_os() && bad)		/* the bad inputs are our kernel's to refuse */
		return probe_skip(ctx, "pagefault_bad: under %s the mappings are its own, not our "
				  "kernel's", probe_os()->name);
	if (probe_os()) {
		char os_why[96] = "";
		int r = probe_os()->pagefault(ctx->quick ? OS_QUICK_PAGES : OS_FILE_PAGES, &t,
					      os_why, sizeof(os_why));
		return probe_os_figure(ctx, "pagefault", r, "pagefault", &t, os_why);
	}
	if ((why = proc_unavailable()))
		return probe_skip(ctx, "%s", why);
	if (!mmu_translated(ctx->mode))
		return probe_skip(ctx, "mode %s has no translation: a file's pages are at hand, "
				  "nothing faults", ctx->mode_name);
	pf.bytes = pagefault_kb ? pagefault_kb << 10 : proc_mmap_room_first() & ~(ALIGN - 1);
	if (pf.bytes > proc_mmap_room() || pf.bytes < MIN_KB << 10)
		return probe_fail(ctx, "pagefault_kb=%lu: a process's mmap part holds %lu KiB, "
				  "LMbench wants 1 MiB at least", (unsigned long)pf.bytes >> 10,
				  (unsigned long)proc_mmap_room() >> 10);
	pf.bytes &= ~(ALIGN - 1);
	for (uint32_t off = pf.bytes - ALIGN; off > 0 && off < pf.bytes; off -= STRIDE)
		pf.reads++;
	pf.translated = 1;			/* a file mapped: a translated mode */
	pf.p = proc_create(1);			/* its one data page: the job */
	pf.file = pf.p ? proc_file_create(pf.bytes) : 0;
	if (pf.p && proc_table_at(pf.p))	/* where its kernel pages lie, for selftest */
		probe_diag(ctx, "pagefault", "the process's window table %#lx, frames array %#lx",
			   (unsigned long)proc_table_at(pf.p), (unsigned long)proc_frames_at(pf.p));
	int err = !pf.file || bad_input(&pf) || !sum_right(&pf);
	if (!err && (mmu_tlb()->counts & MMU_COUNTS_FAULTS))
		count_run(ctx, &pf);
	err = err || pf.failed || probe_measure(faults_run, &pf, &t) < 0 || pf.failed;
	proc_destroy(pf.p);
	proc_file_destroy(pf.file);
	if (err)
		return probe_fail(ctx, "a %lu KiB file could not be mapped, faulted in with the "
				  "right words and unmapped (or no time)", (unsigned long)pf.bytes >> 10);
	per_read(&t, pf.reads);
	probe_diag(ctx, "pagefault", "a %lu KiB file mapped shared read-only, %lu reads from "
		   "its end less 16 KiB down 256 KiB apart, each a fault", (unsigned long)pf.bytes >> 10,
		   (unsigned long)pf.reads);
	probe_sample(ctx, "pagefault_reads", pf.reads, 0, "count");
	probe_sample_time(ctx, "pagefault", &t);
	return RESULT_PASS;
}

const struct probe probe_pagefault = {
	.name = "pagefault",
	.what = "a file page faulted in from user mode through the kernel, in LMbench 2.0's "
		"lat_pagefault order, per fault; under an OS, its file's pages in a shuffled order",
	.run = pagefault_run,
	.args = (const struct boot_arg[]){
		{ "pagefault_kb", "1024..8192 KiB file the pagefault probe maps (default: the "
		  "largest a process's mmap part holds, 2032 KiB)", set_pagefault_kb },
		{ "pagefault_bad", "none, unmap or outside (tests only): the pagefault probe unmaps "
		  "what was never mapped, or reads past its mapping; it must fail", set_bad },
		{ 0 } },
};
