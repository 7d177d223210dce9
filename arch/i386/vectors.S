/*
 * All 256 vectors of i386 (the 32 exceptions, the 8259s' 16 IRQs, and
 * 48-255, which nothing of ours raises: a LAPIC, IOAPIC or MSI source the
 * firmware left live lands there and is reported, not a #NP or #GP), and
 * mmu_probe_load.  Ring 3's entry and its int $0x80 gate are ring3.S's.
 *
 * Every stub makes the stack look the same (struct i386_frame in i386.h):
 * CPU-pushed EIP/CS/EFLAGS (and ESP/SS from ring 3), an error code (a dummy
 * 0 where the CPU pushes none), the vector number, the GPRs, DS and ES.
 */
#include "user_asm.h"

	.text
	.code32

/* A stub for a vector where the CPU pushes no error code. */
.macro	VEC_NOERR n
	.align	8
vec_\n:
	pushl	$0			/* dummy error code: same frame for all */
	pushl	$\n			/* vector number */
	jmp	exception_common
.endm

/* A stub for a vector where the CPU has pushed an error code already. */
.macro	VEC_ERR n
	.align	8
vec_\n:
	pushl	$\n			/* vector number, above the CPU's error code */
	jmp	exception_common
.endm

	VEC_NOERR 0			/* #DE divide error */
	VEC_NOERR 1			/* #DB debug */
	VEC_NOERR 2			/* NMI */
	VEC_NOERR 3			/* #BP breakpoint */
	VEC_NOERR 4			/* #OF overflow */
	VEC_NOERR 5			/* #BR bound range */
	VEC_NOERR 6			/* #UD invalid opcode */
	VEC_NOERR 7			/* #NM device not available */
	VEC_ERR   8			/* #DF double fault (error code 0) */
	VEC_NOERR 9			/* coprocessor segment overrun */
	VEC_ERR   10			/* #TS invalid TSS */
	VEC_ERR   11			/* #NP segment not present */
	VEC_ERR   12			/* #SS stack fault */
	VEC_ERR   13			/* #GP general protection */
	VEC_ERR   14			/* #PF page fault */
	VEC_NOERR 15			/* reserved */
	VEC_NOERR 16			/* #MF x87 error */
	VEC_ERR   17			/* #AC alignment check (error code 0) */
	VEC_NOERR 18			/* #MC machine check */
	VEC_NOERR 19			/* #XM SIMD error */
	VEC_NOERR 20			/* #VE virtualization */
	VEC_ERR   21			/* #CP control protection */
	VEC_NOERR 22			/* reserved */
	VEC_NOERR 23			/* reserved */
	VEC_NOERR 24			/* reserved */
	VEC_NOERR 25			/* reserved */
	VEC_NOERR 26			/* reserved */
	VEC_NOERR 27			/* reserved */
	VEC_NOERR 28			/* #HV hypervisor injection */
	VEC_ERR   29			/* #VC VMM communication */
	VEC_ERR   30			/* #SX security */
	VEC_NOERR 31			/* reserved */
	.irp	n, 32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47
	VEC_NOERR \n			/* the 8259s' IRQ 0..15 (watchdog.c) */
	.endr
	.altmacro			/* %expr: the counter's value as the argument */
	.set	vecno, 48
	.rept	256 - 48		/* 48..255: not ours, reported as unexpected */
	VEC_NOERR %vecno		/* (the IDT's 0x80 is ring3.S's gate instead) */
	.set	vecno, vecno + 1
	.endr
	.noaltmacro

exception_common:
	pushal				/* EAX, ECX, EDX, EBX, ESP, EBP, ESI, EDI */
	pushl	%ds			/* ring 3 may have left its own selectors */
	pushl	%es
	movl	$KERNEL_DS, %eax	/* our flat data segment for the C handler */
	movw	%ax, %ds
	movw	%ax, %es
	cld				/* C expects the direction flag clear */
	movl	%esp, %eax
	pushl	%eax			/* argument: the frame */
	call	i386_exception		/* returns only when the fault was handled */
	addl	$4, %esp		/* drop the argument */
	popl	%es			/* the interrupted code's selectors */
	popl	%ds
	popal				/* its GPRs (the ESP slot is skipped) */
	addl	$8, %esp		/* vector number and error code */
	iret				/* retry the faulting instruction */

/* The stubs' addresses, for the IDT (exceptions.c). */
.macro	VEC_ADDR n
	.long	vec_\n
.endm
	.section .rodata
	.align	4
	.globl	i386_vector_stubs
i386_vector_stubs:
	.irp	n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.long	vec_\n
	.endr
	.irp	n, 32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47
	.long	vec_\n
	.endr
	.altmacro
	.set	vecno, 48
	.rept	256 - 48
	VEC_ADDR %vecno			/* .long vec_48 ... vec_255 */
	.set	vecno, vecno + 1
	.endr
	.noaltmacro

/*
 * mmu_probe_load(addr): one load (mmu.h).  A fault hook may answer
 * MMU_FAULT_SKIP to a #PF on its movl: the handler then resumes at
 * mmu_probe_load_skip, which returns 0: a fault with no mapping work.
 */
	.text
	.globl	mmu_probe_load, mmu_probe_load_insn, mmu_probe_load_skip
mmu_probe_load:
	movl	4(%esp), %ecx		/* addr */
mmu_probe_load_insn:
	movl	(%ecx), %eax		/* the load that may fault */
	ret
mmu_probe_load_skip:
	xorl	%eax, %eax		/* skipped: nothing loaded */
	ret
