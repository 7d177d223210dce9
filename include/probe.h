/* A probe: one algorithm in one file under tests/, written against this
 * header and include/mmu.h alone (the Makefile compiles tests/ with
 * -Iinclude only).  The run loop calls run() once per repetition in each
 * mode; the probe records samples, the run loop reports their medians. */
#ifndef PROBE_H
#define PROBE_H
#include <stddef.h>
#include <stdint.h>
#include "args.h"
#include "mmu.h"

enum { RESULT_PASS, RESULT_FAIL, RESULT_SKIP };

struct probe_ctx {
	const struct mmu_mode *mode;
	const char *mode_name;
	int rep, reps;			/* rep: 0 .. reps-1 */
	int quick;			/* small sizes, for CI */
	int icount_shift;		/* >= 0: QEMU -icount, 1 instruction = 2^shift ns */
	char skip_reason[96];
	char fail_reason[96];
};

struct probe {
	const char *name;
	const char *what;		/* one line for `probes=` errors and the README */
	int (*run)(struct probe_ctx *ctx);	/* RESULT_PASS/FAIL/SKIP */
	const struct boot_arg *args;	/* its boot arguments, 0-terminated; or 0 */
};

/* Record one sample of a metric for this repetition.  `decimals` says how
 * many of value's digits are after the point (value 1250, decimals 2 = 12.50). */
void probe_sample(struct probe_ctx *ctx, const char *metric, int64_t value,
		  int decimals, const char *unit);
/* Set the reason and return RESULT_FAIL / RESULT_SKIP. */
int probe_fail(struct probe_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int probe_skip(struct probe_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The timer: a free-running tick counter, its rate (0 when unknown), and
 * ticks as nanoseconds with two decimals (value*100; -1 when unknown). */
uint64_t probe_ticks(void);
uint32_t probe_tick_hz(void);
int64_t ticks_to_ns100(uint64_t ticks);

/* Probe memory, mapped 1:1 in every mode's default mapping: `len` bytes
 * aligned to `align` at or above `min_addr`; 0 after printing why when RAM
 * is too small.  Reset before a probe's first allocation. */
uintptr_t probe_mem_alloc(size_t len, size_t align, uintptr_t min_addr, const char *what);
void probe_mem_reset(void);
uint64_t probe_ram_bytes(void);

/* Where the probes run. */
const char *probe_arch_name(void);
struct probe_bounds {
	uintptr_t heap_start, heap_end, stack_bottom, stack_top;
	uintptr_t stack_high_water;	/* deepest stack use so far */
};
void probe_get_bounds(struct probe_bounds *b);

extern const struct probe *const probe_table[];
extern const int probe_count;

#endif
