/*
 * PowerPC 405 exception vectors.  Each vector's code is kept here compactly
 * (section .vectors) with a table of (EVPR offset, code, length); at start-up
 * arch_init() copies every piece to its offset in __evpr_area, a 64 KiB-
 * aligned block the linker script reserves past the heap, and points EVPR
 * there.  The image so carries ~1.5 KiB of vector code instead of 8 KiB of
 * mostly empty vector space.  Pieces reach the shared code with absolute
 * branches (ba: the image lies below 32 MiB) and branch relatively only
 * inside themselves, so they run unchanged wherever they are copied.
 *
 *  - The data and instruction TLB miss vectors hold the fast path: walk the
 *    two-level page table (ppc405.h "Page table"), write one TLB entry, count
 *    the miss, rfi.  No PTE: the slow path, into C (a page fault).
 *  - Every other vector saves the whole state in a frame and calls
 *    ppc405_exception() in C, which either resumes (a fault a probe expected)
 *    or prints a register dump and ends the run.
 *
 * SPRG use: SPRG0/1 = r10/r11 of any vector; SPRG2/4 = r12/r9 of the miss
 * fast paths; SPRG3 = the page directory (the state block lies below it);
 * SPRG5 = the next TLB victim slot; SPRG6/7 = vector number and CR in the
 * common path.  All eight are taken: the kernel stack for exceptions taken
 * in problem state (user mode, user_mode.S) is a word in memory instead,
 * ppc405_user_ksp, which the common path reads by its absolute address
 * (translation is off there, and the image lies 1:1).
 */
#include "ppc405.h"
#include "../powerpc/miss_exit.h"

#define SPRG0	272
#define SPRG1	273
#define SPRG2	274
#define SPRG3	275
#define SPRG4	276
#define SPRG5	277
#define SPRG6	278
#define SPRG7	279

/* One table entry: EVPR offset, start, length in bytes (at most 0x100,
 * or 0x10 at 0x1000/0x1010 where the next vector follows 16 bytes on). */
#define PIECE(off, start, end, room)					\
	.if (end) - (start) > (room);					\
	.error "vector piece too long for its slot";			\
	.endif;								\
	.pushsection .rodata.ppc405_vector_table, "a";			\
	.long	off, start, (end) - (start);				\
	.popsection

/* A vector that goes straight to the common path with its number. */
#define VECTOR(off)							\
1:	mtspr	SPRG0, r10;	/* free r10 */				\
	mtspr	SPRG1, r11;	/* free r11 */				\
	li	r11, off;	/* which vector */			\
	ba	exc_common;	/* save all, call C */			\
2:	PIECE(off, 1b, 2b, 0x10)

	.pushsection .rodata.ppc405_vector_table, "a"
	.align	2
	.globl	ppc405_vector_table
ppc405_vector_table:
	.popsection

	.section .vectors, "ax"
	VECTOR(0x0100)		/* critical input */
	VECTOR(0x0200)		/* machine check */
	VECTOR(0x0300)		/* data storage: protection fault, zone fault */
	VECTOR(0x0400)		/* instruction storage: no-execute page */
	VECTOR(0x0500)		/* external interrupt */
	VECTOR(0x0600)		/* alignment */
	VECTOR(0x0700)		/* program: illegal instruction, trap, privileged */
	VECTOR(0x0800)		/* floating point unavailable */
	VECTOR(0x0900)		/* reserved on the 405 */
	VECTOR(0x0a00)		/* reserved */
	VECTOR(0x0b00)		/* reserved */
	VECTOR(0x0c00)		/* system call */
	VECTOR(0x0d00)		/* reserved */
	VECTOR(0x0e00)		/* reserved */
	VECTOR(0x0f00)		/* APU unavailable */
	VECTOR(0x1000)		/* programmable interval timer (4 instructions fit) */
	VECTOR(0x1010)		/* fixed interval timer */
	VECTOR(0x1020)		/* watchdog timer */

