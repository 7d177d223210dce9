/*
 * User mode on the 405 (include/user.h): the way in (user_enter, an rfi
 * into problem state), the way out (ppc405_user_return, from the exception
 * path in C); the user routine is arch/powerpc/user_code.S.  The way in and
 * the way out's first half are the e500's too: plain PowerPC,
 * arch/powerpc/user_mode.h.  User mode runs with the kernel's MSR and PR:
 * IR/DR as the mode has them (off in real), EE as before.
 *
 * While user code runs, ppc405_user_ksp holds the kernel stack pointer
 * user_enter left: vectors.S's common path builds the frame of every
 * exception taken in problem state below it (the user's r1 is not to be
 * trusted).  ppc405_user_kmsr is the kernel's MSR (translation as the mode
 * has it), which the null call and the return put back.
 */
#include "ppc405.h"
#include "../powerpc/user_mode.h"

	.text
/*
 * int ppc405_user_enter(uintptr_t entry (r3), uintptr_t sp (r4),
 *                       uintptr_t arg (r5)): user_enter's way in (user.c)
 */
	.globl	ppc405_user_enter
ppc405_user_enter:
	USER_ENTER(ppc405_user_ksp, ppc405_user_kmsr, ppc405_user_zeros)

/*
 * void ppc405_user_return(int rc (r3)): from the exception path (C, in
 * supervisor state, translation off, on the kernel stack below
 * ppc405_user_ksp): user_enter returns rc to its caller, with the kernel's
 * MSR.  The exception's frame is dropped with the user context.
 */
	.globl	ppc405_user_return
ppc405_user_return:
	USER_RETURN_RESTORE(ppc405_user_ksp)
	lwz	r0, KFRAME + 4(r1)	/* user_enter's return address */
	mtsrr0	r0			/* rfi goes there ... */
	lis	r6, ppc405_user_kmsr@ha
	lwz	r6, ppc405_user_kmsr@l(r6)
	mtsrr1	r6			/* ... with the kernel's MSR */
	mtlr	r0			/* (LR as a return leaves it) */
	addi	r1, r1, KFRAME		/* the caller's stack pointer */
	rfi				/* r3 = rc */
	b	.

	USER_MODE_DATA(ppc405)	/* ppc405_user_zeros, _ksp, _kmsr */
