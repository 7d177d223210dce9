/*
 * e500_loader_return(status, esel, entries): back to U-Boot's go with its
 * TLB1, registers and MSR.  entries: the loader's 16 TLB1 entries as
 * tlb.c read them at entry (MAS1, MAS2, MAS3, MAS7 each); esel: an entry
 * holding RAM 1:1 in address space 1 that the loader left invalid.  As at
 * entry (tlbswitch.S), the entries we run in change from address space 1:
 *  1. MSR[IS,DS] = 1: we run on entry esel;
 *  2. every other TLB1 entry written as the loader had it, TLB0 emptied;
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

/* Write TLB1 entry `esel` (a register) from its record in `table`; r0, r7 scratch. */
#define WRITE_ENTRY(esel, table)					\
	lis	r0, MAS0_TLBSEL1@h;					\
	rlwimi	r0, esel, 16, 12, 15;	/* MAS0: TLB1, ESEL */		\
	mtspr	SPR_MAS0, r0;						\
	slwi	r7, esel, 4;		/* 16 bytes a record */		\
	add	r7, r7, table;						\
	lwz	r0, 0(r7);						\
	mtspr	SPR_MAS1, r0;						\
	lwz	r0, 4(r7);						\
	mtspr	SPR_MAS2, r0;						\
	lwz	r0, 8(r7);						\
	mtspr	SPR_MAS3, r0;						\
	lwz	r0, 12(r7);						\
	mtspr	SPR_MAS7, r0;						\
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
	li	r8, 0			/* 2. every entry but ours, as the loader had it */
1:	cmpw	r8, r12
	beq	2f
	WRITE_ENTRY(r8, r11)
2:	addi	r8, r8, 1
	cmpwi	r8, 16
	blt	1b
	li	r0, 4			/* TLB0 flash invalidate */
	mtspr	SPR_MMUCSR0, r0
3:	mfspr	r0, SPR_MMUCSR0
	andi.	r0, r0, 4
	bne	3b
	mtmsr	r10			/* 3. back to AS0: the loader's mapping */
	isync
	WRITE_ENTRY(r12, r11)		/* the stepping stone, as the loader had it */
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
