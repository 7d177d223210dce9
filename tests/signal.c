/* Probe `signal`: LMbench's signal figures (lat_sig) on bare metal, a
 * process of the scheduler (include/proc.h) with a handler installed.
 * catch: kill(self, SIGUSR1) delivered to the handler on the way out of
 * the kernel (its context saved in a frame on the user stack) and its
 * sigreturn, less the sending alone (kill with signal 0, no delivery).
 * prot: a store to a read-only page of the process delivered as SIGSEGV
 * to the handler, which returns by sigreturn and the store is tried again
 * (the last catch resumes past it), less catch, as LMbench subtracts it.
 * Each per signal, a run of n + 1 less a run of 1;
 * <name>_op_*: one signal's TLB and kernel-page misses (a run of 17 less
 * one of 1, over 16), where the mode counts them.  prot needs a read-only page,
 * so translation (not mode real).  Under an OS (probe_os(): the sandbox)
 * lat_sig's catch and prot with the OS's signals (include/probe.h). */
#include <stdio.h>
#include <string.h>
#include "probe.h"
#include "proc.h"
#include "mark.h"

#define COUNTED	16		/* rounds whose misses are counted, per round */

struct sig {
	struct proc *p;
	uint32_t op, sig, handler;
	int failed, translated;		/* translated: for the region markers (mark.h) */
	char why[96];
};

static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static uint64_t sig_run(struct sig *s, uint32_t rounds)
{
	struct proc_prog g = { .op = s->op, .rounds = rounds, .sig = s->sig, .handler = s->handler,
			       .prot_addr = proc_data(s->p) };
	uint64_t t0 = probe_ticks();
	int rc = proc_run_all(&s->p, &g, 1);
	uint64_t t = probe_ticks() - t0;
	uint32_t want = s->handler && s->sig ? rounds : 0;

	if (rc < 0 || g.status || (s->op == PROC_OP_PROT ? g.caught != rounds : g.caught != want)) {
		if (!s->failed)
			snprintf(s->why, sizeof(s->why), "%s: %s; %lu of %lu signals caught (step %lu, "
				 "%ld)", s->op == PROC_OP_PROT ? "prot" : "catch",
				 rc < 0 ? "the run failed (the reason above)" : "the program failed",
				 (unsigned long)g.caught, (unsigned long)rounds,
				 (unsigned long)g.status, (long)g.err);
		s->failed = 1;
	}
	return t;
}

static uint64_t rounds_net(void *arg, uint32_t n)
{
	struct sig *s = arg;
	uint64_t with;

	/* The markers outside sig_run's timer reads; the send run unmarked. */
	if (s->op == PROC_OP_PROT) {
		MARK_BEGIN(MARK_SIG_PROT, s->translated);
		with = sig_run(s, n + 1);
		MARK_END(MARK_SIG_PROT);
	} else if (s->handler) {
		MARK_BEGIN(MARK_SIG_CATCH, s->translated);
		with = sig_run(s, n + 1);
		MARK_END(MARK_SIG_CATCH);
	} else {
		with = sig_run(s, n + 1);
	}
	return less(with, sig_run(s, 1));
}

static void op_counts(struct probe_ctx *ctx, struct sig *s, const char *name)
{
	struct mmu_counters a, b, c, zero = { 0 }, net;
	uint32_t *pa = (uint32_t *)&a, *pb = (uint32_t *)&b, *pc = (uint32_t *)&c,
		 *pn = (uint32_t *)&net;
	char prefix[24];

	sig_run(s, 1);
	a = mmu_count;
	sig_run(s, 1);
	b = mmu_count;
	sig_run(s, (1 + COUNTED));
	c = mmu_count;
	for (unsigned i = 0; i < sizeof(net) / sizeof(uint32_t); i++) {
		int64_t d = (int64_t)(pc[i] - pb[i]) - (pb[i] - pa[i]);
		if (d <= -COUNTED) {	/* a whole round fewer: not start-up noise */
			probe_diag(ctx, "signal", "%s: a count fell from one signal's run to %u "
				   "more: no counts", name, COUNTED);
			return;
		}
		pn[i] = d > 0 ? (uint32_t)(d / COUNTED) : 0;	/* start-up's odd miss rounds away */
	}
	snprintf(prefix, sizeof(prefix), "%s_op", name);
	probe_sample_op_counts(ctx, prefix, &zero, &net);
}

/* A probe_measure() figure less another's, per signal. */
static void net_time(struct probe_ctx *ctx, const char *name, const struct probe_time *with,
		     uint64_t base1000)
{
	if (with->ticks1000 <= base1000) {
		probe_diag(ctx, "signal", "%s absent: no time left after the baseline", name);
		return;
	}
	struct probe_time t = *with;
	t.ticks1000 = with->ticks1000 - base1000;
	t.ns100 = probe_tick_hz() ? (int64_t)muldiv64(t.ticks1000, 100000000ull, probe_tick_hz()) : -1;
	t.cycles100 = ns100_to_cycles100(t.ns100);
	probe_sample_time(ctx, name, &t);
}

static int os_signals(struct probe_ctx *ctx, const struct probe_os *os)
{
	struct probe_time caught, prot;
	char why[96] = "";
	int r = os->sig_catch(&caught, why, sizeof(why));

	if (probe_os_figure(ctx, "signal", r, "catch", &caught, why) != RESULT_PASS || r > 0)
		return r < 0 ? RESULT_FAIL : RESULT_PASS;	/* prot subtracts catch */
	r = os->sig_prot(&caught, &prot, why, sizeof(why));
	return probe_os_figure(ctx, "signal", r, "prot", &prot, why);
}

static int signal_run(struct probe_ctx *ctx)
{
	struct probe_time send, caught, prot;
	struct sig s = { 0 };
	const char *why = proc_unavailable();
	int translated = mmu_translated(ctx->mode), err;

	if (probe_os())
		return os_signals(ctx, probe_os());
	if (why)
		return probe_skip(ctx, "%s", why);
	s.translated = translated;
	if (!(s.p = proc_create(1)))
		return probe_fail(ctx, "no process with a data page");
	s.op = PROC_OP_KILL;
	err = probe_measure(rounds_net, &s, &send) < 0;		/* kill(self, 0) */
	s.sig = PROC_SIGUSR1, s.handler = 1;
	err = err || probe_measure(rounds_net, &s, &caught) < 0 || s.failed;
	if (!err)
		op_counts(ctx, &s, "catch");
	if (!err && translated) {
		s.op = PROC_OP_PROT, s.sig = PROC_SIGSEGV;
		err = proc_mprotect(s.p, proc_data(s.p), 4096, 0) < 0 ||
		      probe_measure(rounds_net, &s, &prot) < 0 || s.failed;
		if (!err)
			op_counts(ctx, &s, "prot");
	}
	err |= s.failed;
	proc_destroy(s.p);
	if (err)
		return probe_fail(ctx, "%s", s.failed ? s.why : "the timer did not move");
	net_time(ctx, "catch", &caught, send.ticks1000);
	if (translated)
		net_time(ctx, "prot", &prot, caught.ticks1000);
	else
		probe_diag(ctx, "signal", "prot absent: mode %s has no translation, so no "
			   "read-only page", ctx->mode_name);
	return RESULT_PASS;
}

const struct probe probe_signal = {
	.name = "signal",
	.what = "signals by lat_sig's method: a signal to oneself caught by a handler that returns "
		"by sigreturn, and a write to a read-only page caught as SIGSEGV (catch subtracted); "
		"under an OS, its signals",
	.run = signal_run,
};
