/* The sandbox's faults: SIGSEGV counted and handed to the probe's hook,
 * any other signal reported and the run ended, and crash=.  Apart from
 * mmu.c, as the boards keep theirs in exceptions.c. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include "arch.h"
#include "mmu_arch.h"
#include "report.h"
#include "sandbox.h"

static void unexpected(int sig, siginfo_t *si, ucontext_t *uc)
{
	static int nested;
	greg_t *g = uc->uc_mcontext.gregs;
	char why[80];

	if (nested++) {
		fprintf(stdout, "\nmmubench: signal %d while reporting a signal\n", sig);
		_exit(1);
	}
	report_diag("unexpected signal %d (%s), code %d, address %#lx", sig, strsignal(sig),
		    si->si_code, (unsigned long)si->si_addr);
	report_diag("rip %#llx rsp %#llx rbp %#llx err %#llx", (unsigned long long)g[REG_RIP],
		    (unsigned long long)g[REG_RSP], (unsigned long long)g[REG_RBP],
		    (unsigned long long)g[REG_ERR]);
	report_diag("rax %#llx rbx %#llx rcx %#llx rdx %#llx rsi %#llx rdi %#llx",
		    (unsigned long long)g[REG_RAX], (unsigned long long)g[REG_RBX],
		    (unsigned long long)g[REG_RCX], (unsigned long long)g[REG_RDX],
		    (unsigned long long)g[REG_RSI], (unsigned long long)g[REG_RDI]);
	snprintf(why, sizeof(why), "unexpected %s at %#lx", sig == SIGSEGV ? "SIGSEGV" :
		 strsignal(sig), (unsigned long)si->si_addr);
	exit(report_abort(why));
}

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	static uintptr_t last_addr, last_pc;
	static int repeats;
	ucontext_t *uc = ctx;
	greg_t *g = uc->uc_mcontext.gregs;
	uintptr_t addr = (uintptr_t)si->si_addr, pc = g[REG_RIP], resume;
	int prot = si->si_code == SEGV_ACCERR, write = (g[REG_ERR] & 2) != 0;

	if (sig != SIGSEGV || !mmu_current)
		unexpected(sig, si, uc);
	if (prot)
		mmu_count.prot_faults++;
	else
		mmu_count.page_faults++;
	/* A hook that claims success but fixes nothing would fault forever. */
	if (addr == last_addr && pc == last_pc) {
		if (++repeats >= 3) {
			report_diag("error: SIGSEGV at %#lx handled 3 times without effect",
				    (unsigned long)addr);
			unexpected(sig, si, uc);
		}
	} else {
		repeats = 0;
	}
	last_addr = addr, last_pc = pc;
	int r = mmu_call_fault_hook(addr, write, prot, pc, &resume);
	if (!r)
		unexpected(sig, si, uc);
	if (r == MMU_FAULT_SKIP)
		g[REG_RIP] = resume, last_pc = 0;
}

void sandbox_faults_init(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, 0);
}

/* ---- crash= ---- */

const char *arch_crash_unsupported(const char *kind)
{
	if (!strcmp(kind, "data") || !strcmp(kind, "illegal") || !strcmp(kind, "divide"))
		return 0;
	if (!strcmp(kind, "align"))
		return "Linux on x86-64 raises no alignment fault for ordinary loads";
	return "the sandbox's text is the Linux program's: crash=data, illegal or divide";
}

void arch_crash(const char *kind)
{
	if (!strcmp(kind, "data")) {
		if (mmu_enter(mmu_modes[0]) < 0)
			return;
		report_diag("crash=data: writing to %#x, which nothing maps", 0xD0200000u);
		*(volatile uint32_t *)0xD0200000u = 0xbad;
		mmu_leave();
	} else if (!strcmp(kind, "illegal")) {
		__asm__ volatile("ud2");
	} else {
		volatile int zero = 0, x = 1;
		x /= zero;
	}
}
