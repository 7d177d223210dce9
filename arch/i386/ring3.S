/*
 * i386 user mode (include/user.h): entering ring 3, the int $0x80 gate
 * that brings it back, and the user routine the processes run.
 *
 * One kernel stack: user_enter keeps the kernel's context on it and puts
 * its address in the TSS's ESP0, so every trap from ring 3 (int $0x80, a
 * fault, the watchdog's IRQ) lands on the same stack, just below the
 * caller of user_enter, as a process's kernel stack would be.
 */
#include "user_asm.h"

	.text
	.code32

/*
 * int i386_user_enter(entry, sp, arg, eflags): iret to ring 3 at entry
 * with ESP = sp, EAX = arg, EFLAGS = the kernel's IF | eflags (crash=align
 * passes AC), every other register 0.  Returns from i386_user_return: 0
 * after USER_CALL_EXIT, -1 when user mode ended another way.
 */
	.globl	i386_user_enter
i386_user_enter:
	pushl	%ebp			/* the callee-saved registers ... */
	movl	%esp, %ebp		/* (EBP: a frame for the stack trace) */
	pushl	%ebx
	pushl	%esi
	pushl	%edi
	pushfl				/* ... and the kernel's EFLAGS (IF, AC) */
	movl	%esp, user_kernel_esp	/* where i386_user_return resumes */
	movl	%esp, i386_tss + TSS_ESP0	/* traps from ring 3: below this frame */
	movl	8(%ebp), %ecx		/* entry */
	movl	12(%ebp), %edx		/* user stack pointer */
	movl	(%esp), %esi		/* the kernel's EFLAGS ... */
	andl	$EFLAGS_IF_BIT, %esi	/* ... of which only IF (the watchdog's tick) */
	orl	$2, %esi		/* bit 1 is always set */
	orl	20(%ebp), %esi		/* the caller's extra flags */
	pushl	$USER_DS		/* the iret frame: SS for ring 3 */
	pushl	%edx			/* ESP */
	pushl	%esi			/* EFLAGS */
	pushl	$USER_CS		/* CS: ring 3 */
	pushl	%ecx			/* EIP: entry */
	movl	16(%ebp), %eax		/* EAX: the argument */
	movl	$USER_DS, %ecx		/* ring 3's data segments (DPL 3, flat): */
	movw	%cx, %ds		/* loadable at CPL 0 as well, and kept by */
	movw	%cx, %es		/* iret (which zeroes DPL-0 ones) */
	movw	%cx, %fs
	movw	%cx, %gs
	xorl	%ebx, %ebx		/* nothing of the kernel's left in registers */
	xorl	%ecx, %ecx
	xorl	%edx, %edx
	xorl	%esi, %esi
	xorl	%edi, %edi
	xorl	%ebp, %ebp
	iret				/* CS, EIP, EFLAGS, SS, ESP at once: CPL 3 */

/*
 * The int $0x80 gate (DPL 3, interrupt gate: IF clear).  The CPU has
 * switched to ESP0 and pushed SS, ESP, EFLAGS, CS, EIP of ring 3.  EAX is
 * the call; the user routine keeps its state in the other registers, so
 * the null call preserves all of them and returns 0 in EAX.  Every other
 * call goes to C with the whole frame (not_null).
 */
	.globl	i386_user_syscall
i386_user_syscall:
	cmpl	$USER_CALL_NULL, %eax
	jne	not_null
	pushl	%ecx			/* the C ABI's caller-saved registers */
	pushl	%edx			/* (EAX is the result) */
	pushl	%ds			/* ring 3's selectors */
	pushl	%es
	movl	$KERNEL_DS, %ecx	/* the kernel's data segments, as a kernel */
	movw	%cx, %ds		/* entry does */
	movw	%cx, %es
	cld				/* C expects the direction flag clear */
	movl	i386_user_null_call, %ecx	/* the hook, or 0: the trap alone */
	testl	%ecx, %ecx
	jz	1f
	call	*%ecx			/* on the kernel stack, IF clear */
1:	popl	%es			/* ring 3's selectors back */
	popl	%ds
	popl	%edx
	popl	%ecx
	xorl	%eax, %eax		/* the call's result */
	iret				/* back to ring 3, after the int */
