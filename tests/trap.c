/* Probe `trap`: the null call, LMbench's "null call" column: a system call
 * that does nothing, the user/kernel round trip alone.
 *
 * On bare metal a process (include/proc.h) makes n null calls from user
 * mode (405 problem state, i386 ring 3); each trap's handler touches the
 * kernel working set of trap_kb= (a stack, a task record, tables, as a
 * real system call's).  null_call: the calls of one run, less the same
 * run with no call (entering and leaving the process).  pressed_call: each
 * call after the process touched trap_pages= user pages (a working set
 * that presses the TLB: kernel and user pages compete for its entries),
 * less the same touches without the calls.  Where the miss handler tells
 * kernel pages (MMU_COUNTS_KERNEL_MISSES), the kernel-page misses of
 * COUNTED such calls, less the same rounds without them: what pinned and
 * large-page kernels save.  Under an OS (probe_os(): the sandbox) the
 * same two figures by lat_syscall's method, getppid(). */
#include <stdio.h>
#include "probe.h"
#include "proc.h"
#include "mark.h"

#define PAGE		4096u
#define DEFAULT_KB	16
#define DEFAULT_PAGES	64	/* where the TLB's size is unknown: the 405's */
#define MAX_PAGES	512
#define COUNTED		64	/* calls whose kernel-page misses are counted */

static unsigned long trap_kb = DEFAULT_KB, trap_pages_arg;
static int trap_pages_set;

static int set_trap_kb(const char *key, const char *value)
{
	return arg_uint(key, value, 0, 64, &trap_kb);
}

static int set_trap_pages(const char *key, const char *value)
{
	trap_pages_set = 1;
	return arg_uint(key, value, 0, MAX_PAGES, &trap_pages_arg);
}

/* A user working set that fills the TLB user and kernel pages share: as
 * many pages as its entries where the miss handler is ours and so knows
 * them (the 405's 64, the e500's TLB0 512: there as many as a process
 * holds, whose text, job and stack pages make up the rest), else the
 * 405's 64. */
static unsigned long pressed_pages(void)
{
	const struct mmu_tlb_info *tlb = mmu_tlb();
	unsigned long n = tlb->entries, most;

	if (trap_pages_set)
		return trap_pages_arg;		/* as asked: proc_create says if too many */
	if (tlb->refill != MMU_REFILL_SOFTWARE || !n)
		return DEFAULT_PAGES;
	most = proc_max_data_pages() - 1;	/* less the job's page */
	return n < most ? n : most;
}

struct trap {
	struct proc *p;
	uint64_t enter_ticks;		/* a run with nothing in it (the least of a few) */
	uint32_t pages;			/* pressed: user pages touched before each call */
	int translated;			/* for the region markers (mark.h) */
	int failed;
};

/* One run of the process: `rounds` times touch `pages` pages, `calls` calls. */
static uint64_t run_job(struct trap *t, uint32_t rounds, uint32_t pages, uint32_t calls)
{
	struct proc_job job = { .rounds = rounds, .touch_base = proc_data(t->p) + PAGE,
				.touch_pages = pages, .calls = calls };
	uint64_t t0 = probe_ticks();

	if (proc_run(t->p, &job) < 0)
		t->failed = 1;
	return probe_ticks() - t0;
}

static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static uint64_t null_calls(void *arg, uint32_t n)
{
	struct trap *t = arg;

	MARK_BEGIN(MARK_TRAP_NULL, t->translated);	/* outside run_job's timer reads */
	uint64_t with = run_job(t, 1, 0, n);
	MARK_END(MARK_TRAP_NULL);
	return less(with, t->enter_ticks);
}

static uint64_t pressed_calls(void *arg, uint32_t n)
{
	struct trap *t = arg;
	uint64_t with = run_job(t, n, t->pages, 1);
	return less(with, run_job(t, n, t->pages, 0));
}

/* Kernel-page misses of COUNTED calls, less the same rounds without them:
 * <name>_kernel_dtlb_misses, _kernel_itlb_misses. */
