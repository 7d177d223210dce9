/*
 * The two loops of arch/ppc405's and arch/e500's walk.S (the tlb probes'
 * walk, mmu.h struct mmu_tlb_info), the same on both: one load per 4K page,
 * from registers only.  Each arch's walk keeps around them how it reads
 * the miss counter without missing (the 405: data translation off; the
 * e500: data in address space 1) and where its code lies.
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

#endif
