/* The run loop: every probe, every repetition, every mode, interleaved per
 * repetition (A B C A B C ...) so that drift favours no mode.  Samples are
 * kept per mode and reported as medians once all repetitions are done. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sort.h"
#include "arch.h"
#include "board.h"
#include "config.h"
#include "mem.h"
#include "report.h"
#include "run.h"

#define MAX_METRICS 512		/* curves: a point is a metric (tlb: 2 x 2 x 112) */

struct metric {
	const char *name, *unit;
	int decimals;
	int n;				/* samples taken */
	int64_t *samples;		/* by repetition: samples[rep] */
	uint8_t *taken;			/* taken[rep]: that rep gave one */
};

struct mode_run {
	int result;			/* worst over the repetitions */
	char reason[96];
	struct metric metrics[MAX_METRICS];
	int nmetrics;
};

static struct mode_run runs[MAX_RUN_MODES];
static struct mode_run *current;

/* ---- the watchdog ---- */

static jmp_buf watchdog_jump;
static volatile uint64_t deadline;		/* ticks; 0: disarmed */
static volatile uint32_t budget_ms;
static unsigned long opt_watchdog_ms;		/* watchdog=: every probe's budget */

void probe_budget(struct probe_ctx *ctx, uint32_t ms)
{
	(void)ctx;
	if (opt_watchdog_ms)
		ms = opt_watchdog_ms;		/* the boot argument wins */
	budget_ms = ms;
	uint64_t ticks = (uint64_t)boot_info.tick_hz * ms / 1000;
	deadline = arch_ticks() + ticks;
	arch_watchdog_arm(ticks);
}

/* The run loop's own bookkeeping (samples: malloc; diagnostics: the
 * console's state) is never cut short: a longjmp out of newlib's malloc
 * would leave its free list broken, and a later allocation could land
 * anywhere.  A deadline that falls inside is taken when the section ends. */
static volatile int held, missed;

static void hold(void) { held++; }

static void release(void)
{
	if (--held == 0 && missed) {
		missed = 0;
		if (deadline && arch_ticks() >= deadline) {
			deadline = 0;
			longjmp(watchdog_jump, 1);
		}
	}
}

/* From the arch's timer interrupt (interrupts off, any MMU state): past
 * the deadline, back to the run loop, which leaves the mode. */
uint64_t run_watchdog_tick(void)
{
	uint64_t now = arch_ticks();

	if (deadline && now >= deadline) {
		if (held) {		/* taken at release(); look again soon */
			missed = 1;
			return boot_info.tick_hz / 10000 ? boot_info.tick_hz / 10000 : 1;
		}
		deadline = 0;
		longjmp(watchdog_jump, 1);
	}
	return deadline ? deadline - now : 0;
}

static int set_watchdog(const char *key, const char *value)
{
	return arg_uint(key, value, 1, 3600000, &opt_watchdog_ms);
}

const struct boot_arg run_args[] = {
	{ "watchdog", "1..3600000 ms: every probe run's budget (default 60 s, or the probe's own)",
	  set_watchdog },
	{ 0 }
};

/* ---- what probes get (include/probe.h) ---- */

uint64_t probe_ticks(void) { return arch_ticks(); }
uint32_t probe_tick_hz(void) { return boot_info.tick_hz; }
uint64_t probe_ram_bytes(void) { return boot_info.ram_bytes; }
const char *probe_arch_name(void) { return arch_name; }

static uint64_t mem_reached;
void probe_set_mem_reached(uint64_t bytes) { mem_reached = bytes; }
uint64_t probe_mem_reached(void) { return mem_reached; }
const char *probe_mode_name(int index)
{
	return index >= 0 && index < config.nmodes ? config.modes[index]->name : "?";
}

int64_t ticks_to_ns100(uint64_t ticks)
{
	return boot_info.tick_hz ? (int64_t)muldiv64(ticks, 100000000000ull, boot_info.tick_hz) : -1;
}

void probe_get_bounds(struct probe_bounds *b)
{
	b->heap_start = (uintptr_t)__heap_start, b->heap_end = (uintptr_t)__heap_end;
	b->stack_bottom = (uintptr_t)__stack_bottom, b->stack_top = (uintptr_t)__stack_top;
	b->stack_high_water = boot_stack_high_water();
}

int probe_fail(struct probe_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->fail_reason, sizeof(ctx->fail_reason), fmt, ap);
	va_end(ap);
	return RESULT_FAIL;
}

int probe_skip(struct probe_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->skip_reason, sizeof(ctx->skip_reason), fmt, ap);
	va_end(ap);
	return RESULT_SKIP;
}

void probe_diag(struct probe_ctx *ctx, const char *probe, const char *fmt, ...)
{
	char text[180];			/* a line is at most 200 (boot/report.c) */
	va_list ap;

	hold();
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	report_diag("%s.%s: %s", probe, ctx->mode_name, text);
	release();
}

static void sample(struct probe_ctx *ctx, const char *metric, int64_t value,
		   int decimals, const char *unit);

void probe_sample(struct probe_ctx *ctx, const char *metric, int64_t value,
		  int decimals, const char *unit)
{
	hold();
	sample(ctx, metric, value, decimals, unit);
	release();
}

