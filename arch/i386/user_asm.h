/* Constants shared by arch/i386's user-mode assembly (ring3.S, vectors.S)
 * and C (user.c, exceptions.c, which assert them against the C structs).
 * Plain #defines only: the assembler includes this too. */
#ifndef I386_USER_ASM_H
#define I386_USER_ASM_H

/* GDT selectors (start.S's table); RPL 3 on the ring-3 ones. */
#define KERNEL_CS	0x08
#define KERNEL_DS	0x10
#define USER_CS		0x1b		/* GDT 0x18 (DPL 3 code, flat) | RPL 3 */
#define USER_DS		0x23		/* GDT 0x20 (DPL 3 data, flat) | RPL 3 */
#define TSS_SEL		0x28

#define SYSCALL_VECTOR	0x80		/* int $0x80: a DPL-3 interrupt gate */
#define TSS_ESP0	4		/* offsetof(struct i386_tss, esp0) */
#define EFLAGS_IF_BIT	0x200

/* include/user.h's calls, in EAX at int $0x80; the same tokens, so a C
 * file including both fails to build should they ever differ. */
#define USER_CALL_NULL	0
#define USER_CALL_EXIT	1

/* struct proc_job (include/proc.h), as the user routine reads it. */
#define JOB_ROUNDS	0
#define JOB_TOUCH_BASE	4
#define JOB_TOUCH_PAGES	8
#define JOB_WRITE	12
#define JOB_CALLS	16
#define JOB_SUM		20
#define JOB_STRIDE	24

#endif
