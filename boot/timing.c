/* Timing for probes (include/probe.h): where the figures come from, the
 * core clock measured at boot, and probe_measure(), which every timed
 * headline goes through: warm up, lengthen until a run is long enough for
 * the timer, subtract the timer's own cost, take the median of several
 * runs and their spread. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sort.h"
#include "arch.h"
#include "config.h"
#include "probe.h"
#include "report.h"
#include "timing.h"

#define RUNS		5		/* runs per measurement: median and spread */
static uint64_t read_cost;		/* ticks of one back-to-back timer read */

/* A run's least length: per second, 1 / its seconds. */
static uint64_t min_ticks(uint32_t per_s)
{
	uint64_t t = boot_info.tick_hz / (config.quick ? 20000 : per_s);	/* quick: 50 us */
	return t > 1000 * read_cost ? t : 1000 * read_cost;
}

/* A headline's run where time is real: 5 ms, many scheduler ticks and
 * interrupts in each, so they average out rather than land in one run (an
 * exec is 0.3 ms: at 200 us a run was one exec).  Counted instructions:
 * 200 us covers the timer's step. */
uint64_t probe_min_ticks(void)
{
	return min_ticks(boot_info.timing_kind == TIMING_REAL ? 200 : 5000);
}

static int measure(uint64_t (*run)(void *arg, uint32_t n), void *arg, struct probe_time *r,
		   uint64_t min);

int probe_measure(uint64_t (*run)(void *arg, uint32_t n), void *arg, struct probe_time *r)
{
	return measure(run, arg, r, probe_min_ticks());
}

uint64_t probe_point_ticks(void)
{
	return min_ticks(5000);
}

int probe_measure_point(uint64_t (*run)(void *arg, uint32_t n), void *arg, struct probe_time *r)
{
	return measure(run, arg, r, probe_point_ticks());
}

/* The run loop's core: `run(arg, n)` times n iterations itself. */
static int measure(uint64_t (*run)(void *arg, uint32_t n), void *arg, struct probe_time *r,
		   uint64_t min)
{
	uint64_t per[RUNS];
	uint32_t n = 1;

	run(arg, 1);					/* warm up */
	while (run(arg, n) < min) {
		if (n >= 0x40000000u)
			return -1;			/* the timer does not move */
		n *= 2;
	}
	for (int i = 0; i < RUNS; i++) {
		uint64_t t = run(arg, n);
		t = t > read_cost ? t - read_cost : 0;
		per[i] = t * 1000 / n;			/* ticks per iteration, x1000 */
	}
	sort_u64(per, RUNS);
	r->iterations = n;
	r->ticks1000 = per[RUNS / 2];
	r->ns100 = boot_info.tick_hz ? (int64_t)muldiv64(per[RUNS / 2], 100000000ull, boot_info.tick_hz) : -1;
	r->cycles100 = ns100_to_cycles100(r->ns100);
	r->spread100 = per[RUNS / 2] ? (int64_t)((per[RUNS - 1] - per[0]) * 10000 / per[RUNS / 2]) : 0;
	return 0;
}

/* floor(a * b / d) for any a and b: the product in four 32-bit limbs,
 * divided limb by limb (each partial remainder < d < 2^32, so every step
 * fits 64 bits).  UINT64_MAX where the quotient does not fit, 0 for d 0.
 * Interval conversions go through here: ticks x 1e11 wraps 64 bits past
 * 1.8e8 ticks (71 ms at 2.6 GHz). */
uint64_t muldiv64(uint64_t a, uint64_t b, uint32_t d)
{
	uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
	uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
	uint32_t limb[4] = { (uint32_t)ll, (uint32_t)mid, 0, 0 };
	uint64_t top = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	uint64_t q[4], rem = 0;

	limb[2] = (uint32_t)top;
	limb[3] = (uint32_t)(top >> 32);
	if (!d)
		return 0;
	for (int i = 3; i >= 0; i--) {
		uint64_t cur = rem << 32 | limb[i];
		q[i] = cur / d;
		rem = cur % d;
	}
	return q[3] || q[2] ? UINT64_MAX : q[1] << 32 | q[0];
}

int64_t ns100_to_cycles100(int64_t ns100)
{
	return ns100 >= 0 && boot_info.core_hz ? ns100 * (int64_t)(boot_info.core_hz / 1000) / 1000000
					       : -1;
}