static void sample(struct probe_ctx *ctx, const char *metric, int64_t value,
		   int decimals, const char *unit)
{
	struct mode_run *r = current;
	struct metric *m = 0;

	for (int i = 0; i < r->nmetrics; i++)
		if (!strcmp(r->metrics[i].name, metric))
			m = &r->metrics[i];
	if (!m) {
		if (r->nmetrics == MAX_METRICS) {
			report_diag("warning: %s: more than %d metrics, '%s' dropped",
				    ctx->mode_name, MAX_METRICS, metric);
			return;
		}
		m = &r->metrics[r->nmetrics++];
		m->name = strdup(metric);	/* probes build names on the stack */
		m->unit = unit;
		m->decimals = decimals;
		m->samples = calloc(config.reps, sizeof(int64_t));
		m->taken = calloc(config.reps, 1);
		if (!m->samples || !m->taken || !m->name) {
			report_diag("warning: out of heap for samples of '%s'", metric);
			r->nmetrics--;
			return;
		}
	}
	if (ctx->rep >= 0 && ctx->rep < config.reps && !m->taken[ctx->rep]) {
		m->samples[ctx->rep] = value;	/* numbered by the rep that took it */
		m->taken[ctx->rep] = 1;
		m->n++;
	}
}

/* The median of the samples taken (sorted in a copy: samples[] stays by rep). */
static int64_t median(const struct metric *m)
{
	static int64_t sorted[MAX_REPS];
	int n = 0;

	for (int k = 0; k < config.reps; k++)
		if (m->taken[k])
			sorted[n++] = m->samples[k];
	return median_i64(sorted, n);
}

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

static void run_one(const struct probe *p, int rep, int m)
{
	static uint32_t figures_done;		/* a bit per mode */
	const struct mmu_mode *mode = config.modes[m];
	struct probe_ctx ctx = { .mode = mode, .mode_name = mode->name, .rep = rep,
				 .reps = config.reps, .mode_index = m, .nmodes = config.nmodes,
				 .quick = config.quick, .icount_shift = config.icount_shift };
	struct mmu_counters before;
	int result;

	current = &runs[m];
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
			probe_budget(&ctx, 60000);	/* the probe may set its own */
			result = p->run(&ctx);
			deadline = 0;
			arch_watchdog_disarm();
			if (mode->ops && result != RESULT_SKIP)
				sample_counters(&ctx, &before, &mmu_count);
		} else {
			arch_watchdog_disarm();
			mmu_space_switch(0);	/* a probe stopped inside a space: back to the kernel's */
			result = RESULT_TIMEOUT;
			snprintf(ctx.fail_reason, sizeof(ctx.fail_reason),
				 "stopped by the watchdog after its budget of %lu ms",
				 (unsigned long)budget_ms);
		}
		mmu_set_fault_hook(0);
		mmu_leave();
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

/* The probe's samples from all modes of repetition `rep`, for mode m. */
static void rep_done(const struct probe *p, int rep, int m)
{
	const struct mmu_mode *mode = config.modes[m];
	struct probe_ctx ctx = { .mode = mode, .mode_name = mode->name, .rep = rep,
				 .reps = config.reps, .mode_index = m, .nmodes = config.nmodes,
				 .quick = config.quick, .icount_shift = config.icount_shift };

	current = &runs[m];
	report_set_current(p->name, mode->name);
	p->rep_done(&ctx);
	report_set_current(0, 0);
}

static void report_mode(const struct probe *p, int m)
{
	struct mode_run *r = &runs[m];
	const char *mode = config.modes[m]->name;

	report_set_current(p->name, mode);
	if (r->result != RESULT_SKIP) {
		for (int i = 0; i < r->nmetrics; i++) {
			struct metric *mt = &r->metrics[i];
			/* Each repetition's own figure, for tests over them (mmureport). */
			for (int k = 0; config.reps > 1 && k < config.reps; k++)
				if (mt->taken[k])
					report_sample(p->name, mode, mt->name, k + 1, mt->samples[k],
						      mt->decimals, mt->unit);
			report_measurement(p->name, mode, mt->name, median(mt),
					   mt->decimals, mt->unit);
		}
	}
	report_result(p->name, mode, r->result, r->reason);
	report_set_current(0, 0);
}

void run_probes(void)
{
	arch_report_measurements();
	for (int i = 0; i < config.nprobes; i++) {
		const struct probe *p = config.probes[i];

		for (int m = 0; m < config.nmodes; m++) {
			for (int k = 0; k < runs[m].nmetrics; k++)
				free(runs[m].metrics[k].samples), free(runs[m].metrics[k].taken),
				free((char *)runs[m].metrics[k].name);
			memset(&runs[m], 0, sizeof(runs[m]));
		}
		/* A mode's result goes out as soon as its last repetition is done
		 * (with rep_done, once that has run for every mode). */
		for (int rep = 0; rep < config.reps; rep++) {
			int last = rep == config.reps - 1;
			for (int m = 0; m < config.nmodes; m++) {
				run_one(p, rep, m);
				if (last && !p->rep_done)
					report_mode(p, m);
			}
			for (int m = 0; m < config.nmodes && p->rep_done; m++)
				rep_done(p, rep, m);
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
