/*
 * The e500 stand-in's assembly (e500-uboot.c is the rest): the entry from
 * QEMU's own boot, the interrupt vectors (U-Boot has its own too), and
 * U-Boot go's call.  Registers are plain numbers: no -mregnames needed.
 */
#define SPRG0	272
#define SPRG1	273
#define MPIC_CPU0	0xffe60000	/* CCSR_VA + MPIC 0x40000 + CPU 0's page 0x20000 */
#define SHIM_BASE	0x05000000	/* the Makefile's -Ttext (_start is not first) */

	.section .text.start, "ax"
	.globl	_start
_start:
	/* QEMU leaves r1 at 16 MiB, in the image's probe memory: our stack
	 * goes just below the shim instead, where U-Boot's would be (the
	 * image keeps away from go's stack less 1 MiB).  r3 = QEMU's tree. */
	lis	1, SHIM_BASE@h
	li	0, 0
	stwu	0, -16(1)
	b	shim_main

/*
 * The vectors: IVPR is their 64 KiB page, each IVORn (E500CORERM 2.9.1.6:
 * bits 16-27, so 16 bytes apart) one stub.  The external input (IVOR4)
 * takes an MPIC interrupt (IACK, then EOI: MPC8544ERM "Interrupt
 * acknowledge"); every other vector reports itself and stops.
 */
#define STUB(n)	.p2align 4; mtspr SPRG0, 3; li 3, n; b shim_trap
	.text
	.p2align 4
	.globl	shim_vec
shim_vec:
	STUB(0); STUB(1); STUB(2); STUB(3)
	.p2align 4; b shim_ext
	STUB(5); STUB(6); STUB(7); STUB(8); STUB(9); STUB(10); STUB(11)
	STUB(12); STUB(13); STUB(14); STUB(15)
	STUB(32); STUB(33); STUB(34); STUB(35)

shim_trap:
	mfspr	4, 26			/* SRR0 */
	mfspr	5, 58			/* CSRR0: critical class (0, 10-12 with WIE, 15) */
	mfspr	6, 570			/* MCSRR0: machine check */
	bl	shim_unexpected		/* never returns */

shim_ext:
	mtspr	SPRG0, 3
	mtspr	SPRG1, 4
	lis	3, MPIC_CPU0@h
	lwz	4, 0xa0(3)		/* IACK: the vector, now in service */
	msync
	lis	3, ext_vector@ha
	stw	4, ext_vector@l(3)
	lis	3, ext_count@ha
	lwz	4, ext_count@l(3)
	addi	4, 4, 1			/* addi, lwz, stw: CR untouched */
	stw	4, ext_count@l(3)
	lis	3, MPIC_CPU0@h
	li	4, 0
	stw	4, 0xb0(3)		/* EOI */
	msync
	mfspr	4, SPRG1
	mfspr	3, SPRG0
	rfi

/*
 * shim_msr(msr): MSR = msr by rfi back to the caller.  QEMU 7.2's mtmsr
 * never changes MSR[ME] (target/ppc/translate.c gen_mtmsr masks ME, LE
 * and S out, a Book III-S rule); rfi takes all of SRR1.
 */
	.globl	shim_msr
shim_msr:
	mtspr	27, 3			/* SRR1 */
	mflr	0
	mtspr	26, 0			/* SRR0: our caller */
	rfi

/*
 * shim_call(entry, argc, argv, gd): U-Boot's go (cmd_boot.c do_go_exec):
 * entry(argc, argv) with gd in r2.  r13..r31 get known values
 * (0x5a0000nn) and are stored as they came back, with r1 and r2, in
 * regs_after; ours are restored from our frame whatever came back.
 */
	.globl	shim_call
shim_call:
	stwu	1, -112(1)
	mflr	0
	stw	0, 116(1)
	stmw	13, 8(1)		/* r13..r31: 8..83 */
	stw	2, 84(1)
	lis	11, saved_sp@ha
	stw	1, saved_sp@l(11)
	mtctr	3
	mr	3, 4
	mr	4, 5
	mr	2, 6
	.irp	n, 13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	lis	\n, 0x5a00
	ori	\n, \n, \n
	.endr
	bctrl
	lis	11, regs_after@ha
	addi	11, 11, regs_after@l
	stw	1, 0(11)
	stw	2, 4(11)
	stmw	13, 8(11)
	lis	11, saved_sp@ha
	lwz	1, saved_sp@l(11)
	lwz	2, 84(1)
	lmw	13, 8(1)
	lwz	0, 116(1)
	mtlr	0
	addi	1, 1, 112
	blr

	.section .note.GNU-stack, "", @progbits	/* no executable stack wanted */
