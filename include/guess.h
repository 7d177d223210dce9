/* Cache levels from a latency curve (working-set size against load
 * latency): lib/guess.c, built into the image (the lat_mem probe) and
 * into the host tool tools/mmuguess.c, so both guess alike.  Integers
 * only: the 405 has no FPU.  The method is described in lib/guess.c. */
#ifndef GUESS_H
#define GUESS_H
#include <stdint.h>

#define GUESS_MAX_POINTS	256
#define GUESS_LEVELS		3	/* L1 .. L3 */

struct guess_curve {
	int n;
	const uint64_t *bytes;		/* working-set sizes, ascending */
	const int64_t *ns100;		/* latency per load, ns x 100 */
	uint64_t cpu_top;		/* the largest cache the CPU reports, 0: none says */
};

struct guess_level {
	uint64_t bytes;			/* a cache's size (0 for memory) */
	int64_t ns100;			/* its plateau's median latency */
	int lo, hi;			/* the plateau's points (indices) */
};

struct guess {
	int levels;			/* caches named, 0..GUESS_LEVELS */
	struct guess_level level[GUESS_LEVELS];
	int mem;			/* 1: the curve ends in a plateau past the caches */
	struct guess_level top;		/* that plateau: main memory */
	int tlb_steps;			/* steps set aside as TLB (or beyond `limit`) */
	uint64_t tlb_at[4];		/* where (the first four) */
	char note[200];			/* what is not claimed, and why; "" when all is */
};

/* Guess from `c`.  `tlb_reach` (ntlb of them, or 0): TLB reaches measured
 * apart; a step within a factor 1.5 of one is set aside as the TLB's.
 * `limit` (or 0): steps at or above it are set aside (from there the
 * caller's TLB could step).  Returns g->levels. */
int guess_caches(const struct guess_curve *c, const uint64_t *tlb_reach, int ntlb,
		 uint64_t limit, struct guess *g);

/* The lat_mem probe's guess (and mmuguess's for a log): one reference,
 * the pointwise fastest of the TLB-local curves `local[0..n-1]` that swept
 * the same sizes as local[0] (another job only ever adds time), into
 * `ref` (local[0].n points), guessed with local[0].cpu_top.  The modes
 * taken: a bit each in *used.  Returns g->levels. */
int guess_local(const struct guess_curve *local, int n, int64_t *ref, uint32_t *used,
		struct guess *g);

/* The largest size k * 2^n, k in {1, 1.25, 1.5, 1.75}, at or below
 * `bytes` (the sweep's own grid). */
uint64_t guess_grid_floor(uint64_t bytes);

#endif