not_null:
	/* Exit and the scheduler's calls (include/user.h user_syscall): the
	 * frame of vectors.S (struct i386_frame, user.c's struct user_regs),
	 * which the call may fill with another process's context; back to
	 * ring 3 from it, or i386_user_return when user mode ends. */
	pushl	$0			/* error code */
	pushl	$SYSCALL_VECTOR		/* vector */
	pushal				/* EAX ... EDI */
	pushl	%ds
	pushl	%es
	movl	$KERNEL_DS, %eax
	movw	%ax, %ds
	movw	%ax, %es
	cld
	pushl	%esp			/* argument: the frame */
	call	i386_user_call		/* returns only to go back to ring 3 */
	addl	$4, %esp
	popl	%es			/* the context in the frame, now */
	popl	%ds
	popal				/* (its ESP slot skipped) */
	addl	$8, %esp		/* vector and error code */
	iret				/* EIP, CS, EFLAGS, ESP, SS: ring 3 */

/*
 * i386_user_return (EAX: user_enter's result): back to user_enter's caller
 * on the kernel stack user_enter left, from any depth of it (the gate
 * above, or exceptions.c after a ring-3 fault nobody handled).
 */
	.globl	i386_user_return
i386_user_return:
	movl	$KERNEL_DS, %ecx	/* the kernel's selectors again */
	movw	%cx, %ds
	movw	%cx, %es
	movw	%cx, %fs
	movw	%cx, %gs
	movl	user_kernel_esp, %esp	/* user_enter's frame */
	popfl				/* the kernel's EFLAGS: IF, AC as they were */
	popl	%edi			/* the callee-saved registers */
	popl	%esi
	popl	%ebx
	popl	%ebp
	ret				/* to user_enter's caller, EAX its result */

/*
 * The user routine (include/user.h), position independent: boot/proc.c
 * copies [user_code, user_code_end) onto a user page.  EAX: the struct
 * proc_job.  Registers: EBP the job, EDI the sum, ESI the round number,
 * EBX the address, ECX the touches left, EAX the stride while touching,
 * EDX the calls left.
 */
	.section .user_code, "ax"	/* first in [user_code, user_code_end) (linker script) */
	pushl	%eax			/* the job on the user stack (it is used) */
	movl	%eax, %ebp		/* EBP: the job */
	xorl	%edi, %edi		/* EDI: the sum of the loads */
	xorl	%esi, %esi		/* ESI: rounds done */
next_round:
	cmpl	JOB_ROUNDS(%ebp), %esi	/* all rounds done? */
	jae	job_done
	incl	%esi			/* the round number (1, 2, ...) */
	movl	JOB_TOUCH_BASE(%ebp), %ebx	/* the first page */
	movl	JOB_TOUCH_PAGES(%ebp), %ecx	/* how many */
	testl	%ecx, %ecx
	jz	null_calls
	movl	JOB_STRIDE(%ebp), %eax	/* bytes to the next touch ... */
	testl	%eax, %eax
	jnz	1f
	movl	$4096, %eax		/* ... 0: the next 4K page */
1:	cmpl	$0, JOB_WRITE(%ebp)	/* loads or stores? */
	jne	store_page
load_page:
	addl	(%ebx), %edi		/* one word of the page, into the sum */
	addl	%eax, %ebx		/* the next touch */
	decl	%ecx
	jnz	load_page
	jmp	null_calls
store_page:
	movl	%esi, (%ebx)		/* the round number into one word of the page */
	addl	%eax, %ebx		/* the next touch */
	decl	%ecx
	jnz	store_page
null_calls:
	movl	JOB_CALLS(%ebp), %edx	/* null calls this round */
	testl	%edx, %edx
	jz	next_round
call_loop:
	movl	$USER_CALL_NULL, %eax	/* the call */
	int	$SYSCALL_VECTOR		/* into the kernel and back; EAX = 0 */
	decl	%edx
	jnz	call_loop
	jmp	next_round
job_done:
	popl	%ebp			/* the job, back from the user stack */
	movl	%edi, JOB_SUM(%ebp)	/* the result */
	movl	$USER_CALL_EXIT, %eax	/* the exit call: user_enter returns 0 */
	int	$SYSCALL_VECTOR
	ud2				/* never resumed: a #UD here is a bug */
	.text

/* Ring-3 code for crash=align (exceptions.c): a misaligned load, then the
 * exit call.  It runs with paging off, so it may touch kernel data. */
	.globl	i386_ring3_misaligned
i386_ring3_misaligned:
	movl	$misaligned_buf + 1, %ebx	/* an address that is not a multiple of 4 */
	movl	(%ebx), %ecx		/* #AC here when alignment checking works */
	movl	$USER_CALL_EXIT, %eax	/* else home */
	int	$SYSCALL_VECTOR

	.data
	.align	4
misaligned_buf:
	.long	0, 0
user_kernel_esp:			/* user_enter's frame on the kernel stack */
	.long	0
