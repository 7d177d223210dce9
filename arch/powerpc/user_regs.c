/* The system-call boundary of include/user.h on both PowerPCs: struct
 * user_regs is the exception frame's common part (arch/powerpc/frame.h,
 * F_GPR .. F_SRR1, the same on the 405 and the e500), which each arch's
 * common path restores on the way back to user mode with rfi. */
#include <stddef.h>
#include "user.h"
#include "../powerpc/frame.h"
#include "../powerpc/exception.h"

struct user_regs {
	uint32_t gpr[32];
	uint32_t cr, lr, ctr, xer;
	uint32_t srr0, srr1;		/* the user PC and MSR */
};
#define REGS_AT(field, off) _Static_assert(offsetof(struct user_regs, field) == off, #field)
REGS_AT(gpr, F_GPR); REGS_AT(cr, F_CR); REGS_AT(lr, F_LR); REGS_AT(ctr, F_CTR);
REGS_AT(xer, F_XER); REGS_AT(srr0, F_SRR0); REGS_AT(srr1, F_SRR1);
_Static_assert(sizeof(struct user_regs) <= sizeof(struct user_ctx), "user_ctx too small");

uint32_t user_regs_call(const struct user_regs *r) { return r->gpr[0]; }
uint32_t user_regs_arg(const struct user_regs *r, int i) { return r->gpr[3 + i]; }
void user_regs_set_result(struct user_regs *r, uint32_t v) { r->gpr[3] = v; }
uintptr_t user_regs_pc(const struct user_regs *r) { return r->srr0; }
uintptr_t user_regs_sp(const struct user_regs *r) { return r->gpr[1]; }
void user_regs_set_pc(struct user_regs *r, uintptr_t pc) { r->srr0 = pc; }
void user_regs_restart(struct user_regs *r) { r->srr0 -= 4; }	/* SRR0: past the sc */

void user_regs_start(struct user_regs *r, uintptr_t pc, uintptr_t sp, uint32_t arg)
{
	uint32_t msr = r->srr1;

	for (unsigned i = 0; i < sizeof(*r) / 4; i++)
		((uint32_t *)r)[i] = 0;
	r->srr0 = pc, r->srr1 = msr;
	r->gpr[1] = sp, r->gpr[3] = arg;
}

/* A call into user code that never returns (the signal entry): LR 0. */
void user_regs_upcall(struct user_regs *r, uintptr_t pc, uintptr_t sp,
		      uint32_t a0, uint32_t a1, uint32_t a2)
{
	r->srr0 = pc, r->lr = 0;
	r->gpr[1] = sp;
	r->gpr[3] = a0, r->gpr[4] = a1, r->gpr[5] = a2;
}

/* A word at a time (newlib's -Os memcpy goes byte by byte): every
 * context switch and signal makes these copies. */
static void words(uint32_t *to, const uint32_t *from)
{
	for (unsigned i = 0; i < sizeof(struct user_regs) / 4; i++)
		to[i] = from[i];
}

void user_regs_save(const struct user_regs *r, struct user_ctx *c)
{
	words(c->w, (const uint32_t *)r);
}

void user_regs_load(struct user_regs *r, const struct user_ctx *c)
{
	words((uint32_t *)r, c->w);
}

/* A context from user memory: only its MSR could give it more than user
 * mode has; it must be the one every process runs with. */
const char *user_ctx_invalid(const struct user_ctx *c, const struct user_regs *r)
{
	const struct user_regs *u = (const struct user_regs *)c;

	return u->srr1 != r->srr1 ? "its MSR is not user mode's" : 0;
}

void user_regs_dump(const struct user_regs *r)
{
	report_diag("user context: PC 0x%08lx MSR 0x%08lx (SRR0/1 at the system call)",
		    (unsigned long)r->srr0, (unsigned long)r->srr1);
	powerpc_dump_gprs(r->lr, r->ctr, r->cr, r->xer, r->gpr);
}
