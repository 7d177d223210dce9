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

#endif
