/* User mode on the 405 (include/user.h): problem state, MSR[PR] = 1, in
 * every mode (real: translation off, so no protection, but the same way
 * in and out).  user_mode.S enters it and holds the user routine; the system
 * call and user-mode faults arrive in exceptions.c (user_exception), which
 * calls the null-call hook here or leaves user mode. */
#include <stddef.h>
#include "ppc405.h"
#include "user.h"

/* user_mode.S reads the job and makes the calls by these numbers. */
#define JOB_AT(field, off) _Static_assert(offsetof(struct proc_job, field) == off, #field)
JOB_AT(rounds, J_ROUNDS); JOB_AT(touch_base, J_BASE); JOB_AT(touch_pages, J_PAGES);
JOB_AT(write, J_WRITE); JOB_AT(calls, J_CALLS); JOB_AT(sum, J_SUM);
_Static_assert(USER_CALL_NULL == POWERPC_CALL_NULL && USER_CALL_EXIT == POWERPC_CALL_EXIT,
	       "call numbers");

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
	uint32_t end = entry + (user_code_end - user_code);

	for (uint32_t a = entry & ~31u; a < end; a += 32)
		__asm__ volatile("dcbst 0, %0" : : "r"(a) : "memory");
	__asm__ volatile("sync");
	for (uint32_t a = entry & ~31u; a < end; a += 32)
		__asm__ volatile("icbi 0, %0" : : "r"(a) : "memory");
	__asm__ volatile("sync; isync");
	return ppc405_user_enter(entry, sp, arg);
}

/* From the system call's exception path (translation off, on the kernel
 * stack): the hook with translation as the kernel has it, then off again
 * for the way back through the common path. */
void ppc405_user_null_call(void)
{
	uint32_t msr = mfmsr();

	if (!null_call)
		return;
	mtmsr(ppc405_user_kmsr);
	null_call();
	mtmsr(msr);
}
