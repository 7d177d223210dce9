/*
 * mmu_probe_load(addr): one load (mmu.h), for arch/ppc405 and arch/e500.
 * A fault hook may answer MMU_FAULT_SKIP to a fault on its lwz: the fault
 * handler then resumes at mmu_probe_load_skip, which returns 0: a fault
 * with no mapping work.
 */
	.text
	.globl	mmu_probe_load, mmu_probe_load_insn, mmu_probe_load_skip
mmu_probe_load:
mmu_probe_load_insn:
	lwz	r3, 0(r3)		/* the load that may fault */
	blr
mmu_probe_load_skip:
	li	r3, 0			/* skipped: nothing loaded */
	blr
