/*
 * e500_tlb_switch(ram_mas1, ccsr_mas1, ccsr_mas2, ccsr_mas3, ccsr_mas7):
 * returns the ESEL of its AS1 stepping stone, or ~0 (nothing changed)
 * where tlbsx finds no TLB1 entry mapping this code.
 * from the loader's TLB to the boot translation, registers only (the
 * loader's entries that map our data and stack go away on the way).
 * Book-E has no real mode, so the entry we run in cannot simply be
 * rewritten: as Linux's head_fsl_booke.S does, we step over to address
 * space 1 on a temporary entry, rewrite address space 0 from there, and
 * come back.
 *
 *  1. tlbsx on our own address: which TLB1 entry we run in (cur); MAS1[V]
 *     clear is a miss (E500CORERM 12.4.3), TLB0 a place we cannot keep.
 *  2. Every other TLB1 entry written invalid (tlbwe ignores IPROT), TLB0
 *     flash-invalidated (MMUCSR0[TLB0_FI]).
 *  3. The stepping stone: ESEL_TEMP (14 if cur is 15), TS=1, RAM 1:1;
 *     rfi to the next instruction with MSR[IS,DS] = 1.
 *  4. In AS1: cur invalid, then ESEL_RAM (RAM 1:1, TS=0, IPROT) and
 *     ESEL_CCSR (the SoC's registers, I|G, IPROT) written.
 *  5. rfi back to AS0; the stepping stone's ESEL returned (tlb.c clears
 *     it, then writes RAM's other entries in AS0 and AS1).
 * msync before each tlbwe: earlier accesses complete under the old
 * translation (E500CORERM 12.4, as U-Boot's start.S does).
 * RAM entries: EPN 0, RPN 0, supervisor read/write/execute, M clear.
 */
#include "e500.h"

	.text
	.globl	e500_tlb_switch
e500_tlb_switch:
	mflr	r8			/* the caller's LR: bl below uses LR */
	mfmsr	r11			/* our MSR (IS = DS = 0) */
	mfspr	r0, SPR_PID
	slwi	r0, r0, 16		/* MAS6[SPID] = PID, SAS = 0 */
	mtspr	SPR_MAS6, r0
	bl	1f			/* LR = this address: where we run */
1:	mflr	r12
	tlbsx	0, r12			/* MAS0 = the entry that maps it */
	mfspr	r0, SPR_MAS1
	mfspr	r12, SPR_MAS0
	andis.	r0, r0, MAS1_V@h	/* found at all? */
	beq-	8f
	andis.	r0, r12, MAS0_TLBSEL1@h	/* in TLB1? */
	beq-	8f
	rlwinm	r12, r12, 16, 28, 31	/* cur = MAS0[ESEL] */

	/* 2. Every TLB1 entry but cur invalid. */
	li	r9, 0			/* esel */
	lis	r10, MAS0_TLBSEL1@h
2:	cmpw	r9, r12
	beq	3f			/* keep the one we run in */
	rlwimi	r10, r9, 16, 12, 15	/* MAS0 = TLB1, ESEL r9 */
	mtspr	SPR_MAS0, r10
	li	r0, 0
	mtspr	SPR_MAS1, r0		/* V = 0 */
	msync
	isync
	tlbwe
	isync
3:	addi	r9, r9, 1
	cmpwi	r9, 16
	blt	2b
	li	r0, 4			/* MMUCSR0[TLB0_FI]: flash-invalidate TLB0 */
	mtspr	SPR_MMUCSR0, r0
4:	mfspr	r0, SPR_MMUCSR0		/* done when the bit clears */
	andi.	r0, r0, 4
	bne	4b

	/* 3. The stepping stone in AS1, and over to it. */
	li	r9, ESEL_TEMP
	cmpwi	r12, ESEL_TEMP
	bne	5f
	li	r9, ESEL_TEMP - 1	/* cur is 15: use 14 */
5:	lis	r10, MAS0_TLBSEL1@h
	rlwimi	r10, r9, 16, 12, 15
	mtspr	SPR_MAS0, r10
	ori	r0, r3, MAS1_TS		/* the RAM entry's MAS1, in AS1, no IPROT */
	rlwinm	r0, r0, 0, 2, 0		/* clear IPROT (0x40000000) */
	mtspr	SPR_MAS1, r0
	li	r0, 0
	mtspr	SPR_MAS2, r0		/* EPN 0, WIMGE 0 */
	mtspr	SPR_MAS7, r0		/* RPN bits 32-35: 0 */
	li	r0, MAS3_SX | MAS3_SW | MAS3_SR
	mtspr	SPR_MAS3, r0		/* RPN 0, supervisor rwx */
	msync
	isync
	tlbwe
	isync
	ori	r0, r11, MSR_IS | MSR_DS
	mtspr	SPR_SRR1, r0		/* MSR in AS1 */
	bl	6f
6:	mflr	r10
	addi	r10, r10, 16		/* the instruction after rfi */
	mtspr	SPR_SRR0, r10
	rfi

	/* 4. In AS1: cur invalid, the boot translation written in AS0. */
	lis	r10, MAS0_TLBSEL1@h
	rlwimi	r10, r12, 16, 12, 15
	mtspr	SPR_MAS0, r10
	li	r0, 0
	mtspr	SPR_MAS1, r0		/* cur: V = 0 */
	msync
	isync
	tlbwe
	isync
	lis	r10, (MAS0_TLBSEL1 | MAS0_ESEL(ESEL_RAM))@h
	mtspr	SPR_MAS0, r10
	mtspr	SPR_MAS1, r3		/* V, IPROT, TID 0, TS 0, the size */
	li	r0, 0
	mtspr	SPR_MAS2, r0
	mtspr	SPR_MAS7, r0
	li	r0, MAS3_SX | MAS3_SW | MAS3_SR | MAS3_UX | MAS3_UW | MAS3_UR
	mtspr	SPR_MAS3, r0		/* supervisor and user rwx: mode real's user
					 * mode runs here (user.c), unprotected */
	msync
	isync
	tlbwe
	isync
	lis	r10, (MAS0_TLBSEL1 | MAS0_ESEL(ESEL_CCSR))@h
	mtspr	SPR_MAS0, r10
	mtspr	SPR_MAS1, r4		/* the CCSR entry */
	mtspr	SPR_MAS2, r5		/* its EPN, I|G */
	mtspr	SPR_MAS3, r6		/* its RPN's low bits, supervisor rw */
	mtspr	SPR_MAS7, r7		/* its RPN's bits 32-35 */
	msync
	isync
	tlbwe
	isync

	/* 5. Back to AS0; the stepping stone invalid. */
	mtspr	SPR_SRR1, r11
	bl	7f
7:	mflr	r10
	addi	r10, r10, 16
	mtspr	SPR_SRR0, r10
	rfi
	mr	r3, r9			/* the stepping stone's ESEL: tlb.c clears it */
	mtlr	r8			/* the caller's LR back */
	blr
8:	li	r3, -1			/* not in TLB1: nothing changed */
	mtlr	r8
	blr
