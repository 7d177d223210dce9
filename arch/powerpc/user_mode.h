/*
 * User mode's way in and the first half of the way out, for arch/ppc405's
 * and arch/e500's user_mode.S (include/user.h): plain PowerPC, the same
 * instructions on both.  user_enter's frame on the kernel stack keeps what
 * a C caller expects back (CR, r2, r13..r31, LR in the caller's save word);
 * ksp is the word that holds that stack pointer while user code runs (the
 * common path, arch/powerpc/frame.h FRAME_CHOOSE, builds frames below it),
 * kmsr the kernel's MSR for the way back, zeros 24 zero words (r8..r31).
 * For C (each user.c): the job's offsets and the call numbers asserted
 * against the C definitions, and the null-call hook's MSR switch (needs the
 * arch header's mfmsr and mtmsr).
 */
#ifndef POWERPC_USER_MODE_H
#define POWERPC_USER_MODE_H

#ifdef __ASSEMBLY__

#define KFRAME	96		/* user_enter's frame: CR, r2, r13..r31 */
#define K_CR	8
#define K_R2	12
#define K_R13	16		/* 19 words: 16..91 */

/* (entry r3, sp r4, arg r5): save the kernel's state, then rfi into
 * problem state at entry, with the kernel's MSR | MSR_PR, r1 = sp, r3 =
 * arg and every other GPR 0.  Returns (to the caller's LR) only through
 * the arch's user_return. */
#define USER_ENTER(ksp, kmsr, zeros)						\
	stwu	r1, -KFRAME(r1);	/* our frame on the kernel stack */	\
	mflr	r0;			/* the return address ... */		\
	stw	r0, KFRAME + 4(r1);	/* ... in the caller's LR save word */	\
	mfcr	r0;			/* CR: its fields 2..4 are the caller's */ \
	stw	r0, K_CR(r1);							\
	stw	r2, K_R2(r1);		/* r2 and the non-volatile r13..r31 */	\
	stmw	r13, K_R13(r1);							\
	lis	r6, ksp@ha;		/* exceptions from user mode: frames ... */ \
	stw	r1, ksp@l(r6);		/* ... below this frame */		\
	mfmsr	r7;			/* the kernel's MSR ... */		\
	lis	r6, kmsr@ha;							\
	stw	r7, kmsr@l(r6);		/* ... for the way back */		\
	ori	r7, r7, MSR_PR;		/* the same with problem state */	\
	lis	r6, zeros@ha;		/* no kernel value into user mode: */	\
	addi	r6, r6, zeros@l;						\
	lmw	r8, 0(r6);		/* r8..r31 = 0, before SRR0/1 are set: */ \
					/* a miss in between would overwrite them */ \
	wrteei	0;			/* nor an interrupt (SRR1 = r7 gives EE back) */ \
	b	1f;			/* to the block below */		\
	.balignl 64, 0x60000000;	/* (nops) mtsrr0 .. rfi in one 64-byte */ \
					/* block: no ITLB miss between them */	\
1:	mtsrr0	r3;			/* where user mode starts */		\
	mtsrr1	r7;			/* the MSR it runs with */		\
	mr	r1, r4;			/* its stack */				\
	mr	r3, r5;			/* its argument */			\
	li	r0, 0;			/* and r0, r2, r4..r7 */		\
	li	r2, 0;								\
	li	r4, 0;								\
	li	r5, 0;								\
	li	r6, 0;								\
	li	r7, 0;								\
	rfi;				/* into problem state */		\
	b	.			/* no prefetch past rfi */

/* The way out's first half, on the kernel stack below ksp: user_enter's
 * frame back in r1, ksp = 0 (no longer in user mode), CR, r2, r13..r31
 * back.  The arch's user_return then rfi's to user_enter's caller with
 * the kernel's MSR (r3 = rc). */
