/*
 * Entry for i386: multiboot (EAX = 0x2BADB002, EBX = multiboot info) and
 * U-Boot go (regparm(3): EAX = argc, EDX = argv, return address on the
 * stack).  Loads our own GDT, stack and BSS, keeps what we need to return
 * to U-Boot, then calls i386_entry() in C.
 */
#define MULTIBOOT_MAGIC		0x1BADB002
#define MULTIBOOT_FLAGS		0x00000002	/* give us the memory info and map */
#define MULTIBOOT_BOOTED	0x2BADB002

	.section .text.entry, "ax"
	.code32
	.globl	_start
_start:
	jmp	entry			/* image offset 0 is the 'go' entry point */

	.align	4
multiboot_header:			/* must lie in the first 8 KiB */
	.long	MULTIBOOT_MAGIC
	.long	MULTIBOOT_FLAGS
	.long	-(MULTIBOOT_MAGIC + MULTIBOOT_FLAGS)

entry:
	cmpl	$MULTIBOOT_BOOTED, %eax	/* multiboot leaves ESP undefined: no push there */
	je	1f			/* (cmp changes only arithmetic flags) */
	pushfl				/* go: U-Boot's EFLAGS (IF, AC, DF ...), on its stack */
	popl	entry_eflags		/* kept for exit=return */
1:	cli				/* no interrupts until our IDT is in */
	cld				/* C expects the direction flag clear */
	/* A second 'go' on the same copy finds .data used up (newlib's stdio
	 * closed by exit, heap pointer moved): refuse it, in plain words on
	 * COM1, and give U-Boot rc 0x7e.  Multiboot always loads afresh. */
	cmpl	$0, image_used
	je	first_run
	cmpl	$MULTIBOOT_BOOTED, %eax
	je	first_run		/* (a multiboot loader reloads the file) */
	pushl	%esi			/* U-Boot's callee-saved registers */
	pushl	%ebx
	movl	$used_msg, %esi		/* the message, byte by byte */
1:	movb	(%esi), %bl		/* next byte; 0 ends it */
	testb	%bl, %bl
	jz	3f
	movw	$0x3fd, %dx		/* COM1 line status register */
2:	inb	%dx, %al		/* wait until the transmitter is empty */
	testb	$0x20, %al
	jz	2b
	movw	$0x3f8, %dx		/* COM1 data register */
	movb	%bl, %al
	outb	%al, %dx
	incl	%esi
	jmp	1b
3:	popl	%ebx
	popl	%esi
	movl	$0x7e, %eax		/* go's return code */
	pushl	entry_eflags		/* U-Boot's EFLAGS back (the cli above cleared IF) */
	popfl
	ret				/* still on U-Boot's stack, in its CS */
first_run:
	movl	$1, image_used		/* this copy is now used */
	movl	entry_eflags, %ecx	/* this entry's EFLAGS are the loader's to get back */
	movl	%ecx, loader_eflags
	/* Keep U-Boot's callee-saved registers, stack and tables for exit=return. */
	movl	%esp, loader_esp
	movl	%ebx, loader_ebx
	movl	%esi, loader_esi
	movl	%edi, loader_edi
	movl	%ebp, loader_ebp
	sgdt	loader_gdtr
	sidt	loader_idtr
	movw	%cs, loader_cs		/* U-Boot's selectors: its GDT gives FS the */
	movw	%ds, loader_ds		/* base of its global data (gd), so FS and  */
	movw	%es, loader_es		/* the rest must come back as they were     */
	movw	%fs, loader_fs
	movw	%gs, loader_gs
	movw	%ss, loader_ss
	movl	%cr0, %ecx		/* U-Boot's paging/protection state ... */
	movl	%ecx, loader_cr0
	movl	%cr4, %ecx		/* ... its CR4 (CPUs without CR4 predate CPUID: not ours) */
	movl	%ecx, loader_cr4
	movl	%cr3, %ecx		/* ... and its page directory, if any */
	movl	%ecx, loader_cr3
	movl	%eax, entry_eax		/* magic or argc */
	movl	%ebx, entry_ebx		/* multiboot info */
	movl	%edx, entry_edx		/* argv */

	/* Our GDT: flat 4 GiB code and data.  Multiboot leaves GDTR undefined. */
	lgdt	gdt_descriptor
	ljmp	$0x08, $1f		/* reload CS */
