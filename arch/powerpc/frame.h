/*
 * The exception frame's common part, for the common path of arch/ppc405's
 * and arch/e500's vectors.S: both build a frame below the interrupted stack
 * (or the emergency or kernel stack), save the same registers at the same
 * F_* offsets (F_GPR .. F_SRR1 below, the rest in each arch's header; each
 * exceptions.c asserts them against its struct), call C and restore.  Each arch keeps what differs around
 * these: the e500 switches data to address space 1 first (its handlers'
 * accesses must never miss) and saves CSRR0/1 and MCSRR0/1/MCSR, the 405
 * runs all of it in real mode and saves SRR2/3.
 *
 * The stubs' convention, the same on both: SPRG0/1 = the interrupted r10/r11,
 * SPRG6 = the vector number, SPRG7 = CR; r10 = the frame from FRAME_CHOOSE
 * on.  (SPR numbers: SPRG0..7 are 272..279 on the 405 and on Book-E.)
 * Included by e500.h and ppc405.h; the macros are for assembly only.
 */
#ifndef POWERPC_FRAME_H
#define POWERPC_FRAME_H

/* The frame's first words, the same on both (struct e500_frame, struct
 * ppc405_frame: each arch's header goes on from F_SRR1 + 4 with its own). */
#define F_GPR	0		/* r0..r31 */
#define F_CR	128
#define F_LR	132
#define F_CTR	136
#define F_XER	140
#define F_SRR0	144		/* the interrupted PC ... */
#define F_SRR1	148		/* ... and MSR (non-critical interrupts) */

#define FRAME_SPRG_R10	272	/* SPRG0: the stub's free r10 */
#define FRAME_SPRG_R11	273	/* SPRG1: its free r11 */
#define FRAME_SPRG_VEC	278	/* SPRG6: the vector number */
#define FRAME_SPRG_CR	279	/* SPRG7: CR */

/*
 * r10 = where the frame goes, 16-byte aligned.  cr0[eq] says where the
 * interrupt came from: set, supervisor state (r1 decides); clear, problem
 * state (the caller's "andi. rN, SRR1, MSR_PR": the user's r1 is not to be
 * trusted, user_ksp is user_enter's kernel stack pointer, 0 outside it).
 * emergency_top: the top of the emergency stack, for an r1 outside ours.
 */
#define FRAME_CHOOSE(emergency_top, user_ksp)					\
	bne-	3f;			/* from problem state: user_ksp */	\
	lis	r10, (__stack_bottom + 1024)@ha;	/* is r1 inside our stack? */	\
	addi	r10, r10, (__stack_bottom + 1024)@l;				\
	cmplw	r1, r10;		/* r1 against the stack's low end */	\
	blt-	1f;			/* below it (or overflowed): emergency */ \
	lis	r10, __stack_top@ha;	/* the stack's high end */		\
	addi	r10, r10, __stack_top@l;					\
	cmplw	r1, r10;		/* r1 against it */			\
	bgt-	1f;			/* above it: emergency stack */		\
	addi	r10, r1, -(256 + F_SIZE);	/* a frame well below r1 */	\
	b	2f;			/* frame chosen */			\
1:	lis	r10, (emergency_top - F_SIZE)@ha;	/* emergency top frame */ \
	addi	r10, r10, (emergency_top - F_SIZE)@l;				\
	b	2f;								\
3:	lis	r10, user_ksp@ha;	/* user_enter's kernel stack pointer */	\
	lwz	r10, user_ksp@l(r10);						\
	cmpwi	r10, 0;			/* none (not in user_enter): */		\
	beq-	1b;			/* the emergency stack */		\
	addi	r10, r10, -(256 + F_SIZE);	/* a frame well below it */	\
2:	rlwinm	r10, r10, 0, 0, 27	/* 16-byte aligned */

/* r2..r9 to (op: stw) or from (lwz) the frame at r10, one by one: stmw and
 * lmw take a run up to r31, and r10/r11 are not the interrupted ones. */
