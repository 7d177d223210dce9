/* i386 user mode, include/user.h's C side: ring 3 in every mode, flat
 * (paging off: segments only, the user routine at physical addresses) as
 * well as the paging modes (user pages carry U/S, kernel pages do not).
 * The GDT's ring-3 segments are start.S's, the TSS and the int $0x80 gate
 * exceptions.c's arch_init; entering, the gate and the user routine are
 * ring3.S's.  Faults from ring 3 go through exceptions.c: a #PF to the
 * fault hook (mmu.c), resumed on MMU_FAULT_RETRY; anything else, or a #PF
 * nobody handles, is dumped and ends user_enter with -1. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "arch.h"
#include "i386.h"
#include "mem.h"
#include "mmu_arch.h"
#include "report.h"
#include "user.h"
#include "user_asm.h"

/* ring3.S reads struct proc_job by these offsets. */
_Static_assert(offsetof(struct proc_job, rounds) == JOB_ROUNDS, "rounds");
_Static_assert(offsetof(struct proc_job, touch_base) == JOB_TOUCH_BASE, "touch_base");
_Static_assert(offsetof(struct proc_job, touch_pages) == JOB_TOUCH_PAGES, "touch_pages");
_Static_assert(offsetof(struct proc_job, write) == JOB_WRITE, "write");
_Static_assert(offsetof(struct proc_job, calls) == JOB_CALLS, "calls");
_Static_assert(offsetof(struct proc_job, sum) == JOB_SUM, "sum");
_Static_assert(offsetof(struct proc_job, stride) == JOB_STRIDE, "stride");

/* Inside user_enter: a fault from ring 3 ends it with -1 (exceptions.c).
 * One at a time (ring3.S keeps one kernel frame): the null-call hook must
 * not enter user mode.  The watchdog's longjmp out of ring 3 leaves it
 * set, which only the next fault from ring 3 reads, and only user_enter
 * (or crash=align, in a run with no probes) makes ring 3. */
int i386_user_active;
void (*i386_user_null_call)(void);	/* ring3.S calls it for USER_CALL_NULL */

/* Every mode has ring 3: flat by segments alone, the paging modes by
 * U/S.  Only a TSS is needed, which arch_init loads before any mode. */
const char *user_unavailable(const struct mmu_mode *m)
{
	(void)m;
	if (!i386_tss.ss0)
		return "no TSS loaded yet (arch_init has not run)";
	return 0;
}

void user_set_null_call(void (*fn)(void))
{
	i386_user_null_call = fn;
}

int user_enter(uintptr_t entry, uintptr_t sp, uintptr_t arg)
{
	int r;

	i386_page_fault_forget();	/* the same fault again is another process's */
	i386_user_active = 1;
	r = i386_user_enter(entry, sp, arg, 0);
	i386_user_active = 0;
	return r;
}

/* A #PF from ring 3 is handled with paging as the kernel has it already. */
int user_kernel_call(int (*fn)(void *), void *arg)
{
	return fn(arg);
}

/* An int $0x80 with an unknown call in EAX (ring3.S; then -1). */
void i386_user_bad_call(struct i386_frame *f)
{
	report_diag("error: user mode: unknown system call %lu (EAX) by int $0x80 at EIP 0x%08lx",
		    (unsigned long)f->eax, (unsigned long)f->eip - 2);
	i386_dump(f);
}

/* A fault from ring 3 nobody handled, already dumped (exceptions.c):
 * user_enter returns -1 on the kernel stack it left. */
void i386_user_fault(struct i386_frame *f)
{
	report_diag("error: user mode ended by vector %lu at EIP 0x%08lx (ring 3, mode %s)",
		    (unsigned long)f->vector, (unsigned long)f->eip,
		    mmu_current ? mmu_current->name : "flat");
	__asm__ volatile("movl $-1, %%eax\n\tjmp i386_user_return" : : : "memory");
	__builtin_unreachable();
}

/* crash=user: in 2level, a space whose window holds the user routine and
 * a page for its job and stack, and a job whose one load is from the
 * image's first page: mapped, but a kernel page (supervisor-only), so a
 * protection #PF from ring 3 that no hook handles: the dump, user_enter's
 * -1 and a failing run. */
void i386_crash_user(void)
{
	uintptr_t code = mem_probe_start(), data = code + 4096, base = MMU_SPACE_BASE;
	uintptr_t kernel = (uintptr_t)__image_start;
	struct mmu_space *s;

	if (mmu_enter(&i386_mode_2level) < 0 || !(s = mmu_space_create(0)) ||
	    mmu_space_switch(s) < 0)
		return;
	memcpy((void *)code, user_code, user_code_end - user_code);
	*(struct proc_job *)data = (struct proc_job){ .rounds = 1, .touch_base = kernel,
						      .touch_pages = 1 };
	if (mmu_map(base, code, 4096, MMU_USER | MMU_READ | MMU_EXEC) < 0 ||
	    mmu_map(base + 4096, data, 4096, MMU_USER | MMU_READ | MMU_WRITE) < 0)
		return;
	report_diag("crash=user: mode 2level, ring 3 at %#lx loads from %#lx, a kernel page",
		    (unsigned long)base, (unsigned long)kernel);
	if (user_enter(base, base + 2 * 4096, base + 4096) < 0)
		exit(report_abort("unexpected exception in user mode"));
	mmu_leave();
}
