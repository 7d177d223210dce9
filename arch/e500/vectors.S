/*
 * e500 interrupt vectors.  Book-E has no fixed vector addresses: each
 * interrupt n goes to IVPR[0:15] | IVORn[16:27], so the handlers sit
 * anywhere in one 64 KiB block (here: the image's first 64 KiB, section
 * .vectors right after the entry; arch_init points IVPR at the image and
 * each IVOR at its stub, exceptions.c checks they fit).  Every stub saves
 * r10/r11 in SPRG0/1, loads its IVOR number and joins the common path,
 * which saves the whole state in a frame and calls e500_exception() in C;
 * that either resumes (something a probe expected) or prints a register
 * dump and ends the run.
 *
 * Interrupts keep translation (MSR[IS,DS] = 0: address space 0, where the
 * boot translation maps RAM 1:1), so the handlers run at their link
 * addresses.  SPRG use: SPRG0/1 = r10/r11 of any vector; SPRG6/7 =
 * vector number and CR in the common path.
 */
#include "e500.h"

/* One stub: 16 bytes, IVOR-aligned (IVOR's low 4 bits are ignored). */
#define STUB(n)								\
	.balign	16;							\
	.globl	e500_ivor##n;						\
e500_ivor##n:								\
	mtspr	SPR_SPRG0, r10;	/* free r10 */				\
	mtspr	SPR_SPRG1, r11;	/* free r11 */				\
	li	r11, n;		/* which IVOR */			\
	b	exc_common	/* save all, call C */

/* A TLB miss stub: the miss counted in mmu_count (no mode here has a
 * page table to refill from, so every miss is also a fault: the common
 * path).  IVORs may point anywhere in IVPR's 64 KiB: no 16-byte limit. */
#define COUNTED_STUB(n, off)						\
	.balign	16;							\
	.globl	e500_ivor##n;						\
e500_ivor##n:								\
	mtspr	SPR_SPRG0, r10;	/* free r10 */				\
	mtspr	SPR_SPRG1, r11;	/* free r11 */				\
	lis	r10, mmu_count@ha;	/* the counters */			\
	addi	r10, r10, mmu_count@l;					\
	lwz	r11, off(r10);	/* count this miss */			\
	addi	r11, r11, 1;						\
	stw	r11, off(r10);						\
	li	r11, n;		/* which IVOR */			\
	b	exc_common

	.section .vectors, "ax"
	STUB(0)			/* critical input (CSRR0/1) */
	STUB(1)			/* machine check (MCSRR0/1, MCSR) */
	STUB(2)			/* data storage: a protection fault */
	STUB(3)			/* instruction storage: no-execute page */
	STUB(4)			/* external input */
	STUB(5)			/* alignment */
	STUB(6)			/* program: illegal instruction, trap, privileged */
	STUB(7)			/* floating point unavailable (the e500 has none) */
	STUB(8)			/* system call */
	STUB(9)			/* auxiliary processor unavailable */
	STUB(10)		/* decrementer: the watchdog */
	STUB(11)		/* fixed interval timer */
	STUB(12)		/* watchdog timer (critical) */
	COUNTED_STUB(13, MMU_DTLB_OFF)	/* data TLB miss (DEAR, ESR[ST]) */
	COUNTED_STUB(14, MMU_ITLB_OFF)	/* instruction TLB miss (SRR0) */
	STUB(15)		/* debug (critical on the e500v2) */
	STUB(32)		/* SPE unavailable */
	STUB(33)		/* SPE floating-point data */
	STUB(34)		/* SPE floating-point round */
	STUB(35)		/* performance monitor */
	.globl	e500_vectors_end
e500_vectors_end:

	.text
/*
 * The common path: r10/r11 of the interrupted code are in SPRG0/1, r11 =
 * the IVOR number.  Builds a struct e500_frame below the interrupted stack
 * pointer (or on the emergency stack when r1 is not inside our stack),
 * calls e500_exception(frame), and if that returns, restores everything
 * and retries with rfi (only non-critical interrupts return).
 */
exc_common:
	mtspr	SPR_SPRG6, r11		/* the vector */
	mfcr	r11			/* CR, before any compare */
	mtspr	SPR_SPRG7, r11
	lis	r10, (__stack_bottom + 1024)@ha	/* is r1 inside our stack? */
	addi	r10, r10, (__stack_bottom + 1024)@l
	cmplw	r1, r10			/* r1 against the stack's low end */
	blt-	1f			/* below it (or overflowed): emergency stack */
	lis	r10, __stack_top@ha
	addi	r10, r10, __stack_top@l
	cmplw	r1, r10			/* r1 against its high end */
	bgt-	1f			/* above it: emergency stack */
	addi	r10, r1, -(256 + F_SIZE)	/* a frame well below r1 */
	b	2f
1:	lis	r10, (e500_exc_stack_top - F_SIZE)@ha	/* emergency stack's top frame */
	addi	r10, r10, (e500_exc_stack_top - F_SIZE)@l
