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

enum { RESULT_PASS, RESULT_FAIL, RESULT_SKIP, RESULT_TIMEOUT };

#define PROBE_MAX_MODES	8		/* modes in one run (config.h checks) */
#define PROBE_TABLE_MAX	32		/* probes in probe_table (it asserts so) */

struct probe_ctx {
	const struct mmu_mode *mode;
	const char *mode_name;
	int rep, reps;			/* rep: 0 .. reps-1 */
	int mode_index, nmodes;		/* this mode among the run's: 0 .. nmodes-1 */
	int quick;			/* small sizes, for CI */
	int icount_shift;		/* >= 0: QEMU -icount, 1 instruction = 2^shift ns */
	char skip_reason[96];
	char fail_reason[96];
};

struct probe {
	const char *name;
	const char *what;		/* one line for `probes=` errors and doc/probes.md */
	int (*run)(struct probe_ctx *ctx);	/* RESULT_PASS/FAIL/SKIP */
	/* Or 0.  Once every mode of a repetition has run, called for each mode
	 * in turn (translation off): samples from what all modes measured. */
	void (*rep_done)(struct probe_ctx *ctx);
	const struct boot_arg *args;	/* its boot arguments, 0-terminated; or 0 */
};

/* The watchdog: a probe's run is stopped by a timer interrupt once it has
 * run `ms` milliseconds (default 60 s, or the watchdog= boot argument) and
 * reported "not ok ... # TIMEOUT"; a probe that knows its sizes sets its
 * own budget, from now. */
void probe_budget(struct probe_ctx *ctx, uint32_t ms);

/* Record one sample of a metric for this repetition.  `decimals` says how
 * many of value's digits are after the point (value 1250, decimals 2 = 12.50). */
void probe_sample(struct probe_ctx *ctx, const char *metric, int64_t value,
		  int decimals, const char *unit);
