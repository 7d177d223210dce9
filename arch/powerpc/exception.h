/*
 * What arch/ppc405's and arch/e500's exceptions.c share: the general part
 * of the register dump (LR, CTR, CR, XER, the GPRs, the stack trace) and
 * the crash= kinds that are plain PowerPC (illegal, user, align).  Each
 * arch keeps its own vector names, which registers hold the interrupted PC
 * and MSR, and its crash=data/fetch.  Inline: each is called once, from
 * dump() or arch_crash().
 */
#ifndef POWERPC_EXCEPTION_H
#define POWERPC_EXCEPTION_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch.h"
#include "mmu_arch.h"
#include "proc.h"
#include "report.h"

/* Plausible stack frame: word aligned, inside our stack or the emergency
 * one (its 8 KiB below exc_top, vectors.S). */
static inline int powerpc_frame_ok(uint32_t fp, uint32_t exc_top)
{
	return !(fp & 3) && ((fp >= (uint32_t)__stack_bottom && fp < (uint32_t)__stack_top) ||
			     (fp >= exc_top - 8192 && fp < exc_top));
}

static inline void powerpc_dump_gprs(uint32_t lr, uint32_t ctr, uint32_t cr, uint32_t xer,
				      const uint32_t gpr[32])
{
	report_diag("  LR 0x%08lx CTR 0x%08lx CR 0x%08lx XER 0x%08lx", (unsigned long)lr,
		    (unsigned long)ctr, (unsigned long)cr, (unsigned long)xer);
	for (int i = 0; i < 32; i += 4)
		report_diag("  r%-2d 0x%08lx r%-2d 0x%08lx r%-2d 0x%08lx r%-2d 0x%08lx",
			    i, (unsigned long)gpr[i], i + 1, (unsigned long)gpr[i + 1],
			    i + 2, (unsigned long)gpr[i + 2], i + 3, (unsigned long)gpr[i + 3]);
}

/* Back chain from the interrupted r1 (gpr[1]): each frame's word 0 links
 * to the caller's frame, whose word 1 holds the return address saved by
 * the callee.  At most 8. */
static inline void powerpc_dump_stack(const uint32_t gpr[32], uint32_t exc_top)
{
	char line[160];
	int n;

	n = snprintf(line, sizeof(line), "  stack trace (r1 0x%08lx):", (unsigned long)gpr[1]);
	uint32_t fp = gpr[1];
	for (int depth = 0; depth < 8 && powerpc_frame_ok(fp, exc_top); depth++) {
		uint32_t next = *(uint32_t *)fp;
		if (!next || !powerpc_frame_ok(next, exc_top) || next <= fp)
			break;
		n += snprintf(line + n, sizeof(line) - n, " 0x%08lx",
			      (unsigned long)((uint32_t *)next)[1]);
		fp = next;
	}
	report_diag("%s", line);
}

/* crash=user: a process (boot/proc.c) in mode normal whose one load is
 * from the image's first page, a kernel page (why it faults: each arch's
 * arch_crash), in problem state: the register dump, user_enter's -1, a
 * failing run. */
static inline void powerpc_crash_user(void)
{
	struct proc_job job = { .rounds = 1, .touch_base = (uint32_t)__image_start,
				.touch_pages = 1 };
	struct proc *p;

	if (mmu_enter(mmu_modes[1]) < 0 || !(p = proc_create(1)))
		return;
	report_diag("crash=user: mode %s, problem state at 0x%08lx loads from 0x%08lx, a kernel "
		    "page", mmu_current->name, (unsigned long)MMU_SPACE_BASE,
		    (unsigned long)job.touch_base);
	if (proc_run(p, &job) < 0)
		exit(report_abort("unexpected exception in user mode"));
	proc_destroy(p);
	mmu_leave();
}

/* The crash= kinds after each arch's data and fetch (arch_crash). */
static inline void powerpc_crash(const char *kind)
{
	if (!strcmp(kind, "illegal")) {
		report_diag("crash=illegal: executing the word 0x00000000");
		__asm__ volatile(".long 0" ::: "memory");
	} else if (!strcmp(kind, "user")) {
		powerpc_crash_user();
	} else if (!strcmp(kind, "align")) {
		/* lwarx needs a word-aligned address; the 405 (and QEMU)
		 * raise an alignment exception otherwise. */
		static uint32_t word[2];
		uint32_t v;
		report_diag("crash=align: lwarx from the unaligned address %p", (char *)word + 2);
		__asm__ volatile("lwarx %0, 0, %1" : "=r"(v) : "r"((char *)word + 2) : "memory");
		(void)v;
	}
}

#endif