uint32_t probe_cache_bytes(int level) { return arch_cache_bytes(level); }
uint32_t probe_cache_ways(int level) { return arch_cache_ways(level); }
uint32_t probe_cache_line(void) { return arch_cache_line(); }
uint64_t probe_add_chain_ticks(uint32_t iters, int wide) { return arch_add_chain_ticks(iters, wide); }
const char *probe_platform(void) { return boot_info.platform; }
int probe_time_is_real(void) { return boot_info.timing_kind == TIMING_REAL; }

/* name_ns, name_cycles and name_spread (percent) of one headline time. */
void probe_sample_time(struct probe_ctx *ctx, const char *name, const struct probe_time *r)
{
	char m[48];

	snprintf(m, sizeof(m), "%s_ns", name);
	probe_sample(ctx, m, r->ns100, 2, "ns");
	if (r->cycles100 >= 0) {
		snprintf(m, sizeof(m), "%s_cycles", name);
		probe_sample(ctx, m, r->cycles100, 2, "cycles");
	}
	snprintf(m, sizeof(m), "%s_spread", name);
	probe_sample(ctx, m, r->spread100, 2, "percent");
}

/* The core clock as LMbench's mhz measures it: dependent one-cycle adds,
 * 32 against 16 per iteration so that the loop's own cost cancels; the
 * median of RUNS.  Under QEMU -icount an add is an instruction: 2^-shift GHz. */
/* The core clock for every _cycles figure: as the cpu probe, each loop's
 * minimum over interleaved trials (a disturbance only lengthens a loop),
 * then the difference of the minimums: 16 cycles an iteration. */
#define CORE_TRIALS	15
static uint32_t measure_core_hz(void)
{
	uint64_t min = probe_min_ticks(), narrow = ~0ull, wide = ~0ull;
	uint32_t n = 256;

	if (!boot_info.tick_hz)
		return 0;
	while (arch_add_chain_ticks(n, 0) < min && n < 0x10000000u)
		n *= 2;
	for (int i = 0; i < CORE_TRIALS; i++) {
		uint64_t a = arch_add_chain_ticks(n, 0), b = arch_add_chain_ticks(n, 1);
		narrow = a < narrow ? a : narrow;
		wide = b < wide ? b : wide;
	}
	return wide > narrow ? (uint32_t)muldiv64((uint64_t)n * 16, boot_info.tick_hz, wide - narrow)
			     : 0;
}

void timing_init(void)
{
	static char where[120];
	const char *cpu = arch_platform();
	uint64_t best = ~0ull;

	for (int i = 0; i < 64; i++) {
		uint64_t t0 = arch_ticks(), t1 = arch_ticks();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	read_cost = best;
	boot_info.core_hz = measure_core_hz();
	if (config.icount_shift >= 0)
		snprintf(where, sizeof(where), "QEMU TCG -icount shift=%d (emulated: time counts "
			 "instructions; no caches, no TLB timing)", config.icount_shift);
	else if (cpu && !strncmp(cpu, "QEMU", 4))
		snprintf(where, sizeof(where), "%s (emulated: no caches, no cycle timing)", cpu);
	else if (cpu)
		snprintf(where, sizeof(where), "%s", cpu);
	else if (config.qemu)
		snprintf(where, sizeof(where), "QEMU TCG (qemu=tcg; emulated: no caches, no cycle timing)");
	else
		snprintf(where, sizeof(where), "bare hardware (no qemu= boot argument)");
	boot_info.platform = where;
	/* What a time figure is: counted instructions, the host's time under
	 * an emulator (no figure), or time on real caches and TLBs. */
	boot_info.timing_kind = config.icount_shift >= 0 ? TIMING_INSTRUCTIONS :
				config.qemu == 1 || (cpu && !strncmp(cpu, "QEMU", 4)) ? TIMING_HOST :
				TIMING_REAL;
	boot_info.timing = (const char *[]){
		"instructions (QEMU -icount: deterministic, so one repetition tells all; "
		"times count instructions)",
		"host (QEMU TCG without -icount: times are the host's, no figure; counts are exact)",
		"real (time on this CPU's caches and TLBs)" }[boot_info.timing_kind];
}