/* Set the reason and return RESULT_FAIL / RESULT_SKIP. */
int probe_fail(struct probe_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int probe_skip(struct probe_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A diagnostic line "# <probe>.<mode>: <text>" (why a figure is absent). */
void probe_diag(struct probe_ctx *ctx, const char *probe, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The timer: a free-running tick counter, its rate (0 when unknown), and
 * ticks as nanoseconds with two decimals (value*100; -1 when unknown). */
uint64_t probe_ticks(void);
uint32_t probe_tick_hz(void);
int64_t ticks_to_ns100(uint64_t ticks);
/* floor(a * b / d) without overflow (UINT64_MAX if it does not fit):
 * every tick-to-time conversion, whatever the interval's length. */
uint64_t muldiv64(uint64_t a, uint64_t b, uint32_t d);

/* Timed headlines: run(arg, n) does n iterations of what is measured and
 * returns the ticks they took, reading the timer itself so that set-up
 * stays outside.  probe_measure() warms up, doubles n until one run lasts
 * probe_min_ticks() (5 ms where time is real, else 200 us; 50 us with
 * quick; at least 1000 timer reads), subtracts one timer read, and gives
 * the median of 5 runs per iteration and their spread ((max - min) /
 * median).  -1 when the timer never moved.  probe_measure_point() is the
 * same with 200 us runs: a curve's points, hundreds a sweep, whose noise
 * the sweeps' median over repetitions takes. */
struct probe_time {
	uint32_t iterations;
	uint64_t ticks1000;		/* ticks per iteration, x1000 */
	int64_t ns100, cycles100;	/* per iteration, x100; -1 unknown */
	int64_t spread100;		/* percent, x100 */
};
int probe_measure(uint64_t (*run)(void *arg, uint32_t n), void *arg, struct probe_time *t);
int probe_measure_point(uint64_t (*run)(void *arg, uint32_t n), void *arg, struct probe_time *t);
uint64_t probe_min_ticks(void);
uint64_t probe_point_ticks(void);	/* a point's run: 200 us (quick: 50 us) */
/* <name>_ns, <name>_cycles (where the core clock is known), <name>_spread. */
void probe_sample_time(struct probe_ctx *ctx, const char *name, const struct probe_time *t);

/* A chain of dependent adds timed (the core clock's measure, LMbench's
 * mhz method), ns (x100) as core cycles (x100; -1 while the core clock is
 * unknown), and where the figures come from ("KVM", "QEMU TCG -icount
 * ...", "bare hardware ..."). */
uint64_t probe_add_chain_ticks(uint32_t iters, int wide);	/* 16 or 32 adds per iteration */
int64_t ns100_to_cycles100(int64_t ns100);
const char *probe_platform(void);
int probe_time_is_real(void);	/* time on real caches: not -icount, not TCG's host time */

/* The data caches as the CPU reports them (CPUID; the 405's PVR), to size
 * sweeps and to hold guesses against: level 1..3 in bytes, 0 where there
 * is none or nothing says; the line size. */
uint32_t probe_cache_bytes(int level);
uint32_t probe_cache_ways(int level);	/* its ways, 0 where nothing says */
uint32_t probe_cache_line(void);
/* The data TLB's entries the CPU documents, to hold measured levels
 * against: level 1 (the L1 dTLB) or 2 (the second-level TLB) for pages of
 * `page` bytes; 0 where nothing says.  The sandbox's from CPUID; on the
 * boards mmu_tlb()'s entries for level 1 and 4 KiB pages, nothing else. */
uint32_t probe_tlb_entries(int level, uint32_t page);

/* order[0..n) a random permutation of 0..n-1 (Fisher-Yates), drawn from
 * the xorshift32 generator in *state: the same order from the same state,
 * every run, every machine. */
void probe_shuffle(uint32_t *order, uint32_t n, uint32_t *state);

/* Where lat_mem's curve reached memory in this run: the smallest working
 * set of the plateau it claimed as memory (0: none claimed), for probes
 * that need a size beyond the caches (bw_mem). */
void probe_set_mem_reached(uint64_t bytes);
uint64_t probe_mem_reached(void);

/* Probe memory, mapped 1:1 in every mode's default mapping: `len` bytes
 * aligned to `align` at or above `min_addr`; 0 after printing why when RAM
 * is too small.  Reset before a probe's first allocation. */
uintptr_t probe_mem_alloc(size_t len, size_t align, uintptr_t min_addr, const char *what);
/* How many bytes probe_mem_alloc(len, align, min_addr) could give now (0: none). */
size_t probe_mem_avail(size_t align, uintptr_t min_addr);
void probe_mem_reset(void);
uint64_t probe_ram_bytes(void);

/* Where the probes run; the name of the run's mode `index` (0 .. nmodes-1). */
const char *probe_arch_name(void);
const char *probe_mode_name(int index);
struct probe_bounds {
	uintptr_t heap_start, heap_end, stack_bottom, stack_top;
	uintptr_t stack_high_water;	/* deepest stack use so far */
};
void probe_get_bounds(struct probe_bounds *b);

/* What an OS under the probes costs, by LMbench's methods, where there is
 * one (the sandbox: Linux); probe_os() is 0 on bare metal, where nothing
 * of this exists.  Each run(arg, n) is a probe_measure() run and returns
 * ticks; open functions return 0 with `why` set when they cannot. */
struct probe_ring_counts {
	uint64_t rounds;		/* rounds ring_run() completed */
	uint64_t hops;			/* the token's count: each process adds one */
	uint64_t switches;		/* context switches of all the ring's processes */
	unsigned children;		/* children killed and reaped */
};
struct probe_os {
	const char *name;		/* "Linux", for diagnostics */
	/* lat_ctx (the ctx probe; pipe's lat_pipe is a ring of 2 with no
	 * bytes): `procs` processes (the caller one of them) in a ring of
	 * pipes, a token passed around, each process summing its own `bytes`
	 * (every word) before passing it on.  ring_run: n rounds; ring_alone:
	 * n rounds' pipe writes, reads and sums in one process, no switch
	 * (LMbench's overhead).  ring_close kills and reaps the others, says
	 * what was counted, and returns -1 if the ring broke or a child did
	 * not end; the OS does the same at the end of a probe's run, whatever
	 * ended it (the watchdog). */
	void *(*ring_open)(unsigned procs, unsigned bytes, char *why, size_t len);
	uint64_t (*ring_run)(void *ring, uint32_t n);
	uint64_t (*ring_alone)(void *ring, uint32_t n);
	int (*ring_close)(void *ring, struct probe_ring_counts *c);
	/* Timed as probe_measure(), per event, the baseline subtracted (the
	 * spread is the gross figure's); 0, or with `why` set -1 (an error: a
	 * count wrong, no file) or 1 (no time left after the baseline).
	 * lat_pagefault: a file in the page cache, mapped read-only and shared,
	 * its `pages` read once each in a shuffled order, unmapped and mapped
	 * again; per page, less the unmap and map alone (the kernel's
	 * fault-around maps several pages per fault, as for LMbench).
	 * lat_sig catch: a signal sent to ourselves and handled, less the
	 * sending alone (kill(pid, 0)).  lat_sig prot: a write to a read-only
	 * page caught as SIGSEGV and retried, never unprotected, less `catch`. */
	int (*pagefault)(uint32_t pages, struct probe_time *t, char *why, size_t len);
	int (*sig_catch)(struct probe_time *t, char *why, size_t len);
	int (*sig_prot)(const struct probe_time *catch, struct probe_time *t, char *why, size_t len);
	/* The process probes' figures by LMbench's methods (lat_syscall null,
	 * lat_proc fork and exec, lat_mmap), each timed as probe_measure(),
	 * per operation; 0, or -1 with `why` set.  null_call: a getppid()
	 * round trip; with `pages` > 0 each call follows a touch of `pages` 4K
	 * pages of a private working set, the touches alone subtracted (1 with
	 * `why` where nothing is left).  fork_proc: a parent with `bytes` of
	 * private data, present; fork, the child writes `writes` of its pages
	 * and exits, wait; *child_faults: the minor faults of one child (the
	 * OS's count).  exec_proc: fork, execve of a tiny static program,
	 * wait; with `shell`, the execve is of a shell told to run it
	 * (LMbench's sh proc); *ran: of *execs children timed, those whose
	 * exit status said the program ran.  mmap_file: a `bytes` file in the page cache mapped
	 * shared read-write, every page written once, unmapped; *faults: one
	 * mapping's minor faults. */
	int (*null_call)(uint32_t pages, struct probe_time *t, char *why, size_t len);
	int (*fork_proc)(uint32_t bytes, uint32_t writes, struct probe_time *t,
			 uint64_t *child_faults, char *why, size_t len);
	int (*exec_proc)(int shell, struct probe_time *t, uint64_t *execs, uint64_t *ran,
			 char *why, size_t len);
	int (*mmap_file)(uint32_t bytes, struct probe_time *t, uint64_t *faults, char *why, size_t len);
};
const struct probe_os *probe_os(void);

/* For the process probes (tests/proc_common.c): <name>_us (x100) and
 * <name>_spread from a probe_measure() time, absent with a diagnostic
 * where the timer's rate is unknown; <prefix>_page_faults, _prot_faults,
 * _dtlb_misses, _itlb_misses, _kernel_dtlb_misses, _kernel_itlb_misses
 * between two readings of mmu_count, each only where this mode counts it. */
void probe_sample_us(struct probe_ctx *ctx, const char *probe, const char *name,
		     const struct probe_time *t);
void probe_sample_op_counts(struct probe_ctx *ctx, const char *prefix,
			    const struct mmu_counters *a, const struct mmu_counters *b);

/* Under an OS (probe_os()), for ctx, pipe, signal and pagefault: ring_close
 * with lat_ctx's checks (the token N hops a round, N - 1 children reaped),
 * failing the probe with `name` where they do not hold, else saying the
 * rounds, hops and switches; a figure of the OS's (r: its function's
 * result) sampled as <name>_ns, failing the probe on an error, a
 * diagnostic where no time was left.  RESULT_PASS or RESULT_FAIL. */
int probe_os_ring_close(struct probe_ctx *ctx, const char *probe, const char *name,
			const struct probe_os *os, void *ring, unsigned n);
int probe_os_figure(struct probe_ctx *ctx, const char *probe, int r, const char *name,
		    const struct probe_time *t, const char *why);

extern const struct probe *const probe_table[];
extern const int probe_count;

#endif
