/*
 * The user routine of arch/ppc405 and arch/e500 (include/user.h): plain
 * PowerPC, the same on both; boot/proc.c copies it onto a user page and
 * each arch's user_enter rfi's into it in problem state.
 * Position-independent (relative branches only, no absolute address),
 * entered with r3 = &job (struct proc_job, J_* offsets asserted in each
 * user.c).  r4 = rounds, r11 = the round number, r10 = sum, r9 = stride.
 */
#include "user_job.h"

	.section .user_code, "ax"	/* first in [user_code, user_code_end) (linker scripts) */
	.balign	4
	lwz	r4, J_ROUNDS(r3)	/* rounds */
	li	r10, 0			/* sum of the words loaded */
	li	r11, 0			/* round number */
	cmplw	r11, r4			/* no rounds at all? */
	bge-	5f
1:	lwz	r5, J_BASE(r3)		/* a round: the first page */
	lwz	r6, J_PAGES(r3)		/* pages to touch */
	lwz	r7, J_WRITE(r3)		/* store rather than load? */
	cmpwi	cr1, r7, 0		/* cr1: eq = loads */
	lwz	r9, J_STRIDE(r3)	/* bytes to the next touch ... */
	cmpwi	r9, 0
	bne+	9f
	li	r9, 4096		/* ... 0: the next 4K page */
9:	cmpwi	r6, 0			/* no pages: straight to the calls */
	beq-	3f
	mtctr	r6			/* one word per page */
2:	beq	cr1, 6f			/* loads */
	stw	r11, 0(r5)		/* a store of the round number */
	b	7f
6:	lwz	r8, 0(r5)		/* a load ... */
	add	r10, r10, r8		/* ... summed */
7:	add	r5, r5, r9		/* the next touch */
	bdnz	2b
3:	lwz	r6, J_CALLS(r3)		/* null calls this round */
	cmpwi	r6, 0
	beq-	4f
	mtctr	r6
8:	li	r0, POWERPC_CALL_NULL	/* the call number, in r0 */
	sc				/* into the kernel and back */
	bdnz	8b			/* (the kernel keeps every register) */
4:	addi	r11, r11, 1		/* next round */
	cmplw	r11, r4
	blt	1b
5:	stw	r10, J_SUM(r3)		/* the sum, for the caller */
	li	r0, POWERPC_CALL_EXIT	/* done */
	sc				/* never returns */
	b	.
