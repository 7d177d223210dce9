/* include/user.h for the sandbox: no user mode of ours.  The sandbox is a
 * Linux process; its process probes (trap, fork, exec, mmap) use Linux's
 * own processes by LMbench's methods (os_proc.c, probe_os()), never
 * boot/proc.c's, so user_enter() is never on their path: it refuses. */
#include "report.h"
#include "user.h"

static const char why[] = "the sandbox is a Linux process: its processes are Linux's "
			  "(LMbench's methods, probe_os()), not a user mode of ours";

/* No user routine: an empty range. */
__asm__(".section .rodata\n.globl user_code, user_code_end\nuser_code:\nuser_code_end:\n.previous");

const char *user_unavailable(const struct mmu_mode *m)
{
	(void)m;
	return why;
}

int user_enter(uintptr_t entry, uintptr_t sp, uintptr_t arg)
{
	(void)entry, (void)sp, (void)arg;
	report_diag("user_enter: refused: %s", why);
	return -1;
}

void user_set_null_call(void (*fn)(void))
{
	(void)fn;
}
