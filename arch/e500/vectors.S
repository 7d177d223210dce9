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
 * Book-E takes interrupts translated (MSR[IS,DS] = 0: address space 0),
 * so the code here must never miss: the stubs, the miss handlers and the
 * common path's entry and exit all lie in .vectors, which the linker
 * script keeps to the image's first 4 KiB and mmu.c pins with one TLB1
 * entry in every translated mode (the only kernel page pinned in normal).
 * Their data accesses go through address space 1 (MSR[DS] = 1 set first
 * thing: TLB1's top entries map RAM 1:1 there, in every mode), as the 405's
 * handlers run with translation off: the counters, the directory, the page
 * tables and the frame never miss either.  rfi puts SRR1's DS back.
 * The TLB miss vectors hold the fast path themselves.
 * SPRG use: SPRG0/1 = r10/r11 of any vector; SPRG2/4 = r12/r9 of the miss
 * handlers; SPRG3 = the page directory (the state block lies below it);
 * SPRG6/7 = vector number and CR in the common path.
 */
#include "e500.h"
#include "../powerpc/miss_exit.h"

/* One stub: 16 bytes, IVOR-aligned (IVOR's low 4 bits are ignored). */
#define STUB(n)								\
	.balign	16;							\
	.globl	e500_ivor##n;						\
e500_ivor##n:								\
	mtspr	SPR_SPRG0, r10;	/* free r10 */				\
	mtspr	SPR_SPRG1, r11;	/* free r11 */				\
	li	r11, n;		/* which IVOR */			\
	b	exc_common	/* save all, call C */

/*
 * The TLB miss handlers, for DTLB (address in DEAR) and ITLB (address in
 * SRR0).  On a miss the e500 has already filled the MAS registers for the
 * entry to write (MAS4's defaults, set by mmu.c): MAS1 = valid, TID =
 * PID, 4K, MAS2 = the page's EPN; MAS0 = TLB0 and the CPU's next victim
 * way, which we replace by our own: round robin in each set.  The core's
 * hint comes from one 2-bit counter for all of TLB0 (E500CORERM 12.3.2.2,
 * and QEMU does the same), so that pages 128 apart would evict each other
 * and a cyclic walk of 256 pages would never stay; ours is a policy of
 * this handler, the same on QEMU and silicon (doc/ppce500.md).  The
 * handler walks the page table (SPRG3 = directory, 1024 words, one per
 * 4 MiB; e500.h "A PTE"), counts the miss (and a kernel one: any address
 * outside the user window, whose entries also get TID 0, shared by every
 * space), adds RPN and permissions (MAS3), WIMGE (MAS2) and writes TLB0.
 * A directory leaf is a large page mapped 1:1: written into TLB1 at the
 * next unpinned entry, round robin.  No PTE: the slow path, into C (a page
 * fault).  The handler's code is pinned, its data read in address space 1
 * (above): Book-E takes interrupts translated.
 * A kernel 4K miss runs straight from the vector to the rfi (the count in
 * mmu.c's tlb_info); the leaf and fault paths lie after it.
 */
#define MISS_HANDLER(n, addr_spr, count_off, kcount_off, x)		\
	.balign	16;							\
	.globl	e500_ivor##n, e500_##x##tlb_rfi;			\
e500_ivor##n:								\
	mtspr	SPR_SPRG0, r10;	/* free r10 */				\
	mtspr	SPR_SPRG1, r11;	/* free r11 */				\
	mtspr	SPR_SPRG2, r12;	/* free r12 */				\
	mtspr	SPR_SPRG4, r9;	/* free r9 */				\
	mfmsr	r9;		/* data through address space 1, */	\
	ori	r9, r9, MSR_DS;	/* RAM 1:1: the counters and tables */	\
	mtmsr	r9;		/* never miss (rfi restores DS = 0) */	\
	isync;			/* before the first load */		\
	mfcr	r12;		/* CR, put back at the end */		\
	mfspr	r10, addr_spr;	/* the address that missed */		\
	mfspr	r11, SPR_SPRG3;	/* the directory; counters below it */	\
	lwz	r9, count_off(r11);	/* count this miss */		\
	addi	r9, r9, 1;						\
	stw	r9, count_off(r11);					\
	srwi	r9, r10, 24;	/* its 16 MiB */			\
	cmplwi	r9, WINDOW_TOP8;	/* the user window? */		\
	beq-	1f;		/* yes: TID = PID as the CPU set it */	\
	lwz	r9, kcount_off(r11);	/* a kernel page's miss */	\
	addi	r9, r9, 1;						\
	stw	r9, kcount_off(r11);					\
	mfspr	r9, SPR_MAS1;						\
	rlwinm	r9, r9, 0, 16, 7;	/* TID 0: shared by every space */ \
	mtspr	SPR_MAS1, r9;						\
1:	rlwimi	r11, r10, 12, 20, 29;	/* &directory[addr >> 22] */	\
	lwz	r11, 0(r11);	/* directory word */			\
	andi.	r9, r11, PTE_LEAF;	/* a large page? */		\
	bne-	x##leaf;						\
	rlwimi	r11, r10, 22, 20, 29;	/* &table[(addr >> 12) & 1023] */ \
	lwz	r11, 0(r11);	/* the PTE */				\
	andi.	r9, r11, PTE_SR;	/* present? */			\
	beq-	x##fault;	/* no: page fault, slow path */		\
	mfspr	r9, SPR_MAS2;	/* EPN as the CPU set it ... */		\
	rlwimi	r9, r11, 32 - PTE_WIMGE_SHIFT, 27, 31;	/* ... | WIMGE */ \
	mtspr	SPR_MAS2, r9;						\
	rlwinm	r9, r11, 0, 0, 19;	/* RPN ... */			\
	rlwimi	r9, r11, 0, 26, 31;	/* ... | permissions */		\
	mtspr	SPR_MAS3, r9;						\
	li	r9, 0;							\
	mtspr	SPR_MAS7, r9;	/* RPN bits 32-35: RAM is below 4 GiB */ \
	rlwinm	r9, r10, 20, 25, 31;	/* the page's TLB0 set (of 128) */ \
	lis	r11, e500_tlb0_victim@ha;	/* each set's next way */ \
	addi	r11, r11, e500_tlb0_victim@l;				\
	lbzx	r10, r11, r9;	/* this set's victim way ... */		\
	add	r11, r11, r9;						\
	addi	r9, r10, 1;	/* ... and the next, round robin */	\
	andi.	r9, r9, TLB0_WAYS - 1;					\
	stb	r9, 0(r11);						\
	slwi	r10, r10, 16;	/* MAS0: TLB0, ESEL = that way */	\
	mtspr	SPR_MAS0, r10;						\
	tlbwe;			/* TLB0 */				\
x##done:								\
	mfspr	r11, SPR_SPRG3;						\
	MISS_EXIT(SPR_SPRG0, SPR_SPRG1, SPR_SPRG2, SPR_SPRG4);		\
e500_##x##tlb_rfi:							\
	rfi;			/* retry the access */			\
x##leaf:			/* r11 = the leaf; r10 free from here */ \
	mfspr	r10, SPR_SPRG3;						\
	lwz	r9, MMU_RRNEXT_OFF(r10);	/* the victim */	\
	slwi	r9, r9, 16;	/* MAS0: TLB1, that ESEL */		\
	oris	r9, r9, 0x1000;						\
	mtspr	SPR_MAS0, r9;						\
	rlwinm	r9, r9, 16, 28, 31;	/* the victim again ... */	\
	addi	r9, r9, 1;	/* ... and the next: */			\
	lwz	r10, MMU_RRLIMIT_OFF(r10);	/* below AS1's RAM, */	\
	cmplw	r9, r10;						\
	mfspr	r10, SPR_SPRG3;						\
	blt+	2f;							\
	lwz	r9, MMU_RRFIRST_OFF(r10);	/* or the first unpinned */ \
2:	stw	r9, MMU_RRNEXT_OFF(r10);				\
	rlwinm	r9, r11, 32 - 4, 20, 23;	/* TSIZE to MAS1's place */ \
	oris	r9, r9, 0x8000;	/* V, TID 0, TS 0 */			\
	mtspr	SPR_MAS1, r9;						\
	rlwinm	r9, r11, 0, 0, 9;	/* EPN = RPN (1:1, 4M-aligned) */ \
	rlwimi	r9, r11, 32 - PTE_WIMGE_SHIFT, 27, 31;	/* | WIMGE */	\
	mtspr	SPR_MAS2, r9;						\
	rlwinm	r9, r11, 0, 0, 9;	/* RPN ... */			\
	rlwimi	r9, r11, 0, 26, 31;	/* ... | permissions */		\
	mtspr	SPR_MAS3, r9;						\
	li	r9, 0;							\
	mtspr	SPR_MAS7, r9;						\
	tlbwe;								\
	b	x##done;						\
x##fault:			/* CR, r9, r12 back; r10/r11 in SPRG0/1 */ \
	mtcrf	0xff, r12;						\
	mfspr	r9, SPR_SPRG4;						\
	mfspr	r12, SPR_SPRG2;						\
	li	r11, n;							\
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
	MISS_HANDLER(13, SPR_DEAR, MMU_DTLB_OFF, MMU_KDTLB_OFF, d)	/* data TLB miss (DEAR) */
	MISS_HANDLER(14, SPR_SRR0, MMU_ITLB_OFF, MMU_KITLB_OFF, i)	/* instruction TLB miss (SRR0) */
	STUB(15)		/* debug (critical on the e500v2) */
	STUB(32)		/* SPE unavailable */
	STUB(33)		/* SPE floating-point data */
	STUB(34)		/* SPE floating-point round */
	STUB(35)		/* performance monitor */

/*
 * The common path: r10/r11 of the interrupted code are in SPRG0/1, r11 =
 * the IVOR number.  Builds a struct e500_frame below the interrupted stack
 * pointer (or on the emergency stack when r1 is not inside our stack),
 * or, from problem state, below the kernel stack pointer user_enter left
 * in e500_user_ksp, whatever the user's r1 says),
 * calls e500_exception(frame), and if that returns, restores everything
 * and retries with rfi (only non-critical interrupts return).
 */
exc_common:
	mtspr	SPR_SPRG6, r11		/* the vector */
	mfmsr	r11			/* data through address space 1 (RAM */
	ori	r11, r11, MSR_DS	/* 1:1): the frame's stores and */
	mtmsr	r11			/* e500_user_ksp's load never miss */
	isync				/* before the first access */
	mfcr	r11			/* CR, before any compare */
	mtspr	SPR_SPRG7, r11
	mfspr	r11, SPR_SPRG6		/* the vector again: */
	cmplwi	r11, 12			/* critical ones (0, 1, 12, 15) have no */
	beq-	4f			/* fresh SRR1: r1 decides (cr0[eq] set) */
	clrrwi.	r10, r11, 1		/* 0 or 1: eq */
	beq-	4f
	cmplwi	r11, 15
	beq-	4f
	mfspr	r10, SPR_SRR1		/* the interrupted MSR: */
	andi.	r10, r10, MSR_PR	/* from problem state? then the kernel
					 * stack, not r1 */
4:	FRAME_CHOOSE(e500_exc_stack_top, e500_user_ksp)	/* r10 = the frame */
	FRAME_SAVE_GPRS
	FRAME_SAVE_SPECIAL
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
	FRAME_SAVE_CAUSE
	mfmsr	r0			/* C in address space 0 again: SRR0/1 */
	rlwinm	r0, r0, 0, ~MSR_DS	/* and SPRG0/1 are saved, so its own */
	mtmsr	r0			/* misses may nest from here */
	isync
	mr	r3, r10			/* e500_exception(frame) */
	bl	e500_exception		/* returns only to resume */
	mfmsr	r0			/* address space 1 again: no miss may */
	ori	r0, r0, MSR_DS		/* come between SRR0/1's restore and */
	mtmsr	r0			/* the rfi */
	isync
	FRAME_RESTORE
	rfi				/* retry, or go on (SRR1: DS as it was) */
	b	.
	.globl	e500_vectors_end	/* the pinned code ends here (the */
e500_vectors_end:			/* linker script pads to 4 KiB) */

/*
 * The MMU state block and the page directory, together so that one SPRG
 * (SPRG3 = directory) reaches both: the counters (struct mmu_counters,
 * mmu.h) and the large-page victim words lie just below the directory.
 */
	.section .bss.e500_mmu, "aw", @nobits
	.align	12
	.space	4096 - MMU_STATE_BYTES
	.globl	mmu_count, e500_mmu_state, e500_pgd
e500_mmu_state:
mmu_count:
	.space	MMU_STATE_BYTES
e500_pgd:
	.space	4096			/* the directory: 1024 words */
	.globl	e500_tlb0_victim
e500_tlb0_victim:
	.space	TLB0_SETS		/* each TLB0 set's next victim way */

	.section .bss.e500_exc_stack, "aw", @nobits
	.align	4
	.space	8192
	.globl	e500_exc_stack_top
e500_exc_stack_top:
