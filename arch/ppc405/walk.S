/*
 * ppc405_walk_pass(base, pages, warm, &ticks): the walk the TLB description
 * offers (mmu.h, struct mmu_tlb_info) for the tlb probes.  One load
 * per 4K page from base, `pages` pages (at least 1), from registers only:
 * `warm` uncounted passes, then the counted one, with no other code or
 * data in between (so the TLB holds only the walk and this code page).
 * The code is aligned so that it lies on one page.
 * The DTLB miss counter is read with data translation off just before and
 * just after the loop, so neither read can miss itself and nothing but the
 * loop's loads falls in between.  Returns the misses; *ticks = timebase
 * ticks of the loop.
 */
#include "ppc405.h"
#include "../powerpc/walk.h"

	.text
	.balign	256			/* all of it on one page (< 256 bytes) */
	.globl	ppc405_walk_pass, ppc405_walk_loop, ppc405_walk_loop_end
ppc405_walk_pass:
	WALK_WARM_PASSES
	mfmsr	r7			/* the MSR we run with, */
	rlwinm	r5, r7, 0, 28, 26	/* and with DR (0x10) cleared */
	WALK_COUNTED_PASS(ppc405_walk_pass, ppc405_walk_loop, ppc405_walk_loop_end)
