/*
 * Entry for the e500: QEMU's own boot (-kernel without -bios) and U-Boot
 * bootm with a device tree (r3 = FDT, r6 = ePAPR magic, r7 = the size of
 * the initial mapping), or U-Boot go (r3 = argc, r4 = argv).  Book-E has
 * no real mode: we run in the loader's TLB1 entries (both map RAM 1:1)
 * until e500_entry sets our own.  Turns interrupts off, keeps what the
 * loader left, sets up our stack and BSS, then calls e500_entry() in C.
 */
#include "e500.h"
#include "../powerpc/start.h"

/* loader_regs offsets (struct e500_loader_regs) */
#define LR_R1		0
#define LR_R2		4
#define LR_LR		8
#define LR_MSR		12
#define LR_IVPR		16
#define LR_R13		20	/* r13..r31: 19 words */
#define LR_TCR		96
#define LR_BYTES	LOADER_REGS_BYTES	/* asserted in entry.c */

	.section .text.entry, "ax"
	.globl	_start
_start:
	/* Interrupts off first: U-Boot leaves MSR[EE] on with its
	 * decrementer ticking, which must not reach our vectors once IVPR
	 * moves.  Critical and debug interrupts too.  Machine checks
	 * (MSR[ME]) arch_init turns on once the vectors are ours: U-Boot's
	 * bootm leaves them off (arch_preboot_os). */
	mfmsr	r12			/* the loader's MSR, stored below */
	lis	r11, (MSR_EE | MSR_CE | MSR_DE)@h
	ori	r11, r11, (MSR_EE | MSR_CE | MSR_DE)@l
	andc	r11, r12, r11		/* EE, CE, DE off */
	mtmsr	r11
	isync

	/* Keep the loader's state: r1, r2, r13-r31, LR, MSR, IVPR, TCR. */
	lis	r11, loader_regs@ha
	addi	r11, r11, loader_regs@l
	stw	r12, LR_MSR(r11)	/* the loader's MSR */
	stw	r1, LR_R1(r11)		/* its stack */
	stw	r2, LR_R2(r11)		/* U-Boot's global data pointer */
	mflr	r0
	stw	r0, LR_LR(r11)		/* where go returns to */
	mfspr	r0, SPR_IVPR
	stw	r0, LR_IVPR(r11)	/* its vectors' base */
	stmw	r13, LR_R13(r11)	/* r13..r31 */

	/* No timer interrupts while we run: the decrementer's, FIT's and
	 * watchdog's enables and auto-reload off in TCR, the decrementer
	 * stopped at 0, then every pending status bit cleared (write 1 to
	 * clear).  The watchdog's period and reset control stay: TCR[WRC]
	 * cannot be cleared once set (E500CORERM 2.8.1), so watchdog.c
	 * services a watchdog the loader armed, as its decrementer tick did. */
	mfspr	r0, SPR_TCR
	stw	r0, LR_TCR(r11)		/* the loader's TCR */
	lis	r10, (TCR_WIE | TCR_DIE | TCR_FIE | TCR_ARE)@h
	andc	r0, r0, r10
	mtspr	SPR_TCR, r0
	li	r0, 0
	mtspr	SPR_DEC, r0		/* decrementer stopped */
	lis	r10, (TSR_ENW | TSR_WIS | TSR_DIS | TSR_FIS)@h
	mtspr	SPR_TSR, r10
	isync

	START_C(e500_entry)		/* stack, BSS, then C: never returns */

	.data
	.align	2
	.globl	loader_regs		/* entry.c, cpu.c read it */
loader_regs:
	.space	LR_BYTES
