/* Interrupts of the e500: IVPR and the IVORs, where vectors.S's common
 * path lands, the register dump for anything nobody expected, and crash=
 * on purpose. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "arch.h"
#include "e500.h"
#include "mmu_arch.h"
#include "proc.h"
#include "report.h"
#include "../powerpc/exception.h"

#define FRAME_AT(field, off) _Static_assert(offsetof(struct e500_frame, field) == off, #field)
FRAME_AT(gpr, F_GPR); FRAME_AT(cr, F_CR); FRAME_AT(lr, F_LR); FRAME_AT(ctr, F_CTR);
FRAME_AT(xer, F_XER); FRAME_AT(srr0, F_SRR0); FRAME_AT(srr1, F_SRR1); FRAME_AT(dear, F_DEAR);
FRAME_AT(esr, F_ESR); FRAME_AT(vector, F_VEC); FRAME_AT(csrr0, F_CSRR0); FRAME_AT(csrr1, F_CSRR1);
FRAME_AT(mcsrr0, F_MCSRR0); FRAME_AT(mcsrr1, F_MCSRR1); FRAME_AT(mcsr, F_MCSR);
_Static_assert(sizeof(struct e500_frame) <= F_SIZE && F_SIZE % 16 == 0, "frame size");
#define COUNTER_AT(field, off) _Static_assert(offsetof(struct mmu_counters, field) - \
					      MMU_STATE_BYTES == (unsigned)(off), #field)
COUNTER_AT(itlb_misses, MMU_ITLB_OFF); COUNTER_AT(dtlb_misses, MMU_DTLB_OFF);
COUNTER_AT(tlb_writes, MMU_WRITES_OFF);
COUNTER_AT(kernel_itlb_misses, MMU_KITLB_OFF); COUNTER_AT(kernel_dtlb_misses, MMU_KDTLB_OFF);
_Static_assert(sizeof(struct mmu_counters) <= MMU_STATE_BYTES + MMU_RRNEXT_OFF, "state block");

extern char e500_ivor0[], e500_ivor1[], e500_ivor2[], e500_ivor3[], e500_ivor4[], e500_ivor5[],
	e500_ivor6[], e500_ivor7[], e500_ivor8[], e500_ivor9[], e500_ivor10[], e500_ivor11[],
	e500_ivor12[], e500_ivor13[], e500_ivor14[], e500_ivor15[], e500_ivor32[], e500_ivor33[],
	e500_ivor34[], e500_ivor35[], e500_vectors_end[];

static const char *vector_name(uint32_t v)
{
	static const char *const names[] = {
		"critical input", "machine check", "data storage", "instruction storage",
		"external input", "alignment", "program", "floating point unavailable",
		"system call", "auxiliary processor unavailable", "decrementer",
		"fixed interval timer", "watchdog timer", "data TLB miss",
		"instruction TLB miss", "debug" };
	static const char *const spe[] = { "SPE unavailable", "SPE floating-point data",
		"SPE floating-point round", "performance monitor" };
	return v < 16 ? names[v] : v >= 32 && v < 36 ? spe[v - 32] : "unknown";
}

/* Critical class (critical input, watchdog, debug): CSRR0/1; machine
 * check: MCSRR0/1; the rest SRR0/1. */
static uint32_t pc_of(const struct e500_frame *f, uint32_t *msr, const char **which)
{
	if (f->vector == 0 || f->vector == 12 || f->vector == 15) {
		*msr = f->csrr1, *which = "CSRR0, critical class";
		return f->csrr0;
	}
	if (f->vector == 1) {
		*msr = f->mcsrr1, *which = "MCSRR0, machine check";
		return f->mcsrr0;
	}
	*msr = f->srr1, *which = "SRR0";
	return f->srr0;
}

extern char e500_exc_stack_top[];	/* vectors.S: the emergency stack */

static void dump(const struct e500_frame *f)
{
	const char *which;
	uint32_t msr, pc = pc_of(f, &msr, &which);

	report_diag("exception: %s (IVOR%lu) at PC 0x%08lx (%s)", vector_name(f->vector),
		    (unsigned long)f->vector, (unsigned long)pc, which);
	report_diag("  MSR 0x%08lx DEAR 0x%08lx ESR 0x%08lx MCSR 0x%08lx", (unsigned long)msr,
		    (unsigned long)f->dear, (unsigned long)f->esr, (unsigned long)f->mcsr);
	powerpc_dump_gprs(f->lr, f->ctr, f->cr, f->xer, f->gpr);
	powerpc_dump_stack(f->gpr, (uint32_t)e500_exc_stack_top);
}

static int critical(uint32_t v) { return v == 0 || v == 1 || v == 12 || v == 15; }

/* An exception taken in problem state (user_mode.S), on the kernel stack:
 * the system call (r0: USER_CALL_*; all but the null call boot/sched.c's),
 * a fault the hook handles or a handler takes as a signal (resume user
 * mode), or the end of user mode: a register dump, user_enter returns -1. */
