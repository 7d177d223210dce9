/*
 * User mode on the e500 (include/user.h): the way in (user_enter, an rfi
 * into problem state), the way out (e500_user_return, from the exception
 * path in C); the user routine is arch/powerpc/user_code.S.
 * The way in and the way out's first half are the 405's too: plain PowerPC,
 * arch/powerpc/user_mode.h.  The return's second half is the e500's
 * own: EE off first, mtsrr0 .. rfi in one 16-byte block (below).
 *
 * While user code runs, e500_user_ksp holds the kernel stack pointer
 * user_enter left: vectors.S's common path builds the frame of every
 * exception taken in problem state below it (the user's r1 is not to be
 * trusted).  e500_user_kmsr is the kernel's MSR, which the return puts
 * back.  User mode runs in address space 0 as the kernel does (MSR[IS,DS]
 * kept): only MSR[PR] changes, and the MAS3 U* bits decide what it may do.
 */
#include "e500.h"
#include "../powerpc/user_mode.h"

	.text
/*
 * int e500_user_enter(uintptr_t entry (r3), uintptr_t sp (r4),
 *                     uintptr_t arg (r5)): user_enter's way in (user.c)
 */
	.globl	e500_user_enter
e500_user_enter:
	USER_ENTER(e500_user_ksp, e500_user_kmsr, e500_user_zeros)

/*
 * void e500_user_return(int rc (r3)): from the exception path (C, in
 * supervisor state, on the kernel stack below e500_user_ksp): user_enter
 * returns rc to its caller, with the kernel's MSR.  The exception's frame
 * is dropped with the user context.
 */
	.globl	e500_user_return
e500_user_return:
	wrteei	0			/* SRR0/1 below: nothing in between */
	USER_RETURN_RESTORE(e500_user_ksp)
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

	USER_MODE_DATA(e500)	/* e500_user_zeros, _ksp, _kmsr */
