/* The arch's side of the user/kernel split, for boot/proc.c only (probes
 * see include/proc.h).  Each arch with a user mode implements these in
 * arch/<arch>/user.c and its user routine in assembly. */
#ifndef USER_H
#define USER_H
#include <stdint.h>
#include "mmu.h"
#include "proc.h"

/* The user routine: position-independent code in [user_code, user_code_end)
 * that boot/proc.c copies onto a user page (MMU_USER | MMU_READ | MMU_EXEC)
 * and enters at its first byte with the struct proc_job's address as its
 * one argument (405: r3; i386: EAX).  It does the job (include/proc.h),
 * makes the null call by the trap with USER_CALL_NULL and ends with the
 * trap with USER_CALL_EXIT.  Offsets into struct proc_job are asserted
 * against the C struct where the assembly uses them. */
extern const char user_code[], user_code_end[];
#define USER_CALL_NULL	0
#define USER_CALL_EXIT	1
/* The scheduler's calls (boot/sched.c; boot/user_prog.c makes them):
 * arguments in the arch's first three argument registers (405/e500:
 * r3..r5; i386: EBX, ECX, EDX), the result in the first (r3; EAX). */
#define USER_CALL_READ		2	/* (fd, buf, bytes): bytes read, 0 EOF, < 0 error */
#define USER_CALL_WRITE		3	/* (fd, buf, bytes): bytes written, < 0 error */
#define USER_CALL_SIGACTION	4	/* (sig, on, cookie): 0, < 0 error */
#define USER_CALL_KILL		5	/* (sig): to itself; sig 0 checks only */
#define USER_CALL_SIGRETURN	6	/* (frame): never returns to its caller */

/* The user program of the scheduled runs (boot/user_prog.c), in the same
 * range: entered at user_prog_main with a struct proc_prog's address as
 * its argument; signals are delivered to user_prog_signal(sig, frame,
 * cookie), which returns by USER_CALL_SIGRETURN. */
#ifndef USER_PROG_SOURCE		/* (there they are its functions) */
extern const char user_prog_main[], user_prog_signal[];
#endif

/* Why mode m offers no user mode here, or 0. */
const char *user_unavailable(const struct mmu_mode *m);

/* Enter user mode at entry with stack pointer sp and argument arg, in the
 * current space; return 0 when the routine makes the exit call, -1 after a
 * register dump when user mode ended another way (a fault nobody handled,
 * an unknown call).  Faults in user mode go to the fault hook as kernel
 * ones do (include/mmu.h) and resume user mode on MMU_FAULT_RETRY. */
int user_enter(uintptr_t entry, uintptr_t sp, uintptr_t arg);

/* Called in the kernel, on the kernel stack, translation as the mode has
 * it, for every USER_CALL_NULL; 0: nothing but the trap itself. */
void user_set_null_call(void (*fn)(void));

/* From the fault hook, for a fault taken in user mode: fn(arg) with the
 * kernel's own translation, as the null call's hook runs (the 405 takes
 * exceptions with translation off, the e500 its data in address space 1),
 * so that the kernel pages a fault's handling touches go through the TLB
 * as a kernel's would; its result. */
int user_kernel_call(int (*fn)(void *), void *arg);

/* ---- the system-call boundary (arch/<arch>/user.c over its frame) ----
 * struct user_regs is the interrupted user context as the arch's system
 * call or fault path saved it (the exception frame): what the common path
 * restores on the way back to user mode.  A context switch copies it. */
struct user_regs;
/* A saved context, big enough for every arch's (each asserts its own). */
struct user_ctx { uint32_t w[40]; };

uint32_t user_regs_call(const struct user_regs *r);		/* the call number */
uint32_t user_regs_arg(const struct user_regs *r, int i);	/* argument 0..2 */
void user_regs_set_result(struct user_regs *r, uint32_t v);
uintptr_t user_regs_pc(const struct user_regs *r);
uintptr_t user_regs_sp(const struct user_regs *r);
void user_regs_set_pc(struct user_regs *r, uintptr_t pc);
void user_regs_restart(struct user_regs *r);	/* PC back onto the call (a blocked call) */
/* A fresh context in r (the user mode r runs in kept): PC, SP, argument 0,
 * every other register 0; an upcall: the same with three arguments. */
void user_regs_start(struct user_regs *r, uintptr_t pc, uintptr_t sp, uint32_t arg);
void user_regs_upcall(struct user_regs *r, uintptr_t pc, uintptr_t sp,
		      uint32_t a0, uint32_t a1, uint32_t a2);
void user_regs_save(const struct user_regs *r, struct user_ctx *c);
void user_regs_load(struct user_regs *r, const struct user_ctx *c);
/* 0 when c is a user-mode context as r's (no privilege, no other mode),
 * else why not: a signal frame from user memory is checked before use. */
const char *user_ctx_invalid(const struct user_ctx *c, const struct user_regs *r);
void user_regs_dump(const struct user_regs *r);			/* the register dump */

/* Called by the arch for every system call but USER_CALL_NULL, in the
 * kernel with translation as the kernel has it: 0 to go back to user mode
 * through r (which may now hold another process's context), or 1 to end
 * user mode, user_enter returning *rc (boot/sched.c). */
int user_syscall(struct user_regs *r, int *rc);
/* A fault from user mode the fault hook did not take (addr: the address):
 * 1 when it became a signal to a handler (resume through r), else 0 (the
 * arch dumps and ends user mode as before). */
int user_fault(struct user_regs *r, uintptr_t addr);

#endif