/*
 * The TLB miss fast path, for DTLB (address in DEAR) and ITLB (address in
 * SRR0).  Page table: SPRG3 = directory, 1024 words, one per 4 MiB.  A
 * directory word is either a leaf (a large page: TLBLO format, zone field
 * odd) or the address of a 4 KiB table of 1024 PTEs; an empty region points
 * at an all-zero table.  A PTE is the TLBLO word itself, its zone field
 * holding 2*SIZE+1: rotated left by 2 it gives TLBHI's SIZE and V bits, so
 * one rlwimi builds TLBHI.  0 means no mapping.  The zone number carries
 * the size, and with it the user/kernel split: ZPR gives every zone but
 * zone 1 the field 00 (problem state: no access; supervisor: EX/WR of the
 * entry), zone 1 the field 01 (both states: EX/WR).  Zone 1 is the user
 * zone (MMU_USER pages): it would say SIZE 0 (1K), so the handler sets
 * SIZE 4K for every page of the user window [MMU_SPACE_BASE, +16M), which
 * holds 4K PTEs only.  Everything else (the image, stacks, tables, pinned
 * entries, large pages) lies in odd zones 3..15: kernel only.
 *
 * Kernel misses (an address outside the window) are counted apart as well
 * (MMU_KITLB_OFF/MMU_KDTLB_OFF).  What the split costs on the fast path:
 * 7 instructions on a kernel page (window test 2, the branch over the
 * count 1, the count 3, the branch over the size fix 1), 5 on a user page
 * (window test 2, the taken branch 1, the size-fix branch and ori 2).
 *
 * Victim: SPRG5 counts down from the top unpinned slot (round robin over the
 * slots below the pinned ones); below 0 it wraps.  With tlbrepl=random SPRG5
 * holds 0xC0000000 | slot (tlbwe uses only the low 6 bits of the index), so
 * every decrement stays negative and the wrap code picks a new random slot.
 */
#define MISS_FAST_PATH(addr_spr, count_off, kcount_off, user, sized, wrap, fault, leaf, back, crf, tag, untag, tail) \
	mtspr	SPRG0, r10;	/* free r10 */					\
	mtspr	SPRG1, r11;	/* free r11 */					\
	mtspr	SPRG2, r12;	/* free r12 */					\
	mtspr	SPRG4, r9;	/* free r9 */					\
	mfcr	r12;		/* CR, put back at the end */			\
	mfspr	r10, addr_spr;	/* the address that missed */			\
	mfspr	r11, SPRG3;	/* the directory; counters lie below it */	\
	lwz	r9, count_off(r11);	/* count this miss */			\
	addi	r9, r9, 1;							\
	stw	r9, count_off(r11);						\
	rlwinm	r9, r10, 8, 24, 31;	/* its 16 MiB */			\
	cmplwi	cr1, r9, PPC405_WINDOW_TOP8;	/* the user window's? */	\
	beq-	cr1, user;	/* yes: not a kernel miss */			\
	lwz	r9, kcount_off(r11);	/* a kernel page: count it apart */	\
	addi	r9, r9, 1;							\
	stw	r9, kcount_off(r11);						\
user:	rlwimi	r11, r10, 12, 20, 29;	/* &directory[addr >> 22] */		\
	lwz	r11, 0(r11);	/* directory word */				\
	mtcrf	crf, r11;	/* CR6 = its zone field; bit 27 = leaf */	\
	tag								\
	bt	27, leaf;	/* a large page: it is the TLBLO */		\
	rlwimi	r11, r10, 22, 20, 29;	/* &table[(addr >> 12) & 1023] */	\
	lwz	r11, 0(r11);	/* the PTE = TLBLO */				\
	mtcrf	0x02, r11;	/* zone field again */				\
	bf	27, fault;	/* no leaf: page fault, slow path */		\