1:	movw	$0x10, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %fs
	movw	%ax, %gs
	movw	%ax, %ss
	movl	$__stack_top, %esp
	xorl	%ebp, %ebp		/* ends stack traces */

	/* Clear BSS. */
	movl	$__bss_start, %edi
	movl	$__bss_end, %ecx
	subl	%edi, %ecx
	xorl	%eax, %eax
	rep stosb

	pushl	entry_edx
	pushl	entry_ebx
	pushl	entry_eax
	call	i386_entry		/* never returns */
2:	hlt
	jmp	2b

/*
 * i386_return_to_loader(status): back to U-Boot's 'go' with its GDT, IDT,
 * stack and callee-saved registers.  Called with paging off.
 */
	.globl	i386_return_to_loader
i386_return_to_loader:
	movl	4(%esp), %eax		/* status: go's return code */
	movl	%cr0, %ecx		/* paging off first: we run identity-mapped */
	andl	$0x7fffffff, %ecx
	movl	%ecx, %cr0
	movl	loader_cr4, %ecx	/* U-Boot's CR4 without PGE (set only with */
	andl	$~0x80, %ecx		/* paging on: SDM Vol. 3A 2.5) ... */
	movl	%ecx, %cr4
	movl	loader_cr3, %ecx	/* ... CR3 ... */
	movl	%ecx, %cr3
	movl	loader_cr0, %ecx	/* ... CR0 (paging back on only if it had it) ... */
	movl	%ecx, %cr0
	movl	loader_cr4, %ecx	/* ... then all of its CR4, PGE included */
	movl	%ecx, %cr4
	lgdt	loader_gdtr
	lidt	loader_idtr
	movw	loader_ds, %cx		/* U-Boot's data selectors, from its GDT */
	movw	%cx, %ds
	movw	loader_es, %cx
	movw	%cx, %es
	movw	loader_fs, %cx		/* FS: U-Boot's global data */
	movw	%cx, %fs
	movw	loader_gs, %cx
	movw	%cx, %gs
	movw	loader_ss, %cx
	movw	%cx, %ss
	movl	loader_esp, %esp	/* U-Boot's stack: its return address on top */
	movl	loader_ebx, %ebx
	movl	loader_esi, %esi
	movl	loader_edi, %edi
	movl	loader_ebp, %ebp
	popl	%ecx			/* the return address into go ... */
	pushl	loader_eflags		/* ... with U-Boot's EFLAGS, IF included ... */
	pushl	loader_cs		/* ... under U-Boot's code selector */
	pushl	%ecx
	iret				/* all three at once: no interrupt in between */

	.data
	.align	8
	.globl	i386_gdt
i386_gdt:
gdt:
	.quad	0			/* null */
	.quad	0x00cf9a000000ffff	/* 0x08: code, base 0, limit 4 GiB, 32-bit */
	.quad	0x00cf92000000ffff	/* 0x10: data, base 0, limit 4 GiB */
	.quad	0x00cffa000000ffff	/* 0x18: ring-3 code, flat (crash=align) */
	.quad	0x00cff2000000ffff	/* 0x20: ring-3 data, flat */
	.quad	0			/* 0x28: our TSS, filled in by arch_init */
gdt_end:
gdt_descriptor:
	.word	gdt_end - gdt - 1
	.long	gdt

	.align	4
image_used:	.long 0			/* set on the first entry (see entry) */
used_msg:
	.ascii	"\r\nmmubench: error: this copy of the image already ran; load it "
	.asciz	"again before 'go' (its data section is used up)\r\n"
	.align	4
	.globl	loader_esp
loader_esp:	.long 0
entry_eflags:	.long 0
	.globl	loader_eflags		/* cpu.c prints it */
loader_eflags:	.long 0
loader_ebx:	.long 0
loader_esi:	.long 0
loader_edi:	.long 0
loader_ebp:	.long 0
entry_eax:	.long 0
entry_ebx:	.long 0
entry_edx:	.long 0
loader_cr0:	.long 0
loader_cr3:	.long 0
loader_cr4:	.long 0
loader_cs:	.long 0
loader_ds:	.long 0
loader_es:	.long 0
loader_fs:	.long 0
loader_gs:	.long 0
loader_ss:	.long 0
loader_gdtr:	.word 0
		.long 0
loader_idtr:	.word 0
		.long 0
