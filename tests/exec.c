/* Probe `exec`: LMbench's "exec proc" (lat_proc exec: fork, the child
 * execve()s a tiny program, which exits; the parent waits).  exec_us
 * includes the fork, so that it means what LMbench's column does.
 *
 * On bare metal an iteration forks a parent of PARENT_KB (include/proc.h's
 * proc_fork), replaces the child by a fresh process from a TEXT_KB image
 * with BSS_KB of bss (proc_exec: text copied, bss zeroed, a stack; the
 * forked space destroyed, as execve discards it), runs that program (it
 * writes its bss pages and makes one null call, as hello's write), and
 * destroys it.  One iteration's faults and TLB misses where counted.
 * Under an OS (probe_os(): the sandbox), fork + execve of a static
 * program + wait, every child's exit status checked; and sh_us, LMbench's
 * "sh proc": the same program run through /bin/sh -c (absent on boards:
 * no shell). */
#include "probe.h"
#include "proc.h"
#include "mark.h"

#define PAGE		4096u
#define PARENT_KB	64
#define TEXT_KB		64
#define BSS_KB		16

struct execer {
	struct proc *parent;
	int failed, translated;		/* translated: for the region markers (mark.h) */
};

static int exec_once(struct execer *e)
{
	struct proc *child = proc_fork(e->parent);

	if (!child)
		return -1;
	struct proc *img = proc_exec(TEXT_KB << 10, BSS_KB << 10);
	proc_destroy(child);			/* execve: the forked image goes */
	if (!img)
		return -1;
	/* The job on the first bss page; the program writes the others. */
	struct proc_job job = { .rounds = 1, .touch_base = proc_data(img) + PAGE,
				.touch_pages = BSS_KB / 4 - 1, .write = 1, .calls = 1 };
	int r = proc_run(img, &job);
	proc_destroy(img);
	return r;
}

static uint64_t execs_run(void *arg, uint32_t n)
{
	struct execer *e = arg;
	uint64_t t0 = probe_ticks();

	for (uint32_t i = 0; i < n && !e->failed; i++)
		if (exec_once(e) < 0)
			e->failed = 1;
	return probe_ticks() - t0;
}

/* execs_run as a region: the markers outside its timer reads. */
static uint64_t execs_marked(void *arg, uint32_t n)
{
	MARK_BEGIN(MARK_EXEC, ((struct execer *)arg)->translated);
	uint64_t t = execs_run(arg, n);
	MARK_END(MARK_EXEC);
	return t;
}

/* exec_us, then sh_us: the program run through a shell (sh proc). */
static int os_exec(struct probe_ctx *ctx, const struct probe_os *os)
{
	static const char *const what[] = { "programs", "shells running the program" };
	static const char *const name[] = { "exec", "sh" };

	for (int shell = 0; shell < 2; shell++) {
		struct probe_time t;
		uint64_t execs = 0, ran = 0;
		char why[96] = "";
		if (os->exec_proc(shell, &t, &execs, &ran, why, sizeof(why)) != 0)
			return probe_fail(ctx, "%s", why);
		probe_diag(ctx, "exec", "%llu %s executed, %llu exited with the status that says "
			   "it ran", (unsigned long long)execs, what[shell], (unsigned long long)ran);
		if (ran != execs)
			return probe_fail(ctx, "of %llu %s executed only %llu ran",
					  (unsigned long long)execs, what[shell], (unsigned long long)ran);
		probe_sample_us(ctx, "exec", name[shell], &t);
	}
	return RESULT_PASS;
}

static int exec_run(struct probe_ctx *ctx)
{
	const struct probe_os *os = probe_os();
	struct execer e = { 0 };
	struct probe_time t;
	const char *why;

	if (os && os->exec_proc)
		return os_exec(ctx, os);
	if ((why = proc_unavailable()))
		return probe_skip(ctx, "%s", why);
	e.translated = mmu_translated(ctx->mode);
	e.parent = proc_create(PARENT_KB / 4);
	if (!e.parent)
		return probe_fail(ctx, "no process with %u KiB of data", PARENT_KB);
	int err = exec_once(&e) < 0;		/* warm */
	struct mmu_counters a = mmu_count, b;
	err = err || exec_once(&e) < 0;		/* the one counted */
	b = mmu_count;
	err = err || probe_measure(execs_marked, &e, &t) < 0 || e.failed;
	proc_destroy(e.parent);
	if (err)
		return probe_fail(ctx, "fork + exec of a %u KiB image did not run to its exit call "
				  "(or no time)", TEXT_KB);
	probe_diag(ctx, "exec", "fork of %u KiB, exec of %u KiB text and %u KiB bss, the "
		   "program's run, destroy", PARENT_KB, TEXT_KB, BSS_KB);
	probe_sample_us(ctx, "exec", "exec", &t);
	probe_sample_op_counts(ctx, "exec", &a, &b);
	return RESULT_PASS;
}

const struct probe probe_exec = {
	.name = "exec",
	.what = "fork + exec of a 64 KiB image, its run, exit (LMbench's exec proc); "
		"under an OS, fork+execve of a static program+wait",
	.run = exec_run,
};