#define FRAME_GPRS_2_9(op)							\
	op	r2, F_GPR + 8(r10);						\
	op	r3, F_GPR + 12(r10);						\
	op	r4, F_GPR + 16(r10);						\
	op	r5, F_GPR + 20(r10);						\
	op	r6, F_GPR + 24(r10);						\
	op	r7, F_GPR + 28(r10);						\
	op	r8, F_GPR + 32(r10);						\
	op	r9, F_GPR + 36(r10)

/* The GPRs into the frame at r10: r10/r11 from SPRG0/1, where the stub put them. */
#define FRAME_SAVE_GPRS								\
	stw	r0, F_GPR + 0(r10);	/* r0 */				\
	stw	r1, F_GPR + 4(r10);	/* r1 as interrupted */			\
	FRAME_GPRS_2_9(stw);							\
	stmw	r12, F_GPR + 48(r10);	/* r12..r31 */				\
	mfspr	r0, FRAME_SPRG_R10;	/* the stub kept r10 here */		\
	stw	r0, F_GPR + 40(r10);	/* r10 */				\
	mfspr	r0, FRAME_SPRG_R11;	/* and r11 here */			\
	stw	r0, F_GPR + 44(r10)	/* r11 */

/* CR (from SPRG7), LR, CTR, XER, and SRR0/1: the interrupted PC and MSR
 * of a non-critical interrupt.  r0 is free (saved). */
#define FRAME_SAVE_SPECIAL							\
	mfspr	r0, FRAME_SPRG_CR;	/* CR */				\
	stw	r0, F_CR(r10);							\
	mflr	r0;			/* LR, CTR, XER */			\
	stw	r0, F_LR(r10);							\
	mfctr	r0;								\
	stw	r0, F_CTR(r10);							\
	mfxer	r0;								\
	stw	r0, F_XER(r10);							\
	mfspr	r0, SPR_SRR0;		/* PC and MSR of the interrupted code */ \
	stw	r0, F_SRR0(r10);						\
	mfspr	r0, SPR_SRR1;							\
	stw	r0, F_SRR1(r10)

/* Why (DEAR, ESR) and which (SPRG6) the interrupt was, then C's frame
 * below ours: r1 = r10 - 16, with a zero back chain that ends traces. */
#define FRAME_SAVE_CAUSE							\
	mfspr	r0, SPR_DEAR;		/* faulting data address */		\
	stw	r0, F_DEAR(r10);						\
	mfspr	r0, SPR_ESR;		/* why (store, illegal...) */		\
	stw	r0, F_ESR(r10);							\
	mfspr	r0, FRAME_SPRG_VEC;	/* the vector number */			\
	stw	r0, F_VEC(r10);							\
	addi	r1, r10, -16;		/* C's frame below ours */		\
	li	r0, 0;			/* a zero back chain ... */		\
	stw	r0, 0(r1)		/* ... ends stack traces */

/* After C returned (r1 as FRAME_SAVE_CAUSE left it): SRR0/1 (C may have
 * moved SRR0), CR, LR, CTR, XER and every GPR back from the frame, r10 last
 * (it was the base); the caller's rfi follows. */
#define FRAME_RESTORE								\
	addi	r10, r1, 16;		/* our frame again */			\
	lwz	r0, F_SRR0(r10);	/* where to resume (C may have moved it) */ \
	mtspr	SPR_SRR0, r0;							\
	lwz	r0, F_SRR1(r10);	/* MSR to resume with */		\
	mtspr	SPR_SRR1, r0;							\
	lwz	r0, F_CR(r10);		/* CR, LR, CTR, XER back */		\
	mtcrf	0xff, r0;							\
	lwz	r0, F_LR(r10);							\
	mtlr	r0;								\
	lwz	r0, F_CTR(r10);							\
	mtctr	r0;								\
	lwz	r0, F_XER(r10);							\
	mtxer	r0;								\
	lwz	r0, F_GPR + 0(r10);	/* the GPRs back, r10 last */		\
	FRAME_GPRS_2_9(lwz);							\
	lmw	r12, F_GPR + 48(r10);	/* r12..r31 */				\
	lwz	r11, F_GPR + 44(r10);	/* r11 */				\
	lwz	r1, F_GPR + 4(r10);	/* the interrupted stack pointer */	\
	lwz	r10, F_GPR + 40(r10)	/* last: it was the base */

#endif
