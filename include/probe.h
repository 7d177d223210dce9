/* A probe: one algorithm in one file under tests/, written against the
 * MMU-mode interface alone.  The run loop calls run() once per repetition
 * in each mode; the probe records samples, the run loop reports medians. */
#ifndef PROBE_H
#define PROBE_H
#include <stdint.h>
#include "mmu.h"
#include "report.h"	/* RESULT_PASS, RESULT_FAIL, RESULT_SKIP */

struct probe_ctx {
	const struct mmu_mode *mode;
	int rep;			/* 0 .. reps-1 */
	int quick;			/* small sizes for CI */
	char skip_reason[96];		/* set, and return RESULT_SKIP */
	char fail_reason[96];		/* set, and return RESULT_FAIL */
};

struct probe {
	const char *name;
	const char *what;		/* one line for `probes=` errors and README */
	int (*run)(struct probe_ctx *ctx);	/* RESULT_PASS/FAIL/SKIP */
};

/* Record one sample of a metric for this repetition.  `decimals` says how
 * many of value's digits are after the point (value 1250, decimals 2 = 12.50). */
void probe_sample(struct probe_ctx *ctx, const char *metric, int64_t value,
		  int decimals, const char *unit);

/* Convert ticks to nanoseconds with two decimals (value*100). */
int64_t ticks_to_ns100(uint64_t ticks);

extern const struct probe *const probe_table[];
extern const int probe_count;

#endif
