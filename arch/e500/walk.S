/*
 * e500_walk_pass(base, pages, warm, &ticks): the walk the TLB description
 * offers (mmu.h, struct mmu_tlb_info) for the tlb probes.  One load per
 * 4K page from base, `pages` pages (at least 1), from registers only:
 * `warm` uncounted passes, then the counted one, with no other code or
 * data in between.  The DTLB miss counter is read just before and just
 * after the loop through address space 1 (MSR[DS] = 1: RAM 1:1 in TLB1,
 * as the handlers read it), so neither read can miss: in mode normal its
 * page is a TLB0 page the walk may have evicted.  The code lies in
 * .vectors, under the vectors' TLB1 pin (mmu.c): its instruction fetches
 * take no TLB0 entry, which then holds the walked pages alone (in mode
 * normal a kernel code page would share a set with four of them and make
 * that set miss: measured, 4 misses at 512 pages).  Returns the misses;
 * *ticks = timebase ticks of the loop.
 */
#include "e500.h"
#include "../powerpc/walk.h"

	.section .vectors, "ax"		/* pinned: see above */
	.balign	256			/* all of it on one page (< 256 bytes) */
	.globl	e500_walk_pass, e500_walk_loop, e500_walk_loop_end
e500_walk_pass:
	WALK_WARM_PASSES
	mfmsr	r7			/* the MSR as it is, */
	ori	r5, r7, MSR_DS		/* and with data in address space 1 */
	WALK_COUNTED_PASS(e500_walk_pass, e500_walk_loop, e500_walk_loop_end)
