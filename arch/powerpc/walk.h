/*
 * The walk of arch/ppc405's and arch/e500's walk.S (the tlb probes' walk,
 * mmu.h struct mmu_tlb_info), the same on both: one load per 4K page, from
 * registers only, the DTLB miss counter read just before and just after
 * the counted pass.  Each arch's walk keeps how it reads that counter
 * without missing (the MSR it gives in r5: the 405's data translation off,
 * the e500's data in address space 1) and where its code lies.
 */
#ifndef POWERPC_WALK_H
#define POWERPC_WALK_H

/* r5 warm passes over r4 pages from r3 (r9, r0 and CTR used; r5 = 0 after). */
#define WALK_WARM_PASSES							\
	cmpwi	r5, 0;			/* warm passes? */			\
	beq	2f;								\
1:	mtctr	r4;			/* a warm pass: pages ... */		\
	mr	r9, r3;			/* ... from base */			\
3:	lwz	r0, 0(r9);		/* one load ... */			\
	addi	r9, r9, 4096;		/* ... per 4K page */			\
	bdnz	3b;								\
	addic.	r5, r5, -1;		/* another warm pass? */		\
	bne	1b;								\
2:

/* The counted pass over r4 pages from r3: r10 = the timebase before, r11
 * after; loop .. loop_end are its three instructions (the tlb probes
 * count them). */
#define WALK_TIMED_PASS(loop, loop_end)						\
	mtctr	r4;			/* pages */				\
	mftb	r10;			/* start */				\
loop:									\
1:	lwz	r0, 0(r3);		/* one load ... */			\
	addi	r3, r3, 4096;		/* ... per 4K page */			\
	bdnz	1b;								\
loop_end:								\
	mftb	r11			/* end */

/* The counted pass and the return: r3 = the misses in it, *r6 = its
 * ticks.  r5 = the MSR to read the counter under (it must not miss: the
 * walk may have evicted its page), r7 = the MSR to walk with.  `pass` is
 * the function's start, aligned to 256 bytes so that all of it lies on
 * one page. */
#define WALK_COUNTED_PASS(pass, loop, loop_end)					\
	lis	r8, mmu_count@ha;	/* the counters */			\
	addi	r8, r8, mmu_count@l;						\
	mtmsr	r5;			/* the counter's MSR ... */		\
	isync;									\
	lwz	r9, MMU_STATE_BYTES + MMU_DTLB_OFF(r8);	/* ... dtlb_misses before */ \
	mtmsr	r7;			/* the walk's */			\
	isync;									\
	WALK_TIMED_PASS(loop, loop_end);					\
	mtmsr	r5;			/* the counter's again ... */		\
	isync;									\
	lwz	r12, MMU_STATE_BYTES + MMU_DTLB_OFF(r8);	/* ... dtlb_misses after */ \
	mtmsr	r7;								\
	isync;									\
	subf	r11, r10, r11;		/* ticks of the loop */			\
	stw	r11, 0(r6);		/* (may miss: after the count) */	\
	subf	r3, r9, r12;		/* misses in the pass */		\
	blr;									\
	.if	. - pass > 256;							\
	.error	"the walk no longer fits its 256-byte alignment";		\
	.endif

#endif
