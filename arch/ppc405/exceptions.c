/* Exceptions of the 405: where vectors.S's common path lands, the register
 * dump for anything nobody expected, and crash= on purpose. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "arch.h"
#include "config.h"
#include "mmu_arch.h"
#include "ppc405.h"
#include "proc.h"
#include "report.h"
#include "../powerpc/exception.h"
#include "../powerpc/cache.h"

/* vectors.S: the vector pieces, and where they go (linker script). */
struct vector_piece {
	uint32_t offset;
	const uint32_t *code;
	uint32_t bytes;
};
extern const struct vector_piece ppc405_vector_table[], ppc405_vector_table_end[];
extern char __evpr_area[];

/* vectors.S builds the frame with ppc405.h's F_* offsets and keeps the
 * counters at MMU_*_OFF below the directory: both must match the C. */
#define FRAME_AT(field, off) _Static_assert(offsetof(struct ppc405_frame, field) == off, #field)
FRAME_AT(gpr, F_GPR); FRAME_AT(cr, F_CR); FRAME_AT(lr, F_LR); FRAME_AT(ctr, F_CTR);
FRAME_AT(xer, F_XER); FRAME_AT(srr0, F_SRR0); FRAME_AT(srr1, F_SRR1); FRAME_AT(srr2, F_SRR2);
FRAME_AT(srr3, F_SRR3); FRAME_AT(dear, F_DEAR); FRAME_AT(esr, F_ESR); FRAME_AT(vector, F_VEC);
_Static_assert(sizeof(struct ppc405_frame) <= F_SIZE && F_SIZE % 16 == 0, "frame size");
#define COUNTER_AT(field, off) _Static_assert(offsetof(struct mmu_counters, field) - \
					      MMU_STATE_BYTES == (unsigned)(off), #field)
COUNTER_AT(itlb_misses, MMU_ITLB_OFF); COUNTER_AT(dtlb_misses, MMU_DTLB_OFF);
COUNTER_AT(tlb_writes, MMU_WRITES_OFF);
COUNTER_AT(kernel_itlb_misses, MMU_KITLB_OFF); COUNTER_AT(kernel_dtlb_misses, MMU_KDTLB_OFF);
_Static_assert(sizeof(struct mmu_counters) <= MMU_STATE_BYTES + MMU_RRTOP_OFF, "state block");

static const char *vector_name(uint32_t v)
{
	switch (v) {
	case 0x0100: return "critical input";
	case 0x0200: return "machine check";
	case 0x0300: return "data storage";
	case 0x0400: return "instruction storage";
	case 0x0500: return "external interrupt";
	case 0x0600: return "alignment";
	case 0x0700: return "program";
	case 0x0800: return "floating point unavailable";
	case 0x0c00: return "system call";
	case 0x0f00: return "APU unavailable";
	case 0x1000: return "programmable interval timer";
	case 0x1010: return "fixed interval timer";
	case 0x1020: return "watchdog timer";
	case 0x1100: return "data TLB miss";
	case 0x1200: return "instruction TLB miss";
	case 0x2000: return "debug";
	}
	return "reserved vector";
}

/* Critical-class exceptions save PC/MSR in SRR2/SRR3, the others in SRR0/1. */
static int critical(uint32_t v)
{
	return v == 0x0100 || v == 0x0200 || v == 0x1020 || v == 0x2000;
}

extern char ppc405_exc_stack_top[];	/* vectors.S: the emergency stack */

static void dump(const struct ppc405_frame *f, const char *name)
{
	uint32_t pc = critical(f->vector) ? f->srr2 : f->srr0;
	uint32_t msr = critical(f->vector) ? f->srr3 : f->srr1;

	report_diag("exception: %s (vector 0x%04lx) at PC 0x%08lx (%s)", name,
		    (unsigned long)f->vector, (unsigned long)pc,
		    critical(f->vector) ? "SRR2, critical class" : "SRR0");
	report_diag("  MSR 0x%08lx (%s) DEAR 0x%08lx ESR 0x%08lx", (unsigned long)msr,
		    critical(f->vector) ? "SRR3" : "SRR1", (unsigned long)f->dear,
		    (unsigned long)f->esr);
	powerpc_dump_gprs(f->lr, f->ctr, f->cr, f->xer, f->gpr);
	if (f->vector == 0x1100 || f->vector == 0x1200 || f->vector == 0x300 ||
	    f->vector == 0x400)
		ppc405_explain(f->vector == 0x1200 || f->vector == 0x400 ? f->srr0 : f->dear);

	powerpc_dump_stack(f->gpr, (uint32_t)ppc405_exc_stack_top);
}

/* An exception taken in problem state (user_mode.S), on the kernel stack: the
 * system call (r0: USER_CALL_*; all but the null call boot/sched.c's), a
 * fault the hook handles or a handler takes as a signal (resume user mode),
 * or the end of user mode: a register dump, user_enter returns -1. */