leaf:	rlwinm	r10, r10, 0, 0, 19;	/* EPN: the address's 4K page */	\
	rlwimi	r10, r11, 2, 22, 25;	/* SIZE and V from the zone field */	\
	bne+	cr1, sized;	/* outside the window: that SIZE is right */	\
	ori	r10, r10, 0x80;	/* window: 4K (the user zone says 1K) */	\
sized:	mfspr	r9, SPRG5;	/* victim slot */				\
	tlbwe	r11, r9, 1;	/* TLBLO first (QEMU: LO clears V) */		\
	tlbwe	r10, r9, 0;	/* TLBHI: the entry is valid from here */	\
	addi	r9, r9, -1;	/* round robin, downwards */			\
	cmpwi	r9, 0;								\
	blt-	wrap;		/* below slot 0, or random policy */		\
back:	mtspr	SPRG5, r9;	/* next victim */				\
	mfspr	r11, SPRG3;							\
	untag								\
	MISS_EXIT(SPRG0, SPRG1, SPRG2, SPRG4);					\
	rfi;			/* retry the access */				\
	tail

/* The plain handlers: every entry takes TID = PID, which stays 0.  The
 * tagged ones (installed while address spaces with PID tags exist): the
 * kernel part gets TID 0, shared by every space; a space's window
 * (directory word marked DIR_PRIVATE, which mtcrf 0x03 puts in CR7 bit
 * 28, where no leaf has a bit: W is never set) gets its PID.  Afterwards
 * PID is the space's again (the slow path: exceptions.c puts it back).
 * The tagged pieces fill their 0x100 bytes exactly: no "b ." after rfi
 * there, where the next words are our own code anyway. */
#define TAG_NONE
#define TAG_KERNEL_TID0							\
	bt	28, 1f;		/* the space's window: keep its PID */		\
	li	r9, 0;								\
	mtspr	SPR_PID, r9;	/* kernel part: TID 0 */			\
1:
#define TAG_PID_BACK							\
	lwz	r10, MMU_PID_OFF(r11);	/* the space's PID ... */		\
	mtspr	SPR_PID, r10;	/* ... back */

/* Wrap of the victim counter: round robin restarts at the top unpinned
 * slot; random draws a slot (xorshift32, scaled by mulhwu into 0..n-1).
 * r10/r11 are free here (the entry is written). */
#define VICTIM_WRAP(back)							\
	mfspr	r11, SPRG3;							\
	cmpwi	r9, -1;		/* exactly -1: round robin wrapped */		\
	bne	3f;								\
	lwz	r9, MMU_RRTOP_OFF(r11);	/* top unpinned slot */			\
	b	back;								\
3:	lwz	r10, MMU_RAND_OFF(r11);	/* xorshift32 state */			\
	slwi	r9, r10, 13;							\
	xor	r10, r10, r9;							\
	srwi	r9, r10, 17;							\
	xor	r10, r10, r9;							\
	slwi	r9, r10, 5;							\
	xor	r10, r10, r9;							\
	stw	r10, MMU_RAND_OFF(r11);						\
	lwz	r9, MMU_NSLOTS_OFF(r11);	/* unpinned slots */		\
	mulhwu	r9, r10, r9;	/* 0 .. nslots-1 */				\
	oris	r9, r9, 0xc000;	/* stays negative: random again next time */	\
	b	back

/* No PTE: put r9, r12 and CR back (r10/r11 stay in SPRG0/1, as the common
 * path expects) and take the common path as vector `vec`. */
#define MISS_SLOW_PATH(vec)							\
	mtcrf	0xff, r12;	/* CR back */					\
	mfspr	r9, SPRG4;	/* r9 back */					\
	mfspr	r12, SPRG2;	/* r12 back */					\
	li	r11, vec;	/* which vector */				\
	ba	exc_common

/* The miss vectors: fast path and slow exit in one piece each; the victim
 * wrap (taken once per round of the victim counter, or on every miss with
 * tlbrepl=random) in a piece of its own past the vectors (0x2100..0x2400 of
 * the EVPR area), so that the tagged pieces fit their 0x100 bytes.  Both
 * branch between the copies: a target written as "this piece's start +
 * (the other copy's offset - this copy's offset)" is where the other copy
 * lies, relative to this one, once both are at their offsets. */
