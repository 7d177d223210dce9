/* The run loop: every probe, every repetition, every mode, interleaved per
 * repetition (A B C A B C ...) so that drift favours no mode.  Samples are
 * kept per mode (samples.c) and reported as medians once all repetitions
 * are done; each mode's result is the worst of its repetitions. */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "config.h"
#include "mark.h"
#include "mmu_core.h"
#include "probe.h"
#include "report.h"
#include "run.h"
#include "samples.h"
#include "watchdog.h"

struct mode_result {
	int result;			/* worst over the repetitions kept */
	char reason[96];
	int kept;			/* repetitions finished, when the watchdog cut one */
	uint32_t cut_ms;		/* the budget it ran out of; 0: not cut */
};

static struct mode_result results[MAX_RUN_MODES];
static struct mode_result *current;

/* What the MMU counted during one repetition, as samples like any other:
 * only the counters something counts in this mode (mmu_tlb()->counts). */
static void sample_counters(struct probe_ctx *ctx, const struct mmu_counters *a,
			    const struct mmu_counters *b)
{
	unsigned counts = mmu_tlb()->counts;

	if (counts & MMU_COUNTS_TLB_MISSES) {
		probe_sample(ctx, "dtlb_misses", b->dtlb_misses - a->dtlb_misses, 0, "count");
		probe_sample(ctx, "itlb_misses", b->itlb_misses - a->itlb_misses, 0, "count");
	}
	if (counts & MMU_COUNTS_FAULTS) {
		probe_sample(ctx, "page_faults", b->page_faults - a->page_faults, 0, "count");
		probe_sample(ctx, "prot_faults", b->prot_faults - a->prot_faults, 0, "count");
	}
	if (counts & MMU_COUNTS_TLB_WRITES)
		probe_sample(ctx, "tlb_writes", b->tlb_writes - a->tlb_writes, 0, "count");
	if (counts & MMU_COUNTS_FLUSHES)
		probe_sample(ctx, "flushes", b->flushes - a->flushes, 0, "count");
}

/* An empty region MARK_MODE + m (mark.h): the plugin's file then says
 * which mode the entries after it are of.  An id must be a constant. */
static void mark_mode(int m)
{
	switch (m) {
#define MODE_MARKED(i) case i: MARK_BEGIN(MARK_MODE + i, 0); MARK_END(MARK_MODE + i); break;
	MODE_MARKED(0) MODE_MARKED(1) MODE_MARKED(2) MODE_MARKED(3)
	MODE_MARKED(4) MODE_MARKED(5) MODE_MARKED(6) MODE_MARKED(7)
#undef MODE_MARKED
	}
}

static void run_one(const struct probe *p, int rep, int m)
{
	static uint32_t figures_done;		/* a bit per mode */
	const struct mmu_mode *mode = config.modes[m];
	struct probe_ctx ctx = { .mode = mode, .mode_name = mode->name, .rep = rep,
				 .reps = config.reps, .mode_index = m, .nmodes = config.nmodes,
				 .quick = config.quick, .icount_shift = config.icount_shift };
	struct mmu_counters before;
	int result;

	current = &results[m];
	mark_mode(m);
	samples_use(m);
	report_set_current(p->name, mode->name);
	const char *unavailable = mmu_unavailable(mode);
	if (unavailable) {
		result = probe_skip(&ctx, "mode %s: %s", mode->name, unavailable);
	} else if (mmu_enter(mode) < 0) {
		result = probe_fail(&ctx, "could not enter mode %s", mode->name);
	} else {
		if (!(figures_done & (1u << m))) {
			figures_done |= 1u << m;
			mmu_report_figures(mode);	/* once per mode */
		}
		before = mmu_count;
		if (!setjmp(watchdog_jump)) {
			probe_budget(&ctx, WATCHDOG_DEFAULT_MS);	/* the probe may set its own */
			result = p->run(&ctx);
			watchdog_stop();
			if (mode->ops && result != RESULT_SKIP)
				sample_counters(&ctx, &before, &mmu_count);
		} else {
			watchdog_stop();
			mmu_space_switch(0);	/* a probe stopped inside a space: back to the kernel's */
			result = RESULT_TIMEOUT;
			snprintf(ctx.fail_reason, sizeof(ctx.fail_reason),
				 "stopped by the watchdog after its budget of %lu ms",
				 (unsigned long)watchdog_budget_ms());
		}
		mmu_set_fault_hook(0);
		mmu_leave();
	}
	/* A heartbeat by the image's clock (instructions under -icount): the
	 * host's supervisor (tools/supervise) sizes its limit from these. */
	report_diag("elapsed: %llu ms", (unsigned long long)
		    (ticks_to_ns100(arch_ticks() - boot_info.entry_ticks) / 100000000));
	if (result == RESULT_TIMEOUT) {
		/* Cut short: the mode runs no more repetitions; those before
		 * this one stand (a pass), this one's samples go. */
		current->kept = rep;
		current->cut_ms = watchdog_budget_ms();
		if (rep > 0) {
			samples_forget(m, rep);
			return;
		}
	}
	/* TIMEOUT beats FAIL beats SKIP beats PASS; the first reason is kept. */
	if (result == RESULT_TIMEOUT && current->result != RESULT_TIMEOUT) {
		current->result = RESULT_TIMEOUT;
		snprintf(current->reason, sizeof(current->reason), "rep %d: %s", rep,
			 ctx.fail_reason);
	} else if (result == RESULT_FAIL && current->result != RESULT_FAIL &&
		   current->result != RESULT_TIMEOUT) {
		current->result = RESULT_FAIL;
		snprintf(current->reason, sizeof(current->reason), "rep %d: %s", rep,
			 ctx.fail_reason[0] ? ctx.fail_reason : "failed");
	} else if (result == RESULT_SKIP && current->result == RESULT_PASS) {
		current->result = RESULT_SKIP;
		snprintf(current->reason, sizeof(current->reason), "%s",
			 ctx.skip_reason[0] ? ctx.skip_reason : "no reason given");
	}
}

