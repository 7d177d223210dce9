/* The TLB miss handlers' way out, the same on the 405 and the e500: with
 * r11 at the MMU counters' base, count the TLB write, then put CR (kept
 * in r12) and r9, r12, r11, r10 back from the SPRGs the entry saved them
 * in; the caller's rfi follows.  Entered only at its top. */
#ifndef POWERPC_MISS_EXIT_H
#define POWERPC_MISS_EXIT_H

#define MISS_EXIT(sprg0, sprg1, sprg2, sprg4)				\
	lwz	r10, MMU_WRITES_OFF(r11);	/* count the TLB write */ \
	addi	r10, r10, 1;						\
	stw	r10, MMU_WRITES_OFF(r11);				\
	mtcrf	0xff, r12;	/* CR back */				\
	mfspr	r9, sprg4;	/* r9 back */				\
	mfspr	r12, sprg2;	/* r12 back */				\
	mfspr	r11, sprg1;	/* r11 back */				\
	mfspr	r10, sprg0	/* r10 back */

#endif