static void user_exception(struct e500_frame *f)
{
	if (f->vector == 8 && f->gpr[0] == POWERPC_CALL_NULL) {
		e500_user_null_call();
		return;			/* on after the sc (SRR0 is past it) */
	}
	if (f->vector == 8) {		/* exit and the scheduler's calls */
		int rc;
		if (e500_user_syscall(f, &rc))
			e500_user_return(rc);
		return;			/* into the frame: this process or the next */
	}
	if (e500_mmu_fault(f))
		return;			/* handled: retry in user mode */
	if (e500_user_fault(f))
		return;			/* a signal: into its handler */
	dump(f);
	report_diag("user mode ended by an unexpected %s at 0x%08lx (MSR[PR] = 1): user_enter "
		    "returns -1", vector_name(f->vector), (unsigned long)f->srr0);
	mtspr(SPR_ESR, 0);
	e500_user_return(-1);
}

/* vectors.S's common path calls this.  Returning means: restore and go on. */
void e500_exception(struct e500_frame *f)
{
	static int dumping;
	const char *which;
	uint32_t msr;
	char why[96];

	if (f->vector == 10 && !dumping) {
		e500_dec_interrupt();	/* the watchdog: back to the run loop, or on */
		return;
	}
	if (f->vector == 11 && !dumping) {
		e500_core_watchdog_service();	/* the fixed-interval timer */
		return;
	}
	if (!dumping && !critical(f->vector) && (f->srr1 & MSR_PR) && e500_user_ksp) {
		user_exception(f);	/* user mode: its calls and faults */
		return;
	}
	if (!dumping && e500_mmu_fault(f))
		return;
	if (dumping++) {
		report_diag("exception IVOR%lu while dumping another: halting", (unsigned long)f->vector);
		_exit(1);
	}
	dump(f);
	snprintf(why, sizeof(why), "unexpected exception: %s at 0x%08lx", vector_name(f->vector),
		 (unsigned long)pc_of(f, &msr, &which));
	exit(report_abort(why));
}

/* The MSR through rfi: QEMU 7.2's mtmsr leaves MSR[ME] as it was
 * (measured: mtmsr with ME set reads back 0; rfi with SRR1[ME] sets it);
 * on the core either would do (Book-E). */
static void msr_by_rfi(uint32_t msr)
{
	uint32_t at;

	__asm__ volatile("mtsrr1 %1\n\tbl 1f\n1:\tmflr %0\n\taddi %0, %0, 16\n\t"
			 "mtsrr0 %0\n\trfi\n\tnop" : "=&b"(at) : "r"(msr) : "lr", "memory");
}

void arch_init(struct boot_info *bi)
{
	uint32_t base = (uint32_t)__image_start & 0xffff0000u;

	(void)bi;
	/* IVPR takes the high 16 bits, each IVOR the low 16: every stub must
	 * lie in IVPR's 64 KiB (the linker script puts them first). */
	if (((uint32_t)e500_vectors_end - 1 - base) >> 16)
		report_diag("error: the vectors end at %p, past IVPR's 64 KiB from %#lx",
			    e500_vectors_end, (unsigned long)base);
	mtspr(SPR_IVPR, base);
	/* IVORn: SPR 400 + n (n < 16), 528 + n - 32 (SPE, performance monitor). */
#define IVOR(n, spr) mtspr(spr, (uint32_t)e500_ivor##n & 0xfff0)
	IVOR(0, 400); IVOR(1, 401); IVOR(2, 402); IVOR(3, 403); IVOR(4, 404); IVOR(5, 405);
	IVOR(6, 406); IVOR(7, 407); IVOR(8, 408); IVOR(9, 409); IVOR(10, 410); IVOR(11, 411);
	IVOR(12, 412); IVOR(13, 413); IVOR(14, 414); IVOR(15, 415);
	IVOR(32, 528); IVOR(33, 529); IVOR(34, 530); IVOR(35, 531);
#undef IVOR
	mtspr(SPR_ESR, 0);
	__asm__ volatile("isync");
	/* Machine checks on, now that IVOR1 is ours: with MSR[ME] off (as
	 * U-Boot's bootm leaves it) a bus, ECC or parity error checkstops the
	 * core without a word (E500CORERM 4.7.2). */
	msr_by_rfi(mfmsr() | MSR_ME);
	e500_core_watchdog_init();
	e500_mpic_mask();
	e500_mmu_init();
}

/* ---- crash= ---- */

const char *arch_crash_unsupported(const char *kind)
{
	if (!strcmp(kind, "divide"))
		return "the e500 raises no exception on integer divide by zero "
		       "(divw/divwu give an undefined result): nothing to provoke";
	return 0;
}

/* crash=user (arch/powerpc/exception.h) loads from the image's first page
 * in problem state: a kernel page (its pinned TLB1 entry has only
 * SR/SW/SX), so problem state takes a data storage interrupt nobody
 * handles: the register dump, user_enter's -1, a failing run. */
void arch_crash(const char *kind)
{
	if (!strcmp(kind, "data")) {
		/* No TLB entry maps it: a data TLB miss nobody expected. */
		report_diag("crash=data: load from 0xdead0000 (no TLB entry maps it)");
		__asm__ volatile("lwz %0, 0(%0)" : : "b"(0xdead0000u) : "memory");
	} else if (!strcmp(kind, "fetch")) {
		report_diag("crash=fetch: branch to 0xdead0000 (no TLB entry maps it)");
		__asm__ volatile("mtctr %0; bctrl" : : "r"(0xdead0000u) : "lr", "ctr", "memory");
	} else {
		powerpc_crash(kind);	/* illegal, user, align */
	}
}