/* The probe's samples from all modes of repetition `rep` of `reps`, for
 * mode m.  A mode the watchdog cut short has it again for its last kept
 * repetition with reps = the kept ones: samples already taken stand. */
static void rep_done(const struct probe *p, int rep, int reps, int m)
{
	const struct mmu_mode *mode = config.modes[m];
	struct probe_ctx ctx = { .mode = mode, .mode_name = mode->name, .rep = rep,
				 .reps = reps, .mode_index = m, .nmodes = config.nmodes,
				 .quick = config.quick, .icount_shift = config.icount_shift };

	current = &results[m];
	samples_use(m);
	report_set_current(p->name, mode->name);
	p->rep_done(&ctx);
	report_set_current(0, 0);
}

static void report_mode(const struct probe *p, int m)
{
	struct mode_result *r = &results[m];
	const char *mode = config.modes[m]->name;

	report_set_current(p->name, mode);
	if (r->cut_ms && r->kept)
		report_diag("%s.%s: cut short by the watchdog (budget %lu ms) in repetition %d: "
			    "kept %d of %d", p->name, mode, (unsigned long)r->cut_ms, r->kept + 1,
			    r->kept, config.reps);
	if (r->result != RESULT_SKIP)
		samples_report(p->name, m);
	report_result(p->name, mode, r->result, r->reason);
	report_set_current(0, 0);
}

void run_probes(void)
{
	arch_report_measurements();
	for (int i = 0; i < config.nprobes; i++) {
		const struct probe *p = config.probes[i];

		samples_clear();
		memset(results, 0, sizeof(results[0]) * config.nmodes);
		/* A mode's result goes out as soon as its last repetition is done
		 * (with rep_done, once that has run for every mode). */
		for (int rep = 0; rep < config.reps; rep++) {
			int last = rep == config.reps - 1;
			for (int m = 0; m < config.nmodes; m++) {
				if (!results[m].cut_ms)
					run_one(p, rep, m);
				if (last && !p->rep_done)
					report_mode(p, m);
			}
			for (int m = 0; m < config.nmodes && p->rep_done; m++)
				if (!results[m].cut_ms)
					rep_done(p, rep, config.reps, m);
				else if (rep && results[m].kept == rep)	/* cut now: the kept ones' end */
					rep_done(p, rep - 1, rep, m);
			for (int m = 0; m < config.nmodes && p->rep_done && last; m++)
				report_mode(p, m);
		}
	}
	/* The first result went out during the loop: how long boot took. */
	report_measurement("boot", config.modes[0]->name, "entry_to_first_result",
			   ticks_to_ns100(report_first_result_ticks - boot_info.entry_ticks) / 1000,
			   2, "us");
}

int run_planned(void)
{
	return config.nprobes * config.nmodes;
}

void run_planned_name(int index, char *buf, int size)
{
	snprintf(buf, size, "%s.%s", config.probes[index / config.nmodes]->name,
		 config.modes[index % config.nmodes]->name);
}
