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
	mr	r5, r6			/* &ticks */
	mfmsr	r6			/* the MSR we run with */
	rlwinm	r7, r6, 0, 28, 26	/* the same with DR (0x10) cleared */
	lis	r8, mmu_count@ha	/* the counters (vectors.S) */
	addi	r8, r8, mmu_count@l
	mtmsr	r7			/* data translation off ... */
	isync
	lwz	r9, MMU_STATE_BYTES + MMU_DTLB_OFF(r8)	/* ... dtlb_misses before */
	mtmsr	r6			/* translation as it was */
	isync
	WALK_TIMED_PASS(ppc405_walk_loop, ppc405_walk_loop_end)
	mtmsr	r7			/* data translation off ... */
	isync
	lwz	r12, MMU_STATE_BYTES + MMU_DTLB_OFF(r8)	/* ... dtlb_misses after */
	mtmsr	r6
	isync
	subf	r11, r10, r11		/* ticks of the loop */
	stw	r11, 0(r5)		/* (may miss: after the count) */
	subf	r3, r9, r12		/* misses in the pass */
	blr
ppc405_walk_end:
	.if	ppc405_walk_end - ppc405_walk_pass > 256
	.error	"the walk no longer fits its 256-byte alignment"
	.endif