2:	rlwinm	r10, r10, 0, 0, 27	/* 16-byte aligned */
	stw	r0, F_GPR + 0(r10)	/* r0 */
	stw	r1, F_GPR + 4(r10)	/* r1 as interrupted */
	stw	r2, F_GPR + 8(r10)	/* r2..r9 */
	stw	r3, F_GPR + 12(r10)
	stw	r4, F_GPR + 16(r10)
	stw	r5, F_GPR + 20(r10)
	stw	r6, F_GPR + 24(r10)
	stw	r7, F_GPR + 28(r10)
	stw	r8, F_GPR + 32(r10)
	stw	r9, F_GPR + 36(r10)
	stmw	r12, F_GPR + 48(r10)	/* r12..r31 */
	mfspr	r0, SPR_SPRG0		/* the stub kept r10 here */
	stw	r0, F_GPR + 40(r10)
	mfspr	r0, SPR_SPRG1		/* and r11 here */
	stw	r0, F_GPR + 44(r10)
	mfspr	r0, SPR_SPRG7		/* CR */
	stw	r0, F_CR(r10)
	mflr	r0			/* LR, CTR, XER */
	stw	r0, F_LR(r10)
	mfctr	r0
	stw	r0, F_CTR(r10)
	mfxer	r0
	stw	r0, F_XER(r10)
	mfspr	r0, SPR_SRR0		/* PC and MSR of the interrupted code */
	stw	r0, F_SRR0(r10)
	mfspr	r0, SPR_SRR1
	stw	r0, F_SRR1(r10)
	mfspr	r0, SPR_CSRR0		/* the same for critical interrupts */
	stw	r0, F_CSRR0(r10)
	mfspr	r0, SPR_CSRR1
	stw	r0, F_CSRR1(r10)
	mfspr	r0, SPR_MCSRR0		/* and for machine checks, with why */
	stw	r0, F_MCSRR0(r10)
	mfspr	r0, SPR_MCSRR1
	stw	r0, F_MCSRR1(r10)
	mfspr	r0, SPR_MCSR
	stw	r0, F_MCSR(r10)
	mfspr	r0, SPR_DEAR		/* faulting data address */
	stw	r0, F_DEAR(r10)
	mfspr	r0, SPR_ESR		/* why (store, illegal...) */
	stw	r0, F_ESR(r10)
	mfspr	r0, SPR_SPRG6		/* the vector number */
	stw	r0, F_VEC(r10)
	addi	r1, r10, -16		/* C's frame below ours */
	li	r0, 0
	stw	r0, 0(r1)		/* a zero back chain ends traces */
	mr	r3, r10			/* e500_exception(frame) */
	bl	e500_exception		/* returns only to resume */
	addi	r10, r1, 16		/* our frame again */
	lwz	r0, F_SRR0(r10)		/* where to resume (C may have moved it) */
	mtspr	SPR_SRR0, r0
	lwz	r0, F_SRR1(r10)		/* MSR to resume with */
	mtspr	SPR_SRR1, r0
	lwz	r0, F_CR(r10)		/* CR, LR, CTR, XER back */
	mtcrf	0xff, r0
	lwz	r0, F_LR(r10)
	mtlr	r0
	lwz	r0, F_CTR(r10)
	mtctr	r0
	lwz	r0, F_XER(r10)
	mtxer	r0
	lwz	r0, F_GPR + 0(r10)	/* the GPRs back, r10 last */
	lwz	r2, F_GPR + 8(r10)
	lwz	r3, F_GPR + 12(r10)
	lwz	r4, F_GPR + 16(r10)
	lwz	r5, F_GPR + 20(r10)
	lwz	r6, F_GPR + 24(r10)
	lwz	r7, F_GPR + 28(r10)
	lwz	r8, F_GPR + 32(r10)
	lwz	r9, F_GPR + 36(r10)
	lmw	r12, F_GPR + 48(r10)	/* r12..r31 */
	lwz	r11, F_GPR + 44(r10)
	lwz	r1, F_GPR + 4(r10)	/* the interrupted stack pointer */
	lwz	r10, F_GPR + 40(r10)	/* last: it was the base */
	rfi				/* retry, or go on */
	b	.

/*
 * mmu_probe_load(addr): one load (mmu.h).  A fault hook may answer
 * MMU_FAULT_SKIP to a fault on its lwz: the fault handler then resumes at
 * mmu_probe_load_skip, which returns 0.
 */
	.globl	mmu_probe_load, mmu_probe_load_insn, mmu_probe_load_skip
mmu_probe_load:
mmu_probe_load_insn:
	lwz	r3, 0(r3)		/* the load that may fault */
	blr
mmu_probe_load_skip:
	li	r3, 0			/* skipped: nothing loaded */
	blr

	.section .bss.e500_exc_stack, "aw", @nobits
	.align	4
	.space	8192
	.globl	e500_exc_stack_top
e500_exc_stack_top:
