/* A guest for test_plugin.py: a few accesses whose effect on the 405GP
 * model is known by hand, between the region markers of include/mark.h
 * (written out: `or 20,20,20` begins, `or 21,21,21` ends, then the id's
 * digits as `or 10+d`).  QEMU -kernel enters at _start with translation
 * off; the end is a core reset (DBCR0[RST] = 3), which QEMU -no-reboot
 * turns into its exit, so the plugin writes its file.
 *
 * Region 1, on the 8 KiB two-way D-cache (128 sets of 32 bytes, so
 * 0x200000, 0x201000 and 0x202000 share a set): the store misses and
 * fills (store misses allocate), two loads fill the set's other way and
 * then evict the dirty line (one write-back), the next evicts the clean
 * one, the last hits.  No load is followed by a use of its target.
 * Region 2: stmw and lmw, whose accesses QEMU 7.2 does not show.
 * Region 3, marked translated (the plugin takes the marker's word: QEMU
 * runs it untranslated): loads on nine 4 KiB pages fill the 8-entry DTLB
 * round robin and evict the first, isync empties both shadow TLBs, then
 * one divide, one load followed by a use of its target and one forward
 * conditional branch that is taken (predicted not: a misprediction).
 * Region 4, translated: an illegal instruction's program interrupt, whose
 * handler (on another page, EVPR 0x00110000) makes a load; the handler
 * runs untranslated on silicon, so only the loads around it and the fetch
 * after its rfi touch the shadow TLBs. */
	.globl	_start
_start:
	lis	3, 0x20			/* 0x200000 */
	lis	4, 0x20
	ori	4, 4, 0x1000		/* 0x201000 */
	lis	5, 0x20
	ori	5, 5, 0x2000		/* 0x202000 */

	or	20, 20, 20		/* begin region 01 */
	or	10, 10, 10
	or	11, 11, 11
	stw	3, 0(3)			/* miss, fill, dirty */
	lwz	6, 0(4)			/* miss, fill */
	lwz	7, 0(5)			/* miss: evicts 0x200000, written back */
	lwz	8, 0(3)			/* miss: evicts 0x201000, clean */
	lwz	9, 4(3)			/* hit */
	or	21, 21, 21		/* end region 01 */
	or	10, 10, 10
	or	11, 11, 11

	or	20, 20, 20		/* begin region 02 */
	or	10, 10, 10
	or	12, 12, 12
	stmw	24, 0(3)
	lmw	24, 0(3)
	or	21, 21, 21		/* end region 02 */
	or	10, 10, 10
	or	12, 12, 12

	lis	11, 0x30		/* 0x300000: pages p0..p7 at 0x1000 apart */
	lis	4, 0x31
	addi	4, 4, -0x8000		/* 0x308000: p8 */
	li	14, 100
	li	15, 7

	or	22, 22, 22		/* begin region 03, translated */
	or	10, 10, 10
	or	13, 13, 13
	lwz	12, 0(11)		/* DTLB misses 1..8: p0..p7 */
	lwz	12, 0x1000(11)
	lwz	12, 0x2000(11)
	lwz	12, 0x3000(11)
	lwz	12, 0x4000(11)
	lwz	12, 0x5000(11)
	lwz	12, 0x6000(11)
	lwz	12, 0x7000(11)
	lwz	12, 0(4)		/* 9: p8 replaces p0's entry */
	lwz	12, 0(11)		/* 10: p0 replaces p1's */
	lwz	12, 0x2000(11)		/* p2: a DTLB hit */
	isync				/* both shadow TLBs emptied */
	lwz	12, 0x2000(11)		/* 11: p2 again; a D-cache hit */
	divw	16, 14, 15		/* 35 cycles */
	lwz	13, 0(11)		/* 12: p0; a D-cache hit ... */
	add	17, 13, 13		/* ... used at once: load-use */
	cmpw	17, 17
	beq	1f			/* forward, y = 0: predicted not taken; taken */
	nop
1:	or	21, 21, 21		/* end region 03 */
	or	10, 10, 10
	or	13, 13, 13

	lis	10, 0x11		/* EVPR = 0x00110000: the handler below */
	mtspr	982, 10
	or	22, 22, 22		/* begin region 04, translated */
	or	10, 10, 10
	or	14, 14, 14
	lwz	12, 0x6000(11)		/* DTLB miss 1: p6 */
	.long	0			/* illegal: program interrupt, EVPR + 0x700 */
	lwz	12, 0x6000(11)		/* after rfi: DTLB miss 2, and ITLB miss 1 */
	or	21, 21, 21		/* end region 04 */
	or	10, 10, 10
	or	14, 14, 14

	lis	10, 0x3000		/* DBCR0[RST] = 3: core reset */
	mtspr	1010, 10
	b	.

	.org	0x10700			/* 0x110700: EVPR + 0x700, the program interrupt */
	mtsprg	1, 21
	mfsrr0	21			/* the illegal instruction: skip it */
	addi	21, 21, 4
	mtsrr0	21
	lis	21, 0x30
	lwz	21, 0x5000(21)		/* the handler's own load */
	mfsprg	21, 1
	rfi
