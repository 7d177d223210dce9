/*
 * e500_loader_return(status, esel, t): back to U-Boot's go with its TLB1,
 * TLB0, registers and MSR.  t: the loader's TLB entries as tlb.c read
 * them at entry (struct e500_loader_tlb: 16 TLB1 records, TLB0's count
 * and records, each MAS0..MAS3, MAS7); esel: an entry holding RAM 1:1 in
 * address space 1 that the loader left invalid, and the only valid entry
 * in AS1.  As at entry (tlbswitch.S), the entries we run in change from
 * address space 1:
 *  1. MSR[IS,DS] = 1: we run on entry esel;
 *  2. every other TLB1 entry invalid first, TLB0 emptied, then the
 *     loader's TLB1 entries and TLB0 entries written: never two valid
 *     entries for one address (E500CORERM 12.3.3: a multiple hit gives an
 *     undefined translation and no exception);
 *  3. MSR[IS,DS] = 0: we run on the loader's own RAM mapping (go ran us
 *     there); entry esel written as the loader had it (invalid);
 *  4. the loader's r1, r2, r13-r31, and rfi to its LR with its MSR.
 * Called with interrupts off, the loader's vectors and timers back.
 */
#include "e500.h"

#define LR_R1		0
#define LR_R2		4
#define LR_LR		8
#define LR_MSR		12
#define LR_R13		20
#define REC		20	/* struct e500_tlb_entry; tlb sizes asserted in entry.c */
#define T_N0		(16 * REC)
#define T_TLB0		(T_N0 + 4)

/* Write the TLB entry whose record r7 points at; r0 scratch. */
#define WRITE_RECORD							\
	lwz	r0, 0(r7);						\
	mtspr	SPR_MAS0, r0;						\
	lwz	r0, 4(r7);						\
	mtspr	SPR_MAS1, r0;						\
	lwz	r0, 8(r7);						\
	mtspr	SPR_MAS2, r0;						\
	lwz	r0, 12(r7);						\
	mtspr	SPR_MAS3, r0;						\
	lwz	r0, 16(r7);						\
	mtspr	SPR_MAS7, r0;						\
	msync;								\
	isync;								\
	tlbwe;								\
	isync

	.text
	.globl	e500_loader_return
e500_loader_return:
	mr	r9, r3			/* status, go's return code */
	mr	r12, r4			/* the AS1 entry we step on */
	mr	r11, r5			/* the loader's entries */
	mfmsr	r10			/* our MSR, IS = DS = 0 */
	ori	r0, r10, MSR_IS | MSR_DS
	mtmsr	r0			/* 1. over to address space 1 */
	isync
	li	r8, 0			/* 2. every entry but ours invalid */
1:	cmpw	r8, r12
	beq	2f
	lis	r0, MAS0_TLBSEL1@h
	rlwimi	r0, r8, 16, 12, 15	/* MAS0: TLB1, ESEL r8 */
	mtspr	SPR_MAS0, r0
	li	r0, 0
	mtspr	SPR_MAS1, r0		/* V = 0 (tlbwe ignores IPROT) */
	msync
	isync
	tlbwe
	isync
2:	addi	r8, r8, 1
	cmpwi	r8, 16
	blt	1b
	li	r0, 4			/* TLB0 flash invalidate */
	mtspr	SPR_MMUCSR0, r0
3:	mfspr	r0, SPR_MMUCSR0
	andi.	r0, r0, 4
	bne	3b
	li	r8, 0			/* then the loader's TLB1, but ours */
4:	cmpw	r8, r12
	beq	5f
	mulli	r7, r8, REC
	add	r7, r7, r11
	WRITE_RECORD
5:	addi	r8, r8, 1
	cmpwi	r8, 16
	blt	4b
	lwz	r8, T_N0(r11)		/* and its TLB0 */
	addi	r7, r11, T_TLB0
	cmpwi	r8, 0
	beq	7f
	mtctr	r8
6:	WRITE_RECORD
	addi	r7, r7, REC
	bdnz	6b
7:	mtmsr	r10			/* 3. back to AS0: the loader's mapping */
	isync
	mulli	r7, r12, REC		/* the stepping stone, as the loader had it */
	add	r7, r7, r11
	WRITE_RECORD
	lis	r12, loader_regs@ha	/* 4. the loader's registers */
	addi	r12, r12, loader_regs@l
	lwz	r1, LR_R1(r12)		/* its stack */
	lwz	r2, LR_R2(r12)		/* its global data */
	lmw	r13, LR_R13(r12)	/* r13..r31 */
	lwz	r0, LR_LR(r12)
	mtlr	r0			/* for anyone unwinding */
	mtspr	SPR_SRR0, r0		/* rfi returns to go's caller ... */
	lwz	r0, LR_MSR(r12)
	mtspr	SPR_SRR1, r0		/* ... with the loader's MSR */
	mr	r3, r9			/* the status */
	rfi
