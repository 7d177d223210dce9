/* Probe `pipe`: LMbench's pipe latency (lat_pipe) on bare metal: two
 * processes, one word each way through two blocking pipes (include/proc.h
 * proc_run_all), so a round trip is two writes, two reads and two context
 * switches.  pipe_ns: per round trip, a run of n + 1 less a run of 1
 * (starting and ending the processes, the first and last hops); pipe_round_*: the TLB
 * and kernel-page misses of one round trip in the TLB's steady state
 * (probe_ring_round_counts), where the mode counts them.
 *
 * Under an OS (probe_os(): the sandbox) lat_pipe itself: the OS's ring of
 * two processes with nothing to sum (ctx's, include/probe.h), a word each
 * way, per round trip; every hop counted, the child reaped.
 *
 * pipe_bad= runs one bad input instead, which must fail with a clear
 * error, never hang: eof (a read from a pipe nobody writes), nohandler (a
 * signal to a process with no handler), sigreturn (a sigreturn with no
 * signal frame), deadlock (two processes each reading the other's empty
 * pipe), spin (a process that never makes a call: the watchdog's). */
#include <stdio.h>
#include <string.h>
#include "probe.h"
#include "proc.h"
#include "mark.h"


static const char *const bad_names[] = { "none", "eof", "nohandler", "sigreturn", "deadlock", "spin", 0 };
static int bad;
static struct probe_ring ring;
static int translated;			/* the mode's, for the region markers (mark.h) */

static int set_bad(const char *key, const char *value)
{
	return arg_choice(key, value, bad_names, &bad);
}

static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static uint64_t trips(void *arg, uint32_t n)
{
	struct probe_ring *r = arg;

	MARK_BEGIN(MARK_PIPE, translated);	/* outside probe_ring_run's timer reads */
	uint64_t with = probe_ring_run(r, n + 1, 0);
	MARK_END(MARK_PIPE);
	return less(with, probe_ring_run(r, 1, 0));
}

/* One process (two for deadlock) running a bad program: the run must fail. */
static int bad_run(struct probe_ctx *ctx)
{
	static const uint32_t ops[] = { 0, PROC_OP_READ, PROC_OP_KILL, PROC_OP_SIGRETURN,
					PROC_OP_READ, PROC_OP_SPIN };
	struct proc *p[2] = { proc_create(0), proc_create(0) };
	struct proc_prog g[2] = { { .op = ops[bad], .rounds = 1, .sig = PROC_SIGUSR1 },
				  { .op = ops[bad], .rounds = 1 } };
	int n = bad == 4 ? 2 : 1, rc = -1;

	if (p[0] && p[1] && (bad != 1 || proc_pipe(0, 0, p[0], 0) == 0) &&
	    (bad != 4 || (proc_pipe(p[0], 1, p[1], 0) == 0 && proc_pipe(p[1], 1, p[0], 0) == 0))) {
		rc = proc_run_all(p, g, n);
		if (rc == 0 && g[0].status)
			probe_diag(ctx, "pipe", "pipe_bad=%s: the program's step %lu failed: %ld",
				   bad_names[bad], (unsigned long)g[0].status, (long)g[0].err);
	}
	proc_destroy(p[0]);
	proc_destroy(p[1]);
	if (rc == 0 && bad == 1 && g[0].status == PROC_ERR_READ && g[0].err == 0)
		return probe_fail(ctx, "pipe_bad=eof: the read of a pipe with no writer gave EOF (0)");
	return probe_fail(ctx, "pipe_bad=%s: the run %s", bad_names[bad],
			  rc < 0 ? "failed (the reason above)" : "ended without the error expected");
}

struct os_ring { const struct probe_os *os; void *ring; };

static uint64_t os_trips(void *arg, uint32_t n)
{
	struct os_ring *a = arg;
	return a->os->ring_run(a->ring, n);
}

static int os_pipe(struct probe_ctx *ctx, const struct probe_os *os)
{
	struct probe_time t;
	char why[96];
	struct os_ring a = { os, os->ring_open(2, 0, why, sizeof(why)) };

	if (!a.ring)
		return probe_fail(ctx, "%s", why);
	int err = probe_measure(os_trips, &a, &t) < 0;
	if (probe_os_ring_close(ctx, "pipe", "pipe", os, a.ring, 2) != RESULT_PASS)
		return RESULT_FAIL;
	if (err)
		return probe_fail(ctx, "the timer did not move");
	probe_sample_time(ctx, "pipe", &t);
	return RESULT_PASS;
}

static int pipe_run(struct probe_ctx *ctx)
{
	struct probe_time t;
	const struct probe_os *os = probe_os();
	const char *why = os ? 0 : proc_unavailable();

	if (os && bad)		/* the bad inputs are our kernel's to refuse */
		return probe_skip(ctx, "pipe_bad=%s: under %s the pipes and signals are its own, "
				  "not our kernel's", bad_names[bad], os->name);
	if (os)
		return os_pipe(ctx, os);
	if (why)
		return probe_skip(ctx, "%s", why);
	if (bad)
		return bad_run(ctx);
	translated = mmu_translated(ctx->mode);
	if (probe_ring_open(&ring, 2, 0) < 0)
		return probe_fail(ctx, "no two processes with a pipe each way");
	probe_ring_pages(ctx, "pipe", "pipe", &ring);
	int err = probe_measure(trips, &ring, &t) < 0 || ring.failed;
	if (!err)
		probe_ring_round_counts(ctx, &ring, "pipe", "pipe");
	err |= ring.failed;
	uint32_t switches = proc_switches();
	probe_ring_close(&ring);
	if (err)
		return probe_fail(ctx, "%s", ring.failed ? ring.why : "the timer did not move");
	probe_diag(ctx, "pipe", "%lu round trips a run, %lu switches in the last run",
		   (unsigned long)t.iterations, (unsigned long)switches);
	probe_sample_time(ctx, "pipe", &t);
	return RESULT_PASS;
}

const struct probe probe_pipe = {
	.name = "pipe",
	.what = "pipe latency by lat_pipe's method: a word each way between two processes through "
		"blocking pipes, per round trip; under an OS, its processes",
	.run = pipe_run,
	.args = (const struct boot_arg[]){
		{ "pipe_bad", "none|eof|nohandler|sigreturn|deadlock|spin: run this bad input "
		  "instead, which must fail (default none)", set_bad },
		{ 0 } },
};
