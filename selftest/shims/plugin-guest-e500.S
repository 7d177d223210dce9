/* A guest for test_plugin_e500.py: accesses whose effect on the e500v2
 * model is known by hand, between the region markers of include/mark.h
 * (the `mark` macro below).  QEMU -kernel enters at _start in
 * its own boot translation (one TLB1 entry over low RAM); the end is a
 * core reset (DBCR0[RST]), which QEMU -no-reboot turns into its exit.
 *
 * Region 1, real (the L1VSP's one large page): nine lines 4 KiB apart
 * fill one set of the 32 KiB 8-way D-cache and the ninth evicts way 0
 * (line 0); line 0 again misses and takes way 4 (the tree's choice),
 * line 1 still hits (true LRU would have evicted it), line 4 misses.
 * Region 2, translated (4 KiB pages, L1TLB4K: pages 16 apart share a
 * set): five pages of one set, the fifth evicting the first (LRU), the
 * first evicting the second; a PID write empties the L1 MMU.
 * Region 3, translated: a system call and its handler on another page:
 * the e500 keeps its L1 TLBs over an interrupt and translates the handler.
 * Region 4, real: a divide, a multiply, a load used at once, a loop's
 * bdnz three times and a taken forward branch, against the BTB's
 * counters. */
	.macro	mark kind, digit	/* mark.h's marker of an id 0-9: or kind; or 10; or digit */
	or	\kind, \kind, \kind
	or	10, 10, 10
	or	\digit, \digit, \digit
	.endm

	.globl	_start
_start:
	lis	3, 0x20			/* 0x200000: lines 0-7 at 0x1000 apart */
	lis	4, 0x20
	ori	4, 4, 0x8000		/* 0x208000: line 8, the same set */
	lis	11, 0x30		/* 0x300000: page P0 */
	lis	12, 0x31
	ori	12, 12, 0x0020		/* P1 = 0x310000 (+0x20: D-cache set 1) */
	lis	13, 0x32
	ori	13, 13, 0x0040		/* P2, set 2 */
	lis	14, 0x33
	ori	14, 14, 0x0060		/* P3, set 3 */
	lis	15, 0x34
	ori	15, 15, 0x0080		/* P4, set 4 */
	lis	16, 0x35		/* P5 = 0x350000 */
	lis	10, 0x11		/* IVPR = 0x00110000, IVOR8 = 0: the handler */
	mtspr	63, 10
	li	10, 0
	mtspr	408, 10

	mark	20, 11		/* begin region 01, real */
	lwz	6, 0(3)			/* ways 0-7: lines 0-7, misses 1-8 */
	lwz	6, 0x1000(3)
	lwz	6, 0x2000(3)
	lwz	6, 0x3000(3)
	lwz	6, 0x4000(3)
	lwz	6, 0x5000(3)
	lwz	6, 0x6000(3)
	lwz	6, 0x7000(3)
	lwz	6, 0(4)			/* 9: the tree (all 0) gives way 0: line 0 out */
	lwz	6, 0(3)			/* 10: line 0; the tree (1101000) gives way 4 */
	lwz	6, 0x1000(3)		/* line 1: a hit */
	lwz	6, 0x4000(3)		/* 11: line 4 */
	mark	21, 11		/* end region 01 */

	.balign	4096			/* region 2's code on one page */
	mark	22, 12		/* begin region 02, translated */
	lwz	6, 0(11)		/* L1TLB4K misses 1-4: P0-P3 */
	lwz	6, 0(12)
	lwz	6, 0(13)
	lwz	6, 0(14)
	lwz	6, 0(15)		/* 5: P4 evicts P0 (least recently used) */
	lwz	6, 0(11)		/* 6: P0 evicts P1; a D-cache hit */
	lwz	6, 0(12)		/* 7: P1; a D-cache hit */
	li	7, 0
	mtspr	48, 7			/* PID0: the L1 MMU emptied */
	lwz	6, 0(11)		/* 8: P0 again; its fetch's page too */
	mark	21, 12		/* end region 02 */

	.balign	4096			/* region 3's code on one page */
	mark	22, 13		/* begin region 03, translated */
	lwz	6, 0(16)		/* P5: an L1TLB4K miss, a D-cache miss */
	sc				/* the handler's page: an ITLB miss */
	lwz	6, 0(16)		/* P5 again: a hit (no flush), a D-cache hit */
	mark	21, 13		/* end region 03 */

	li	8, 3
	mtctr	8
	mark	20, 14		/* begin region 04, real */
	divw	9, 14, 15		/* 35 cycles */
	mullw	9, 14, 15		/* 4 cycles */
	lwz	5, 0x20(3)		/* a D-cache miss (set 1 has P1's line only) ... */
	add	6, 5, 5			/* ... used at once: 2 more cycles */
1:	bdnz	1b			/* taken (predicted not), taken, not taken */
	cmpw	6, 6
	beq	2f			/* forward, taken: predicted not */
	nop
2:	mark	21, 14		/* end region 04 */

	lis	10, 0x3000		/* DBCR0[RST] = 3: core reset */
	mtspr	308, 10
	b	.

	.org	0x10000			/* 0x110000: IVPR + IVOR8, the system call */
	rfi				/* back after the sc */
