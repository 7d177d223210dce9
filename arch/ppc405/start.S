/*
 * Entry for the PowerPC 405: U-Boot bootm and QEMU -kernel (r3 = bd_t,
 * r6/r7 = command line start/end) and U-Boot go (r3 = argc, r4 = argv).
 * Turns interrupts off, keeps what we need to return to U-Boot, sets up
 * our stack and BSS, then calls ppc405_entry() in C.
 */
#include "../powerpc/start.h"

#define SPR_TSR		984
#define SPR_TCR		986
#define SPR_PIT		987
#define SPR_EVPR	982
#define SPR_DCCR	1018
#define SPR_ICCR	1019
#define SPR_DCWR	954
#define SPR_SGR		953
#define SPR_CCR0	947

/* loader_regs offsets (entry.c and cache.c read some of them) */
#define LR_R1		0
#define LR_R2		4
#define LR_LR		8
#define LR_MSR		12
#define LR_EVPR		16
#define LR_R13		20	/* r13..r31: 19 words */
#define LR_TCR		96
#define LR_DCCR		100
#define LR_ICCR		104
#define LR_DCWR		108
#define LR_SGR		112
#define LR_CCR0		116
#define LR_BYTES	120

	.section .text.entry, "ax"
	.globl	_start
_start:
	b	entry			/* image offset 0; vectors start at 0x100 */

	.text
entry:
	/* Interrupts off first: U-Boot's go leaves MSR[EE] on with a live
	 * 1 ms PIT tick, which must not reach our vectors once EVPR moves.
	 * Debug interrupts too: a debugger's (or firmware's) DBCR0 events
	 * would land at our 0x2000 as unexpected exceptions. */
	mfmsr	r12			/* U-Boot's MSR, stored below */
	rlwinm	r11, r12, 0, 17, 15	/* clear MSR[EE] (0x8000) */
	rlwinm	r11, r11, 0, 15, 13	/* clear MSR[CE] (0x20000) */
	rlwinm	r11, r11, 0, 23, 21	/* clear MSR[DE] (0x200) */
	mtmsr	r11
	isync

	/* Keep U-Boot's state for exit=return: r1, r2, r13-r31, LR, MSR,
	 * EVPR, TCR and the cache control registers. */
	lis	r11, loader_regs@ha
	addi	r11, r11, loader_regs@l
	stw	r12, LR_MSR(r11)	/* U-Boot's MSR, EE as it was */
	stw	r1, LR_R1(r11)		/* U-Boot's stack */
	stw	r2, LR_R2(r11)		/* U-Boot 2.x's global data pointer */
	mflr	r0
	stw	r0, LR_LR(r11)		/* where 'go' returns to */
	mfspr	r0, SPR_EVPR
	stw	r0, LR_EVPR(r11)	/* U-Boot's vectors */
	stmw	r13, LR_R13(r11)	/* r13..r31 (r29: U-Boot 1.x's gd) */
	mfspr	r0, SPR_DCCR
	stw	r0, LR_DCCR(r11)	/* data cacheable regions */
	mfspr	r0, SPR_ICCR
	stw	r0, LR_ICCR(r11)	/* instruction cacheable regions */
	mfspr	r0, SPR_DCWR
	stw	r0, LR_DCWR(r11)	/* write-through regions */
	mfspr	r0, SPR_SGR
	stw	r0, LR_SGR(r11)		/* guarded regions */
	mfspr	r0, SPR_CCR0
	stw	r0, LR_CCR0(r11)	/* allocation on misses (cache.c clears LWOA/SWOA) */

	/* No timer interrupts while we run: TCR's PIT, FIT and watchdog
	 * interrupt enables off (periods, auto-reload and the watchdog's
	 * reset setting stay: WRC cannot be cleared), then clear the
	 * pending status bits.  The PIT keeps counting for U-Boot. */
	mfspr	r0, SPR_TCR
	stw	r0, LR_TCR(r11)		/* U-Boot's TCR */
	lis	r10, 0x0c80		/* WIE 0x08000000 | PIE 0x04000000 | FIE 0x00800000 */
	andc	r0, r0, r10
	mtspr	SPR_TCR, r0
	lis	r10, 0x4c00		/* TSR: WIS | PIS | FIS, write 1 to clear */
	mtspr	SPR_TSR, r10
	isync

	START_C(ppc405_entry)		/* stack, BSS, then C: never returns */

