/* Probe `fork`: LMbench's "fork proc" (lat_proc fork: fork, the child
 * exits, the parent waits), with a working set.
 *
 * On bare metal a parent process has fork_kb= of data, written once (its
 * working set).  An iteration: proc_fork (the child shares the data
 * copy-on-write, include/proc.h), the child runs and writes fork_writes=
 * of the pages (each write to a shared page faults and copies it), exits,
 * and is destroyed.  fork_us per iteration; one fork's faults and TLB
 * misses (kernel pages apart where counted), exact under -icount.  Under
 * an OS (probe_os(): the sandbox) the same by lat_proc's method: fork(),
 * the child writes its pages and _exit()s, wait(); the child's minor
 * faults as the OS counts them. */
#include "probe.h"
#include "proc.h"
#include "mark.h"

#define PAGE		4096u
#define DEFAULT_KB	64
#define DEFAULT_WRITES	1

static unsigned long fork_kb = DEFAULT_KB, fork_writes = DEFAULT_WRITES;

static int set_fork_kb(const char *key, const char *value)
{
	return arg_uint(key, value, 4, 1024, &fork_kb);
}

static int set_fork_writes(const char *key, const char *value)
{
	return arg_uint(key, value, 0, 256, &fork_writes);
}

struct forker {
	struct proc *parent;
	int failed, translated;		/* translated: for the region markers (mark.h) */
};

/* Page 0 of the data holds the job; the working set follows. */
static int fork_once(struct forker *f)
{
	struct proc *c = proc_fork(f->parent);

	if (!c)
		return -1;
	struct proc_job job = { .rounds = 1, .touch_base = proc_data(c) + PAGE,
				.touch_pages = fork_writes, .write = 1 };
	int r = proc_run(c, &job);
	proc_destroy(c);
	return r;
}

static uint64_t forks_run(void *arg, uint32_t n)
{
	struct forker *f = arg;
	uint64_t t0 = probe_ticks();

	for (uint32_t i = 0; i < n && !f->failed; i++)
		if (fork_once(f) < 0)
			f->failed = 1;
	return probe_ticks() - t0;
}

/* forks_run as a region: the markers outside its timer reads. */
static uint64_t forks_marked(void *arg, uint32_t n)
{
	MARK_BEGIN(MARK_FORK, ((struct forker *)arg)->translated);
	uint64_t t = forks_run(arg, n);
	MARK_END(MARK_FORK);
	return t;
}

static int os_fork(struct probe_ctx *ctx, const struct probe_os *os)
{
	struct probe_time t;
	uint64_t faults = 0;
	char why[96] = "";

	if (os->fork_proc(fork_kb << 10, fork_writes, &t, &faults, why, sizeof(why)) != 0)
		return probe_fail(ctx, "%s", why);
	probe_sample_us(ctx, "fork", "fork", &t);
	probe_sample(ctx, "fork_child_minflt", faults, 0, "count");
	return RESULT_PASS;
}

static int fork_run(struct probe_ctx *ctx)
{
	const struct probe_os *os = probe_os();
	uint32_t pages = fork_kb / 4;
	struct forker f = { 0 };
	struct probe_time t;
	const char *why;

	if (fork_writes > pages)
		return probe_fail(ctx, "fork_writes=%lu: more than fork_kb=%lu has pages (%u)",
				  fork_writes, fork_kb, pages);
	if (os && os->fork_proc)
		return os_fork(ctx, os);
	if ((why = proc_unavailable()))
		return probe_skip(ctx, "%s", why);
	f.translated = mmu_translated(ctx->mode);
	f.parent = proc_create(1 + pages);
	if (!f.parent)
		return probe_fail(ctx, "no process with %u data pages", 1 + pages);
	/* The parent's working set: every page written once. */
	struct proc_job job = { .rounds = 1, .touch_base = proc_data(f.parent) + PAGE,
				.touch_pages = pages, .write = 1 };
	int err = proc_run(f.parent, &job) < 0 || fork_once(&f) < 0;
	struct mmu_counters a = mmu_count, b;
	err = err || fork_once(&f) < 0;		/* the fork counted */
	b = mmu_count;
	err = err || probe_measure(forks_marked, &f, &t) < 0 || f.failed;
	proc_destroy(f.parent);
	if (err)
		return probe_fail(ctx, "a fork of %lu KiB did not run to its exit call (or no time)",
				  fork_kb);
	probe_diag(ctx, "fork", "a parent of %lu KiB; each child writes %lu pages", fork_kb,
		   fork_writes);
	probe_sample_us(ctx, "fork", "fork", &t);
	probe_sample_op_counts(ctx, "fork", &a, &b);
	return RESULT_PASS;
}

const struct probe probe_fork = {
	.name = "fork",
	.what = "fork with a working set: copy-on-write child, its writes, exit, destroy "
		"(LMbench's fork proc); under an OS, fork()+_exit+wait",
	.run = fork_run,
	.args = (const struct boot_arg[]){
		{ "fork_kb", "4..1024 KiB of data the fork probe's parent has (default 64)",
		  set_fork_kb },
		{ "fork_writes", "0..256 pages each forked child writes (default 1; at most fork_kb/4)",
		  set_fork_writes },
		{ 0 } },
};