#define TO_COPY(start, from, to)	((start) + ((to) - (from)))

/* A victim wrap's piece at EVPR offset `off`, back to `back` in the copy at
 * miss_off of the handler that starts at `miss`. */
#define WRAP_PIECE(wrap, off, miss, miss_off, back)				\
wrap:	VICTIM_WRAP(TO_COPY(wrap, off, miss_off) + ((back) - (miss)));		\
wrap##_end:									\
	PIECE(off, wrap, wrap##_end, 0x100)

	.globl	ppc405_dtlb_miss, ppc405_dtlb_rfi
ppc405_dtlb_miss:				/* data TLB miss, 0x1100 */
	MISS_FAST_PATH(SPR_DEAR, MMU_DTLB_OFF, MMU_KDTLB_OFF, dtlb_user, dtlb_sized,
		       TO_COPY(ppc405_dtlb_miss, 0x1100, 0x2100), dtlb_fault, dtlb_leaf, dtlb_back,
		       0x02, TAG_NONE, TAG_NONE, b .)
	.equ	ppc405_dtlb_rfi, . - 8	/* the rfi, for the path-length count */
dtlb_fault:
	MISS_SLOW_PATH(0x1100)
dtlb_end:
	PIECE(0x1100, ppc405_dtlb_miss, dtlb_end, 0x100)

ppc405_itlb_miss:				/* instruction TLB miss, 0x1200 */
	MISS_FAST_PATH(SPR_SRR0, MMU_ITLB_OFF, MMU_KITLB_OFF, itlb_user, itlb_sized,
		       TO_COPY(ppc405_itlb_miss, 0x1200, 0x2200), itlb_fault, itlb_leaf, itlb_back,
		       0x02, TAG_NONE, TAG_NONE, b .)
itlb_fault:
	MISS_SLOW_PATH(0x1200)
itlb_end:
	PIECE(0x1200, ppc405_itlb_miss, itlb_end, 0x100)

/* The tagged pair: not copied at start-up (offset + 0x10000), swapped in
 * by ppc405_install_miss_handlers() while tagged spaces exist. */
	.globl	ppc405_dtlb_miss_tagged, ppc405_dtlb_rfi_tagged
ppc405_dtlb_miss_tagged:
	MISS_FAST_PATH(SPR_DEAR, MMU_DTLB_OFF, MMU_KDTLB_OFF, tdtlb_user, tdtlb_sized,
		       TO_COPY(ppc405_dtlb_miss_tagged, 0x1100, 0x2300), tdtlb_fault, tdtlb_leaf,
		       tdtlb_back, 0x03, TAG_KERNEL_TID0, TAG_PID_BACK, )
	.equ	ppc405_dtlb_rfi_tagged, . - 4
tdtlb_fault:
	MISS_SLOW_PATH(0x1100)
tdtlb_end:
	PIECE(0x11100, ppc405_dtlb_miss_tagged, tdtlb_end, 0x100)

ppc405_itlb_miss_tagged:
	MISS_FAST_PATH(SPR_SRR0, MMU_ITLB_OFF, MMU_KITLB_OFF, titlb_user, titlb_sized,
		       TO_COPY(ppc405_itlb_miss_tagged, 0x1200, 0x2400), titlb_fault, titlb_leaf,
		       titlb_back, 0x03, TAG_KERNEL_TID0, TAG_PID_BACK, )
titlb_fault:
	MISS_SLOW_PATH(0x1200)
titlb_end:
	PIECE(0x11200, ppc405_itlb_miss_tagged, titlb_end, 0x100)

/* The four victim wraps, each back to its own handler's copy. */
	WRAP_PIECE(dtlb_wrap, 0x2100, ppc405_dtlb_miss, 0x1100, dtlb_back)
	WRAP_PIECE(itlb_wrap, 0x2200, ppc405_itlb_miss, 0x1200, itlb_back)
	WRAP_PIECE(tdtlb_wrap, 0x2300, ppc405_dtlb_miss_tagged, 0x1100, tdtlb_back)
	WRAP_PIECE(titlb_wrap, 0x2400, ppc405_itlb_miss_tagged, 0x1200, titlb_back)

	VECTOR(0x1300)		/* 0x1300..0x1f00: reserved on the 405 */
	VECTOR(0x1400)
	VECTOR(0x1500)
	VECTOR(0x1600)
	/* 0x1700: Linux's CONFIG_IBM405_ERR51 sends this vector to the data
	 * TLB miss handler on the 405GP (read, not checked on hardware; QEMU
	 * never raises it).  A relative branch: both sit in the EVPR area. */
1:	b	1b - 0x1700 + 0x1100	/* to the DTLB miss vector's copy */
2:	PIECE(0x1700, 1b, 2b, 0x10)
	VECTOR(0x1800)
	VECTOR(0x1900)
	VECTOR(0x1a00)
	VECTOR(0x1b00)
	VECTOR(0x1c00)
	VECTOR(0x1d00)
	VECTOR(0x1e00)
	VECTOR(0x1f00)
	VECTOR(0x2000)		/* debug */

	.pushsection .rodata.ppc405_vector_table, "a"
	.globl	ppc405_vector_table_end
ppc405_vector_table_end:
	.popsection

	.text
/*
 * The common path: r10/r11 of the interrupted code are in SPRG0/1, r11 =
 * the vector.  Builds a struct ppc405_frame below the interrupted stack
 * pointer (or on the emergency stack when r1 is not inside our stack; or,
 * from problem state, below the kernel stack pointer user_enter left in
 * ppc405_user_ksp, whatever the user's r1 says),
 * calls ppc405_exception(frame) with translation off (as the CPU left it),
 * and if that returns, restores everything and retries with rfi.
 */
exc_common:
	mtspr	SPRG6, r11		/* the vector */
	mfcr	r11			/* CR, before any compare */
	mtspr	SPRG7, r11		/* CR */
	mfspr	r10, SPR_SRR1		/* the interrupted MSR: */
	andi.	r10, r10, MSR_PR	/* from problem state? then the kernel
					 * stack, not r1 (a critical exception's
					 * stale SRR1 may say so outside
					 * user_enter, then ksp = 0) */
	FRAME_CHOOSE(ppc405_exc_stack_top, ppc405_user_ksp)	/* r10 = the frame */
	FRAME_SAVE_GPRS
	FRAME_SAVE_SPECIAL
	mfspr	r0, SPR_SRR2		/* the same for critical exceptions */
	stw	r0, F_SRR2(r10)
	mfspr	r0, SPR_SRR3
	stw	r0, F_SRR3(r10)
	FRAME_SAVE_CAUSE
	mr	r3, r10			/* ppc405_exception(frame) */
	bl	ppc405_exception	/* returns only to resume */
	FRAME_RESTORE
	rfi				/* retry the faulting access */
	b	.				/* no prefetch past rfi */

/*
 * The MMU state block and the page directory, together so that one SPRG
 * (SPRG3 = directory) reaches both: the counters (struct mmu_counters,
 * mmu.h) and the victim policy words lie just below the directory.
 */
	.section .bss.ppc405_mmu, "aw", @nobits
	.align	12
	.space	4096 - MMU_STATE_BYTES
	.globl	mmu_count, ppc405_mmu_state, ppc405_pgd
ppc405_mmu_state:
mmu_count:
	.space	MMU_STATE_BYTES		/* counters, rr top, random state, slots */
ppc405_pgd:
	.space	4096			/* the directory: 1024 words */

	.section .bss.ppc405_exc_stack, "aw", @nobits
	.align	4
	.space	8192
	.globl	ppc405_exc_stack_top
ppc405_exc_stack_top:
