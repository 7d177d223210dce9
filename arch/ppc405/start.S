/*
 * Entry for the PowerPC 405: U-Boot bootm and QEMU -kernel (r3 = bd_t,
 * r6/r7 = command line start/end) and U-Boot go (r3 = argc, r4 = argv).
 * Sets up our stack and BSS, keeps what we need to return to U-Boot, then
 * calls ppc405_entry() in C.
 */
	.section .text.entry, "ax"
	.globl	_start
_start:
	b	entry			/* image offset 0; vectors start at 0x100 */

	.text
entry:
	/* Keep U-Boot's non-volatile state for exit=return (r1, r2, r13-r31, LR, MSR). */
	lis	r12, loader_regs@ha
	addi	r12, r12, loader_regs@l
	stw	r1, 0(r12)		/* U-Boot's stack */
	stw	r2, 4(r12)		/* U-Boot's global data pointer */
	mflr	r0
	stw	r0, 8(r12)		/* where 'go' returns to */
	mfmsr	r0
	stw	r0, 12(r12)		/* U-Boot's MSR */
	mfspr	r0, 982
	stw	r0, 16(r12)		/* U-Boot's EVPR */
	stmw	r13, 20(r12)		/* r13..r31 */

	/* Keep the loader's r3-r7 in non-volatile registers across BSS clearing. */
	mr	r27, r3
	mr	r28, r4
	mr	r29, r5
	mr	r30, r6
	mr	r31, r7

	/* Our own stack; a zero back chain ends stack traces. */
	lis	r1, __stack_top@ha
	addi	r1, r1, __stack_top@l
	li	r0, 0
	stwu	r0, -16(r1)

	/* Clear BSS, a word at a time (the linker script aligns both ends). */
	lis	r3, __bss_start@ha
	addi	r3, r3, __bss_start@l
	lis	r4, __bss_end@ha
	addi	r4, r4, __bss_end@l
1:	cmplw	r3, r4
	bge	2f
	stw	r0, 0(r3)
	addi	r3, r3, 4
	b	1b

	/* ppc405_entry(r3, r4, r5, r6, r7) never returns. */
2:	mr	r3, r27
	mr	r4, r28
	mr	r5, r29
	mr	r6, r30
	mr	r7, r31
	bl	ppc405_entry
3:	b	3b

/*
 * ppc405_return_to_loader(status): back to U-Boot's 'go' with its
 * registers, MSR and vectors as they were.  Called with translation off.
 */
	.globl	ppc405_return_to_loader
ppc405_return_to_loader:
	lis	r12, loader_regs@ha
	addi	r12, r12, loader_regs@l
	lwz	r0, 16(r12)
	mtspr	982, r0			/* U-Boot's EVPR back */
	lwz	r0, 12(r12)
	mtmsr	r0			/* U-Boot's MSR back */
	isync
	lwz	r1, 0(r12)		/* U-Boot's stack */
	lwz	r2, 4(r12)		/* U-Boot's gd */
	lwz	r0, 8(r12)
	mtlr	r0
	lmw	r13, 20(r12)		/* r13..r31 */
	blr				/* r3 = status is go's return code */

	.data
	.align	2
	.globl	loader_regs		/* entry.c reads U-Boot's r2 (gd) from it */
loader_regs:
	.space	20 + 19 * 4
