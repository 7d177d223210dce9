/* Between boot/proc.c and boot/sched.c: what the scheduler needs of a
 * process (its slot, its addresses, entering it, switching to it) and
 * what proc.c tells the scheduler (a process gone, a run cut short). */
#ifndef PROC_SCHED_H
#define PROC_SCHED_H
#include <stddef.h>
#include <stdint.h>
#include "proc.h"

#define PROC_SLOTS	20		/* processes at once: a 16-process ring and more */

int proc_slot(const struct proc *p);			/* 0 .. PROC_SLOTS-1 */
uintptr_t proc_user_addr(const struct proc *p, const char *sym);	/* of user_code's range */
uintptr_t proc_stack_top(const struct proc *p);		/* its own address */
/* 1 when [addr, +bytes) lies in p's user pages (writable ones for write). */
int proc_user_range(const struct proc *p, uintptr_t addr, uint32_t bytes, int write);
/* Copy to (to_user) or from p's memory at its own address `at`, in its space. */
void proc_copy(struct proc *p, uintptr_t at, void *buf, size_t bytes, int to_user);
/* Enter p at entry (proc_run without the job): user_enter's result. */
int proc_enter(struct proc *p, uintptr_t entry, uintptr_t sp, uintptr_t arg);
/* From the system call: p's space current, p the fault hook's process. */
void proc_switch(struct proc *p);

void sched_proc_gone(const struct proc *p);	/* sched.c: its pipe ends closed */
void sched_forget(void);			/* sched.c: a run was cut short */

#endif