/*
 * ppc405_dcache_flush_all(bytes): write back and drop every line of the
 * data cache.  Loads from 0 over `bytes` (twice the cache) fill each
 * congruence class with our lines, casting out whatever was there (LRU);
 * dcbf then writes those back and invalidates them.  Stores nothing, so
 * no line is dirty when it returns.  Translation off, RAM cacheable.
 */
	.globl	ppc405_dcache_flush_all
ppc405_dcache_flush_all:
	srwi	r4, r3, 5		/* 32-byte lines */
	mtctr	r4
	li	r5, 0
1:	lwz	r0, 0(r5)		/* allocate: casts out the older line */
	addi	r5, r5, 32
	bdnz	1b
	mtctr	r4
	li	r5, 0
2:	dcbf	0, r5			/* write back if dirty, invalidate */
	addi	r5, r5, 32
	bdnz	2b
	sync				/* the cast-outs have reached memory */
	blr

/*
 * ppc405_return_to_loader(status): back to U-Boot's 'go' with its
 * registers, vectors, timers, caches and, last, its MSR as they were.
 * Called with translation and interrupts off.
 */
	.globl	ppc405_return_to_loader
ppc405_return_to_loader:
	mr	r9, r3			/* status, kept in r9 (the flush leaves it) */
	lis	r3, ppc405_dcache_flush_bytes@ha
	lwz	r3, ppc405_dcache_flush_bytes@l(r3)
	bl	ppc405_dcache_flush_all	/* nothing dirty from here on: no stores */
	lis	r12, loader_regs@ha
	addi	r12, r12, loader_regs@l
	lwz	r0, LR_SGR(r12)
	mtspr	SPR_SGR, r0		/* U-Boot's guarded regions back */
	lwz	r0, LR_DCWR(r12)
	mtspr	SPR_DCWR, r0		/* its write-through regions */
	lwz	r0, LR_DCCR(r12)
	mtspr	SPR_DCCR, r0		/* its data cacheable regions */
	lwz	r0, LR_ICCR(r12)
	mtspr	SPR_ICCR, r0		/* its instruction cacheable regions */
	/* Drop the (clean) lines our settings cached, so none is left in a
	 * region U-Boot has uncached: dccci per congruence class over the
	 * same span, iccci the whole instruction cache. */
	lis	r3, ppc405_dcache_flush_bytes@ha
	lwz	r3, ppc405_dcache_flush_bytes@l(r3)
	srwi	r3, r3, 5
	mtctr	r3
	li	r5, 0
1:	dccci	0, r5			/* invalidate both ways of this class */
	addi	r5, r5, 32
	bdnz	1b
	iccci	0, r5			/* the whole instruction cache */
	sync
	isync
	lwz	r0, LR_CCR0(r12)
	mtspr	SPR_CCR0, r0		/* its LWOA/SWOA back, after the load-based flush */
	isync
	lwz	r0, LR_TCR(r12)
	mtspr	SPR_TCR, r0		/* its timer interrupt enables back */
	lis	r3, ppc405_loader_pit@ha
	lwz	r3, ppc405_loader_pit@l(r3)	/* its tick's period, measured at entry */
	cmpwi	r3, 0			/* 0: it had no auto-reloading tick */
	beq	4f
	mtspr	SPR_PIT, r3		/* after TCR: QEMU 7.2 restarts the PIT only here */
4:
	lwz	r0, LR_EVPR(r12)
	mtspr	SPR_EVPR, r0		/* its vectors back */
	isync
	lwz	r1, LR_R1(r12)		/* U-Boot's stack */
	lwz	r2, LR_R2(r12)		/* its gd (2.x) */
	lmw	r13, LR_R13(r12)	/* r13..r31 (r29: gd in 1.x) */
	mr	r3, r9			/* status is go's return code */
	lwz	r0, LR_LR(r12)
	mtlr	r0			/* blr target, for anyone unwinding */
	mtsrr0	r0			/* rfi returns to go's caller ... */
	lwz	r0, LR_MSR(r12)
	mtsrr1	r0			/* ... with U-Boot's MSR, EE and DE included */
	rfi				/* MSR and PC in one step: interrupts on only there */

	.data
	.align	2
	.globl	loader_regs		/* entry.c, cache.c, cpu.c read it */
loader_regs:
	.space	LR_BYTES
