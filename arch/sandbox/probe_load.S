/* The sandbox's assembly: mmu_probe_load (include/mmu.h), whose load's
 * address the SIGSEGV handler compares with the faulting RIP, and the
 * absolute bounds of the image's area in RAM (sandbox.h). */
#include "sandbox.h"

	.text
	.globl	mmu_probe_load, mmu_probe_load_insn, mmu_probe_load_skip
/* uint32_t mmu_probe_load(uintptr_t addr): addr in %rdi (SysV ABI). */
mmu_probe_load:
mmu_probe_load_insn:
	movl	(%rdi), %eax		/* the one load; may fault */
	ret
mmu_probe_load_skip:			/* a hook's MMU_FAULT_SKIP resumes here */
	xorl	%eax, %eax		/* the skipped load reads 0 */
	ret

/* What the boards' linker scripts define: the image's area is the first
 * IMAGE_BYTES of RAM (no code there: the program's text is Linux's). */
	.globl	__image_start, __image_data, __image_end, __free_ram_start
	.globl	__heap_start, __heap_end, __stack_bottom, __stack_top
	.set	__image_start, RAM_BASE
	.set	__image_data, RAM_BASE
	.set	__heap_start, HEAP_START
	.set	__heap_end, HEAP_END
	.set	__stack_bottom, STACK_BOTTOM
	.set	__stack_top, STACK_TOP
	.set	__image_end, STACK_TOP
	.set	__free_ram_start, PROBE_START

	.section .note.GNU-stack,"",@progbits