static void user_exception(struct ppc405_frame *f)
{
	if (f->vector == 0x0c00 && f->gpr[0] == POWERPC_CALL_NULL) {
		ppc405_user_null_call();
		return;			/* on after the sc */
	}
	if (f->vector == 0x0c00) {	/* exit and the scheduler's calls */
		int rc;
		if (ppc405_user_syscall(f, &rc))
			ppc405_user_return(rc);
		return;			/* into the frame: this process or the next */
	}
	if (ppc405_mmu_fault(f))
		return;			/* handled: retry in user mode */
	if (ppc405_user_fault(f))
		return;			/* a signal: into its handler */
	dump(f, vector_name(f->vector));
	report_diag("user mode ended by an unexpected %s at 0x%08lx (MSR[PR] = 1): user_enter "
		    "returns -1", vector_name(f->vector), (unsigned long)f->srr0);
	mtspr(SPR_ESR, 0);
	ppc405_user_return(-1);
}

/* vectors.S's common path calls this with translation off.  Returning
 * means: restore and retry. */
void ppc405_exception(struct ppc405_frame *f)
{
	static int dumping;
	char why[96];

	if (f->vector == 0x1100 || f->vector == 0x1200)
		ppc405_pid_restore();	/* the tagged miss handler may have left PID 0 */
	if (f->vector == 0x1000 && !dumping) {
		ppc405_pit_interrupt();	/* the watchdog: back to the run loop, or on */
		return;
	}
	if (!dumping && !critical(f->vector) && (f->srr1 & MSR_PR)) {
		user_exception(f);	/* user mode: its calls and faults */
		return;
	}
	if (!dumping && ppc405_mmu_fault(f))
		return;
	if (dumping++) {		/* an exception while dumping: stop hard */
		report_diag("exception 0x%04lx while dumping another: halting",
			    (unsigned long)f->vector);
		_exit(1);
	}
	dump(f, vector_name(f->vector));
	snprintf(why, sizeof(why), "unexpected exception: %s at 0x%08lx",
		 vector_name(f->vector),
		 (unsigned long)(critical(f->vector) ? f->srr2 : f->srr0));
	exit(report_abort(why));
}

/* Make stores to code (the vector pieces) visible to instruction fetch. */
static void sync_icache(const void *start, uint32_t bytes)
{
	powerpc_sync_icache((uint32_t)start, (uint32_t)start + bytes);
}

void arch_init(struct boot_info *bi)
{
	(void)bi;
	/* Every vector's code to its offset from EVPR, which takes only the
	 * high 16 bits: __evpr_area is 64 KiB aligned. */
	for (const struct vector_piece *v = ppc405_vector_table; v < ppc405_vector_table_end; v++)
		if (v->offset < 0x10000)	/* the tagged miss handlers wait */
			memcpy(__evpr_area + v->offset, v->code, v->bytes);
	sync_icache(__evpr_area, PPC405_EVPR_BYTES);
	mtspr(SPR_EVPR, (uint32_t)__evpr_area);
	mtspr(SPR_ESR, 0);
	ppc405_mmu_init();
}

/* The TLB miss vectors' code: the plain pair, or the tagged pair (vectors.S
 * keeps it at offset + 0x10000 in the table).  Translation stays as it is:
 * the EVPR area is mapped and the copy is made visible to fetch. */
void ppc405_install_miss_handlers(int tagged)
{
	for (const struct vector_piece *v = ppc405_vector_table; v < ppc405_vector_table_end; v++) {
		uint32_t off = v->offset & 0xffff;
		if ((off == 0x1100 || off == 0x1200) && (v->offset >> 16) == (uint32_t)tagged) {
			memcpy(__evpr_area + off, v->code, v->bytes);
			sync_icache(__evpr_area + off, v->bytes);
		}
	}
}

/* ---- crash= ---- */

const char *arch_crash_unsupported(const char *kind)
{
	if (!strcmp(kind, "divide"))
		return "the PowerPC 405 raises no exception on integer divide by zero "
		       "(divw/divwu give an undefined result): nothing to provoke";
	return 0;
}

/* crash=user (arch/powerpc/exception.h) loads from the image's first page
 * in problem state: a kernel page, zone 00, so problem state takes a
 * zone fault (data storage, ESR[DIZ]) nobody handles: the register dump,
 * user_enter's -1, a failing run. */
void arch_crash(const char *kind)
{
	uint32_t msr = mfmsr();

	if (!strcmp(kind, "data")) {
		/* Data translation on, and a load from an address no page
		 * table maps: a data TLB miss with no PTE behind it. */
		report_diag("crash=data: MSR[DR] on, load from 0xdead0000 (no mapping)");
		__asm__ volatile("mtmsr %0; isync; lwz %0, 0(%1)"
				 : : "r"(msr | MSR_DR), "b"(0xdead0000u) : "memory");
	} else if (!strcmp(kind, "fetch")) {
		/* rfi to an unmapped address with instruction translation on:
		 * an instruction TLB miss with no PTE behind it. */
		report_diag("crash=fetch: MSR[IR] on, branch to 0xdead0000 (no mapping)");
		__asm__ volatile("mtspr 26, %0; mtspr 27, %1; bl 1f; 1: rfi"
				 : : "r"(0xdead0000u), "r"(msr | MSR_IR) : "lr", "memory");
	} else {
		powerpc_crash(kind);	/* illegal, user, align */
	}
}
