/* User mode on the e500 (include/user.h): problem state, MSR[PR] = 1, in
 * address space 0 as the kernel runs: in the translated modes user pages
 * carry MAS3's UR/UW/UX and the kernel's (its PTEs, the pinned TLB1
 * entries, the large pages) only SR/SW/SX; in mode real, over the boot
 * entry, both.  user_mode.S enters it and
 * holds the user routine; the system call and user-mode faults arrive in
 * exceptions.c (e500_user_exception), which calls the null-call hook here
 * or leaves user mode. */
#include "e500.h"
#include "user.h"
#include "../powerpc/cache.h"
#include "../powerpc/user_mode.h"

int e500_user_enter(uintptr_t entry, uintptr_t sp, uintptr_t arg);	/* user_mode.S */
static void (*null_call)(void);

/* Every mode: the translated ones' user pages carry UR/UW/UX (the kernel's
 * only SR/SW/SX); mode real's boot entry over RAM has both (e500.h
 * E500_BOOT_RAM_MAS3): problem state there, without protection. */
const char *user_unavailable(const struct mmu_mode *m)
{
	(void)m;
	return 0;
}

void user_set_null_call(void (*fn)(void)) { null_call = fn; }

/* The routine was copied through the data cache: written back and the
 * instruction cache's lines dropped (32-byte lines) before it runs. */
int user_enter(uintptr_t entry, uintptr_t sp, uintptr_t arg)
{
	powerpc_sync_icache(entry, entry + (user_code_end - user_code));
	return e500_user_enter(entry, sp, arg);
}

/* From the system call's exception path (supervisor, EE off, on the
 * kernel stack): the hook with the kernel's MSR, then back for the way
 * back through the common path. */
void e500_user_null_call(void)
{
	powerpc_user_null_call(&null_call, e500_user_kmsr);
}

int user_kernel_call(int (*fn)(void *), void *arg)
{
	return powerpc_user_kernel_call(fn, arg, e500_user_kmsr);
}

/* The scheduler's calls and a user fault's signal (include/user.h), from
 * exceptions.c: with the kernel's MSR while they run. */
int e500_user_syscall(struct e500_frame *f, int *rc)
{
	return powerpc_user_syscall(f, e500_user_kmsr, rc);
}

int e500_user_fault(struct e500_frame *f)
{
	uint32_t addr = f->vector == 3 || f->vector == 14 ? f->srr0 : f->dear;	/* IVOR3, 14: fetch */

	return powerpc_user_fault(f, addr, e500_user_kmsr);
}
