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

/* ---- the system-call boundary (include/user.h): struct user_regs is
 * ring3.S's and vectors.S's struct i386_frame, whose iret frame carries
 * ring 3's EIP, CS, EFLAGS, ESP and SS ---- */
struct user_regs { struct i386_frame f; };
_Static_assert(sizeof(struct user_regs) <= sizeof(struct user_ctx), "user_ctx too small");

/* The flags a context from user memory may change (Linux's FIX_EFLAGS):
 * the arithmetic ones, TF, DF, AC; never IF, IOPL, NT, VM. */
#define USER_EFLAGS	0x40dd5u

uint32_t user_regs_call(const struct user_regs *r) { return r->f.eax; }
uint32_t user_regs_arg(const struct user_regs *r, int i)
{
	return i == 0 ? r->f.ebx : i == 1 ? r->f.ecx : r->f.edx;
}
void user_regs_set_result(struct user_regs *r, uint32_t v) { r->f.eax = v; }
uintptr_t user_regs_pc(const struct user_regs *r) { return r->f.eip; }
uintptr_t user_regs_sp(const struct user_regs *r) { return r->f.user_esp; }
void user_regs_set_pc(struct user_regs *r, uintptr_t pc) { r->f.eip = pc; }
void user_regs_restart(struct user_regs *r) { r->f.eip -= 2; }	/* int $0x80: 2 bytes */

/* The program's entries take their arguments in EAX, EDX, ECX
 * (regparm(3), user_sys.h USER_UPCALL); ESP as after a call. */
void user_regs_upcall(struct user_regs *r, uintptr_t pc, uintptr_t sp,
		      uint32_t a0, uint32_t a1, uint32_t a2)
{
	r->f.eip = pc, r->f.user_esp = sp - 4;
	r->f.eax = a0, r->f.edx = a1, r->f.ecx = a2;
}

void user_regs_start(struct user_regs *r, uintptr_t pc, uintptr_t sp, uint32_t arg)
{
	r->f.edi = r->f.esi = r->f.ebp = r->f.ebx = r->f.edx = r->f.ecx = 0;
	r->f.eflags = (r->f.eflags & ~USER_EFLAGS) | 2;
	user_regs_upcall(r, pc, sp, arg, 0, 0);
}

/* A word at a time (newlib's -Os memcpy goes byte by byte). */
void user_regs_save(const struct user_regs *r, struct user_ctx *c)
{
	for (unsigned i = 0; i < sizeof(*r) / 4; i++)
		c->w[i] = ((const uint32_t *)r)[i];
}

void user_regs_load(struct user_regs *r, const struct user_ctx *c)
{
	for (unsigned i = 0; i < sizeof(*r) / 4; i++)
		((uint32_t *)r)[i] = c->w[i];
}

const char *user_ctx_invalid(const struct user_ctx *c, const struct user_regs *r)
{
	const struct i386_frame *u = &((const struct user_regs *)c)->f;

	if (u->cs != USER_CS || u->user_ss != USER_DS || (u->ds & 0xffff) != USER_DS ||
	    (u->es & 0xffff) != USER_DS)
		return "its segments are not ring 3's";
	if ((u->eflags ^ r->f.eflags) & ~USER_EFLAGS)
		return "its EFLAGS change more than the arithmetic flags, TF, DF and AC";
	return 0;
}

void user_regs_dump(const struct user_regs *r)
{
	i386_dump((struct i386_frame *)&r->f);
}

/* ring3.S: every int $0x80 but the null call. */
void i386_user_call(struct i386_frame *f)
{
	int rc;

	if (!user_syscall((struct user_regs *)f, &rc))
		return;
	__asm__ volatile("jmp i386_user_return" : : "a"(rc) : "memory");
	__builtin_unreachable();
}

/* exceptions.c: a #PF from ring 3 nobody handled, to a SIGSEGV handler.
 * The fault will repeat at the same address (lat_sig prot retries its
 * store): a handled one, not mmu.c's fault that nothing fixes. */
int i386_user_signal(struct i386_frame *f)
{
	if (!user_fault((struct user_regs *)f, read_cr2()))
		return 0;
	i386_page_fault_forget();
	return 1;
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