#define USER_RETURN_RESTORE(ksp)						\
	lis	r6, ksp@ha;		/* user_enter's frame */		\
	lwz	r1, ksp@l(r6);							\
	li	r0, 0;			/* no longer in user mode */		\
	stw	r0, ksp@l(r6);							\
	lwz	r0, K_CR(r1);		/* CR back */				\
	mtcrf	0xff, r0;							\
	lwz	r2, K_R2(r1);		/* r2, r13..r31 back */			\
	lmw	r13, K_R13(r1)

/* The words user mode needs, for prefix e500 or ppc405: prefix_user_zeros
 * (USER_ENTER's r8..r31), prefix_user_ksp (kernel r1 while in user mode,
 * else 0) and prefix_user_kmsr (the kernel's MSR at user_enter). */
#define USER_MODE_DATA(prefix)							\
	.section .rodata.prefix##_user_zeros, "a";				\
	.align	2;								\
prefix##_user_zeros:								\
	.space	24 * 4;			/* r8..r31 at user_enter */		\
	.section .bss.prefix##_user, "aw", @nobits;				\
	.align	2;								\
	.globl	prefix##_user_ksp, prefix##_user_kmsr;				\
prefix##_user_ksp:								\
	.space	4;			/* kernel r1 while in user mode, else 0 */ \
prefix##_user_kmsr:								\
	.space	4			/* the kernel's MSR at user_enter */

#else /* C */
#include <stddef.h>
#include "proc.h"
#include "user.h"
#include "user_job.h"

/* user_code.S reads the job and makes the calls by these numbers. */
#define JOB_AT(field, off) _Static_assert(offsetof(struct proc_job, field) == off, #field)
JOB_AT(rounds, J_ROUNDS); JOB_AT(touch_base, J_BASE); JOB_AT(touch_pages, J_PAGES);
JOB_AT(write, J_WRITE); JOB_AT(calls, J_CALLS); JOB_AT(sum, J_SUM); JOB_AT(stride, J_STRIDE);
_Static_assert(USER_CALL_NULL == POWERPC_CALL_NULL && USER_CALL_EXIT == POWERPC_CALL_EXIT,
	       "call numbers");

/* From the system call's exception path: the hook *fn (if any) with kmsr,
 * the kernel's MSR at user_enter, then the exception's MSR again for the
 * way back through the common path. */
static inline void powerpc_user_null_call(void (*const *fn)(void), uint32_t kmsr)
{
	uint32_t msr = mfmsr();

	if (!*fn)
		return;
	mtmsr(kmsr);
	(*fn)();
	mtmsr(msr);
}

/* expr evaluated into `into` with kmsr, the kernel's MSR at user_enter
 * (translation as the kernel has it), then the exception's MSR again for
 * the way back through the common path. */
#define POWERPC_WITH_KMSR(kmsr, into, expr)					\
	do {									\
		uint32_t msr_ = mfmsr();					\
		mtmsr(kmsr);							\
		into = (expr);							\
		mtmsr(msr_);							\
	} while (0)

/* From a user-mode fault's path: fn(arg) (include/user.h user_kernel_call). */
static inline int powerpc_user_kernel_call(int (*fn)(void *), void *arg, uint32_t kmsr)
{
	int r;

	POWERPC_WITH_KMSR(kmsr, r, fn(arg));
	return r;
}

/* The scheduler's calls and a user fault's signal (include/user.h), from
 * the exception path.  frame: the arch's, whose common part is struct
 * user_regs (arch/powerpc/user_regs.c asserts it). */
static inline int powerpc_user_syscall(void *frame, uint32_t kmsr, int *rc)
{
	int leave;

	POWERPC_WITH_KMSR(kmsr, leave, user_syscall(frame, rc));
	return leave;
}

static inline int powerpc_user_fault(void *frame, uintptr_t addr, uint32_t kmsr)
{
	int resumed;

	POWERPC_WITH_KMSR(kmsr, resumed, user_fault(frame, addr));
	return resumed;
}

#endif

#endif
