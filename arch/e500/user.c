/* The e500's side of the user/kernel split (include/user.h): not written
 * yet.  boot/proc.c's probes then SKIP with this reason; user_enter
 * refuses after saying so.  (What it would take: MSR[PR] entry by rfi,
 * sc at IVOR8, the U* permission bits the PTEs already carry.) */
#include "mmu_arch.h"
#include "report.h"
#include "user.h"

static const char why[] = "user mode not yet implemented on e500";

const char *user_unavailable(const struct mmu_mode *m)
{
	(void)m;
	return why;
}

int user_enter(uintptr_t entry, uintptr_t sp, uintptr_t arg)
{
	(void)entry, (void)sp, (void)arg;
	report_diag("error: %s: user_enter refused", why);
	return -1;
}

void user_set_null_call(void (*fn)(void))
{
	(void)fn;
}
