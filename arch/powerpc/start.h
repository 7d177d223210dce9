/*
 * The last steps of arch/ppc405's and arch/e500's start.S, the same on
 * both: with the loader's state kept and interrupts off, our own stack,
 * BSS cleared, then the arch's C entry(r3, r4, r5, r6, r7) with the
 * loader's r3..r7 (kept in r27..r31 meanwhile).  entry never returns.
 */
#ifndef POWERPC_START_H
#define POWERPC_START_H

#define START_C(entry)								\
	mr	r27, r3;		/* the loader's r3..r7, kept ... */	\
	mr	r28, r4;							\
	mr	r29, r5;							\
	mr	r30, r6;							\
	mr	r31, r7;		/* ... across the BSS clearing */	\
	lis	r1, __stack_top@ha;	/* our own stack */			\
	addi	r1, r1, __stack_top@l;						\
	li	r0, 0;								\
	stwu	r0, -16(r1);		/* a zero back chain ends stack traces */ \
	lis	r3, __bss_start@ha;	/* clear BSS, a word at a time (the */	\
	addi	r3, r3, __bss_start@l;	/* linker script aligns both ends) */	\
	lis	r4, __bss_end@ha;						\
	addi	r4, r4, __bss_end@l;						\
1:	cmplw	r3, r4;								\
	bge	2f;								\
	stw	r0, 0(r3);							\
	addi	r3, r3, 4;							\
	b	1b;								\
2:	mr	r3, r27;		/* entry(r3, r4, r5, r6, r7) */		\
	mr	r4, r28;							\
	mr	r5, r29;							\
	mr	r6, r30;							\
	mr	r7, r31;							\
	bl	entry;								\
3:	b	3b			/* never reached */

#endif