static void count_calls(struct probe_ctx *ctx, struct trap *t, uint32_t pages, const char *name)
{
	struct mmu_counters a, b, c;
	char m[48];

	run_job(t, COUNTED, pages, 1);		/* warm, as the runs counted next */
	a = mmu_count;
	run_job(t, COUNTED, pages, 1);
	b = mmu_count;
	run_job(t, COUNTED, pages, 0);
	c = mmu_count;
	int64_t d = (int64_t)(b.kernel_dtlb_misses - a.kernel_dtlb_misses) -
		    (c.kernel_dtlb_misses - b.kernel_dtlb_misses);
	int64_t i = (int64_t)(b.kernel_itlb_misses - a.kernel_itlb_misses) -
		    (c.kernel_itlb_misses - b.kernel_itlb_misses);
	if (d < 0 || i < 0) {
		probe_diag(ctx, "trap", "%s: fewer kernel-page misses with the calls than without "
			   "(data %lld, instruction %lld): no count", name, (long long)d, (long long)i);
		return;
	}
	snprintf(m, sizeof(m), "%s_kernel_dtlb_misses", name);
	probe_sample(ctx, m, d, 0, "count");
	snprintf(m, sizeof(m), "%s_kernel_itlb_misses", name);
	probe_sample(ctx, m, i, 0, "count");
}

static int os_trap(struct probe_ctx *ctx, const struct probe_os *os)
{
	struct probe_time t;
	char why[96] = "";

	if (os->null_call(0, &t, why, sizeof(why)) != 0)
		return probe_fail(ctx, "%s", why);
	probe_sample_time(ctx, "null_call", &t);
	int r = os->null_call(pressed_pages(), &t, why, sizeof(why));
	if (r < 0)
		return probe_fail(ctx, "%s", why);
	if (r > 0)
		probe_diag(ctx, "trap", "pressed_call absent: %s", why);
	else
		probe_sample_time(ctx, "pressed_call", &t);
	return RESULT_PASS;
}

static int trap_run(struct probe_ctx *ctx)
{
	const struct probe_os *os = probe_os();
	struct trap t = { 0 };
	struct probe_time nt, pt;
	const char *why;

	if (os && os->null_call)
		return os_trap(ctx, os);
	if ((why = proc_unavailable()))
		return probe_skip(ctx, "%s", why);
	if (proc_set_kernel_set(trap_kb << 10) < 0)
		return probe_fail(ctx, "trap_kb=%lu: the kernel working set could not be set", trap_kb);
	t.pages = pressed_pages();
	t.translated = mmu_translated(ctx->mode);
	t.p = proc_create(1 + t.pages);	/* page 0: the job; then the working set */
	if (!t.p)
		return probe_fail(ctx, "no process with %lu data pages", 1 + (unsigned long)t.pages);
	probe_diag(ctx, "trap", "kernel working set %lu KiB; pressed: %lu user pages touched "
		   "before each call; kernel-page misses over %u calls", trap_kb, (unsigned long)t.pages, COUNTED);
	t.enter_ticks = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		uint64_t e = run_job(&t, 1, 0, 0);
		t.enter_ticks = e < t.enter_ticks ? e : t.enter_ticks;
	}
	int err = probe_measure(null_calls, &t, &nt) < 0 || t.failed;
	if (!err)
		err = probe_measure(pressed_calls, &t, &pt) < 0 || t.failed;
	if (!err && (mmu_tlb()->counts & MMU_COUNTS_KERNEL_MISSES)) {
		count_calls(ctx, &t, 0, "null");
		count_calls(ctx, &t, t.pages, "pressed");
		err = t.failed;
	}
	proc_destroy(t.p);
	proc_set_kernel_set(0);
	if (err)
		return probe_fail(ctx, "%s", t.failed ? "the process did not run to its exit call"
						      : "the timer did not move");
	probe_sample_time(ctx, "null_call", &nt);
	if (pt.ticks1000)
		probe_sample_time(ctx, "pressed_call", &pt);
	else
		probe_diag(ctx, "trap", "pressed_call absent: no time left after the touches alone");
	return RESULT_PASS;
}

const struct probe probe_trap = {
	.name = "trap",
	.what = "the null call: a system-call trap from user mode and back, with a kernel working "
		"set, alone and after a user working set; under an OS, getppid() (lat_syscall null)",
	.run = trap_run,
	.args = (const struct boot_arg[]){
		{ "trap_kb", "0..64 KiB of kernel data each null call touches (default 16)",
		  set_trap_kb },
		{ "trap_pages", "0..512 user pages the trap probe touches before each pressed call "
		  "(default: the TLB's entries where our miss handler fills it, the 405's 64, "
		  "the e500's TLB0 512; else 64)", set_trap_pages },
		{ 0 } },
};
