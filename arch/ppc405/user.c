/* User mode on the 405 (include/user.h): problem state, MSR[PR] = 1, in
 * every mode (real: translation off, so no protection, but the same way
 * in and out).  user_mode.S enters it and holds the user routine; the system
 * call and user-mode faults arrive in exceptions.c (user_exception), which
 * calls the null-call hook here or leaves user mode. */
#include "ppc405.h"
#include "user.h"
#include "../powerpc/cache.h"
#include "../powerpc/user_mode.h"

extern uint32_t ppc405_user_kmsr;	/* user_mode.S: the kernel's MSR at user_enter */
int ppc405_user_enter(uintptr_t entry, uintptr_t sp, uintptr_t arg);	/* user_mode.S: the way in */
static void (*null_call)(void);

const char *user_unavailable(const struct mmu_mode *m)
{
	(void)m;
	return 0;		/* problem state exists in every 405 mode */
}

void user_set_null_call(void (*fn)(void)) { null_call = fn; }

/* The routine was copied through the data cache: written back and the
 * instruction cache's lines dropped (32-byte lines) before it runs. */
int user_enter(uintptr_t entry, uintptr_t sp, uintptr_t arg)
{
	powerpc_sync_icache(entry, entry + (user_code_end - user_code));
	return ppc405_user_enter(entry, sp, arg);
}

/* From the system call's exception path (translation off, on the kernel
 * stack): the hook with translation as the kernel has it, then off again
 * for the way back through the common path. */
void ppc405_user_null_call(void)
{
	powerpc_user_null_call(&null_call, ppc405_user_kmsr);
}

int user_kernel_call(int (*fn)(void *), void *arg)
{
	return powerpc_user_kernel_call(fn, arg, ppc405_user_kmsr);
}

/* The scheduler's calls and a user fault's signal (include/user.h), from
 * exceptions.c: translation as the kernel has it while they run. */
int ppc405_user_syscall(struct ppc405_frame *f, int *rc)
{
	return powerpc_user_syscall(f, ppc405_user_kmsr, rc);
}

int ppc405_user_fault(struct ppc405_frame *f)
{
	uint32_t addr = f->vector == 0x400 || f->vector == 0x1200 ? f->srr0 : f->dear;

	return powerpc_user_fault(f, addr, ppc405_user_kmsr);
}
