/* Cache levels from a latency curve (working-set size against load
 * latency): lib/guess.c, built into the image (the lat_mem probe) and
 * into the host tools (mmuguess, mmureport), so all guess alike.
 * Integers only: the 405 has no FPU.  The method is described in
 * lib/guess.c. */
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
	/* What the CPU documents, to judge each level against (all 0: nothing). */
	uint64_t cpu_bytes[GUESS_LEVELS];	/* L1d, L2, L3 sizes; 0 unknown */
	uint32_t exclusive;		/* bit i: level i+1 holds victims of those below */
	int shared_top;			/* others run beside us (a guest, an OS): L3 is
				   theirs too, a neighbour may hold a way of L1/L2 */
	int tlb;			/* a TLB's curve (one load a page): levels not 2x apart */
	uint32_t cpu_ways[GUESS_LEVELS];	/* each level's ways, 0 unknown */
};

enum guess_verdict {
	GUESS_UNDOCUMENTED,		/* the CPU gives no size: named by the interval's lower end */
	GUESS_CONSISTENT,		/* the CPU's size lies in the interval: named by it */
	GUESS_DIFFERS,			/* it does not: named by the lower end */
	GUESS_SHARED,			/* a level others use too: an effective capacity (lower end) */
};

struct guess_level {
	uint64_t bytes;			/* the size named (see enum guess_verdict; 0 for memory) */
	uint64_t lo_bytes, hi_bytes;	/* the step: last point on the plateau, first past the rise */
	uint64_t at_bytes;		/* where half the rise is, interpolated (a TLB's reach) */
	int open;			/* 1: still rising at the sweep's end (hi: that end) */
	int verdict;			/* enum guess_verdict */
	uint64_t cpu_bytes;		/* what the CPU says (0: nothing) */
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

/* Pointwise median of `n` curves of the same `npoints` points, curve k's
 * point i at v[k * stride + i], into out[]: the reference of lat_mem and
 * mmuguess (a disturbance moves one repetition's point; the median keeps
 * the typical one, where the fastest would keep the luckiest placement). */
void guess_median_curve(const int64_t *v, int n, int stride, int npoints, int64_t *out);

/* One line on level `i` of `g` (0-based) into buf: its interval and the
 * verdict, e.g. "L2 320-896 KiB: consistent with the CPU's 512 KiB". */
void guess_describe(const struct guess *g, int i, char *buf, int size);

/* The verdict's word: "undocumented", "consistent", "differs", "shared". */
const char *guess_verdict_name(int verdict);

#endif
