/*
 * User mode on the e500 (include/user.h): the way in (user_enter, an rfi
 * into problem state), the way out (e500_user_return, from the exception
 * path in C); the user routine is arch/powerpc/user_code.S.
 * The same logic as the 405's (arch/ppc405/user_mode.S): plain PowerPC.
 *
 * While user code runs, e500_user_ksp holds the kernel stack pointer
 * user_enter left: vectors.S's common path builds the frame of every
 * exception taken in problem state below it (the user's r1 is not to be
 * trusted).  e500_user_kmsr is the kernel's MSR, which the return puts
 * back.  User mode runs in address space 0 as the kernel does (MSR[IS,DS]
 * kept): only MSR[PR] changes, and the MAS3 U* bits decide what it may do.
 */
#include "e500.h"

#define KFRAME	96		/* user_enter's frame: CR, r2, r13..r31 */
#define K_CR	8
#define K_R2	12
#define K_R13	16		/* 19 words: 16..91 */

	.text
/*
 * int e500_user_enter(uintptr_t entry (r3), uintptr_t sp (r4),
 *                     uintptr_t arg (r5)): user_enter's way in (user.c)
 */
	.globl	e500_user_enter
e500_user_enter:
	stwu	r1, -KFRAME(r1)		/* our frame on the kernel stack */
	mflr	r0			/* the return address ... */
	stw	r0, KFRAME + 4(r1)	/* ... in the caller's LR save word */
	mfcr	r0			/* CR: its fields 2..4 are the caller's */
	stw	r0, K_CR(r1)
	stw	r2, K_R2(r1)		/* r2 and the non-volatile r13..r31 */
	stmw	r13, K_R13(r1)
	lis	r6, e500_user_ksp@ha	/* exceptions from user mode: frames ... */
	stw	r1, e500_user_ksp@l(r6)	/* ... below this frame */
	mfmsr	r7			/* the kernel's MSR ... */
	lis	r6, e500_user_kmsr@ha
	stw	r7, e500_user_kmsr@l(r6)	/* ... for the way back */
	ori	r7, r7, MSR_PR		/* the same with problem state: AS 0, EE as now */
	lis	r6, e500_user_zeros@ha	/* no kernel value into user mode: */
	addi	r6, r6, e500_user_zeros@l
	lmw	r8, 0(r6)		/* r8..r31 = 0, before SRR0/1 are set:
					 * no access may come between them */
	wrteei	0			/* nor an interrupt (SRR1 = r7 gives EE back) */
	b	1f			/* to the block below */
	.balignl 64, 0x60000000		/* (nops) mtsrr0 .. rfi in one 64-byte block */
1:	mtsrr0	r3			/* where user mode starts */
	mtsrr1	r7			/* the MSR it runs with */
	mr	r1, r4			/* its stack */
	mr	r3, r5			/* its argument */
	li	r0, 0			/* and r0, r2, r4..r7 */
	li	r2, 0
	li	r4, 0
	li	r5, 0
	li	r6, 0
	li	r7, 0
	rfi				/* into problem state */
	b	.			/* no prefetch past rfi */

/*
 * void e500_user_return(int rc (r3)): from the exception path (C, in
 * supervisor state, on the kernel stack below e500_user_ksp): user_enter
 * returns rc to its caller, with the kernel's MSR.  The exception's frame
 * is dropped with the user context.
 */
	.globl	e500_user_return
e500_user_return:
	wrteei	0			/* SRR0/1 below: nothing in between */
	lis	r6, e500_user_ksp@ha	/* user_enter's frame */
	lwz	r1, e500_user_ksp@l(r6)
	li	r0, 0			/* no longer in user mode */
	stw	r0, e500_user_ksp@l(r6)
	lwz	r0, K_CR(r1)		/* CR back */
	mtcrf	0xff, r0
	lwz	r2, K_R2(r1)		/* r2, r13..r31 back */
	lmw	r13, K_R13(r1)
	lis	r6, e500_user_kmsr@ha
	lwz	r6, e500_user_kmsr@l(r6)
	lwz	r0, KFRAME + 4(r1)	/* user_enter's return address */
	mtlr	r0			/* (LR as a return leaves it) */
	addi	r1, r1, KFRAME		/* the caller's stack pointer */
	b	1f			/* to the block below */
	.balignl 16, 0x60000000		/* (nops) mtsrr0 .. rfi in one 16-byte block:
					 * no ITLB miss (which sets SRR0/1) between */
1:	mtsrr0	r0			/* rfi goes there ... */
	mtsrr1	r6			/* ... with the kernel's MSR */
	rfi				/* r3 = rc */
	b	.

	.section .rodata.e500_user_zeros, "a"
	.align	2
e500_user_zeros:
	.space	24 * 4			/* r8..r31 at user_enter */

	.section .bss.e500_user, "aw", @nobits
	.align	2
	.globl	e500_user_ksp, e500_user_kmsr
e500_user_ksp:
	.space	4			/* kernel r1 while in user mode, else 0 */
e500_user_kmsr:
	.space	4			/* the kernel's MSR at user_enter */
