/* What Linux under the sandbox costs, by LMbench's methods (include/
 * probe.h, struct probe_os): lat_pagefault, lat_sig catch and prot here,
 * lat_ctx's ring in os_ring.c, lat_syscall, lat_proc and lat_mmap in
 * os_proc.c.  The probes' own fault figures (demand)
 * are our fault hook's path through SIGSEGV; these are the OS's own paths,
 * so that the difference of the two is an honest subtraction.
 *
 * Files are O_TMPFILE (or unlinked at once) in $TMPDIR or /tmp: nothing
 * is left behind, however the run ends.  Signal actions we take are given
 * back at the end of every probe run (sandbox_os_reap), the watchdog's
 * longjmp included. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include "os.h"

#define PAGE	4096u

/* ---- helpers ---- */

/* t less `base_ticks1000` per iteration, over `per` events each; 1 (no
 * figure, as LMbench prints none) where nothing is left. */
int sandbox_os_net(struct probe_time *t, uint64_t base_ticks1000, unsigned per,
	       const char *what, char *why, size_t len)
{
	if (t->ticks1000 <= base_ticks1000) {
		snprintf(why, len, "%s: no time left after the baseline (%llu <= %llu ticks/1000)",
			 what, (unsigned long long)t->ticks1000, (unsigned long long)base_ticks1000);
		return 1;
	}
	t->ticks1000 = (t->ticks1000 - base_ticks1000) / per;
	t->ns100 = probe_tick_hz() ? (int64_t)muldiv64(t->ticks1000, 100000000ull, probe_tick_hz()) : -1;
	t->cycles100 = ns100_to_cycles100(t->ns100);
	return 0;
}

int sandbox_temp_file(size_t bytes)
{
	static char chunk[64 << 10];
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char name[256];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0) {			/* no O_TMPFILE there: a name, gone at once */
		snprintf(name, sizeof(name), "%s/mmubench-XXXXXX", dir);
		fd = mkostemp(name, O_CLOEXEC);
		if (fd >= 0)
			unlink(name);
	}
	if (fd < 0)
		return -1;
	memset(chunk, 0x5a, sizeof(chunk));
	for (size_t off = 0; off < bytes; off += sizeof(chunk)) {
		size_t n = bytes - off < sizeof(chunk) ? bytes - off : sizeof(chunk);
		if (pwrite(fd, chunk, n, off) != (ssize_t)n) {
			close(fd);
			return -1;
		}
	}
	return fd;		/* its pages now in the page cache */
}

/* ---- lat_pagefault ---- */

static struct pf {
	int fd, failed;
	uint32_t pages, *order;
	char *where;
} pf = { .fd = -1 };

static void pf_free(void)
{
	if (pf.where)
		munmap(pf.where, (size_t)pf.pages * PAGE);
	if (pf.order)
		munmap(pf.order, pf.pages * sizeof(uint32_t));
	if (pf.fd >= 0)
		close(pf.fd);
	memset(&pf, 0, sizeof(pf));
	pf.fd = -1;
}

static void pf_remap(void)
{
	size_t size = (size_t)pf.pages * PAGE;

	munmap(pf.where, size);
	pf.where = mmap(0, size, PROT_READ, MAP_SHARED, pf.fd, 0);
	if (pf.where == MAP_FAILED)
		pf.where = 0, pf.failed = 1;
}

static uint64_t pf_touch_run(void *arg, uint32_t n)
{
	volatile char sink;
	uint64_t t0 = probe_ticks();

	(void)arg;
	for (uint32_t i = 0; i < n && !pf.failed; i++) {
		for (uint32_t p = 0; p < pf.pages; p++)
			sink = pf.where[(size_t)pf.order[p] * PAGE];
		pf_remap();
	}
	(void)sink;
	return probe_ticks() - t0;
}

static uint64_t pf_map_run(void *arg, uint32_t n)
{
	uint64_t t0 = probe_ticks();

	(void)arg;
	for (uint32_t i = 0; i < n && !pf.failed; i++)
		pf_remap();
	return probe_ticks() - t0;
}

static int pagefault(uint32_t pages, struct probe_time *t, char *why, size_t len)
{
	struct probe_time base;
	uint32_t seed = 12345;

	pf_free();
	pf.pages = pages;
	pf.fd = sandbox_temp_file((size_t)pages * PAGE);
	pf.order = mmap(0, pages * sizeof(uint32_t), PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pf.where = pf.fd < 0 ? MAP_FAILED : mmap(0, (size_t)pages * PAGE, PROT_READ, MAP_SHARED, pf.fd, 0);
	if (pf.fd < 0 || pf.order == MAP_FAILED || pf.where == MAP_FAILED) {
		snprintf(why, len, "lat_pagefault: a %u-page file: %s", pages, strerror(errno));
		pf.order = pf.order == MAP_FAILED ? 0 : pf.order;
		pf.where = pf.where == MAP_FAILED ? 0 : pf.where;
		pf_free();
		return -1;
	}
	/* A shuffled order, as LMbench's permutation(): no stride to prefetch. */
	for (uint32_t i = 0; i < pages; i++)
		pf.order[i] = i;
	for (uint32_t i = pages - 1; i > 0; i--) {
		seed = seed * 1103515245u + 12345u;
		uint32_t j = (seed >> 8) % (i + 1), x = pf.order[i];
		pf.order[i] = pf.order[j], pf.order[j] = x;
	}
	int r = probe_measure(pf_touch_run, 0, t) < 0 || probe_measure(pf_map_run, 0, &base) < 0;
	if (r || pf.failed) {
		snprintf(why, len, "lat_pagefault: %s", pf.failed ? "mmap again failed" : "no time");
		pf_free();
		return -1;
	}
	pf_free();
	return sandbox_os_net(t, base.ticks1000, pages, "lat_pagefault", why, len);
}

/* ---- lat_sig catch and prot ---- */

static struct sigaction saved_usr1, saved_segv;
static int have_usr1, have_segv;
static volatile uint64_t caught;

static void on_usr1(int sig)
{
	(void)sig;
	caught++;
}

static uint64_t send_run(void *arg, uint32_t n)
{
	pid_t me = getpid();
	uint64_t t0 = probe_ticks();

	(void)arg;
	for (uint32_t i = 0; i < n; i++)
		kill(me, 0);
	return probe_ticks() - t0;
}

static uint64_t catch_run(void *arg, uint32_t n)
{
	pid_t me = getpid();
	uint64_t t0 = probe_ticks();

	(void)arg;
	for (uint32_t i = 0; i < n; i++)
		kill(me, SIGUSR1);
	return probe_ticks() - t0;
}

static void restore_signals(void)
{
	if (have_usr1)
		sigaction(SIGUSR1, &saved_usr1, 0);
	if (have_segv)
		sigaction(SIGSEGV, &saved_segv, 0);
	have_usr1 = have_segv = 0;
}

static int sig_catch(struct probe_time *t, char *why, size_t len)
{
	struct sigaction sa = { .sa_handler = on_usr1 };	/* as lat_sig: no flags */
	struct probe_time send;
	uint64_t got;

	if (probe_measure(send_run, 0, &send) < 0)
		return snprintf(why, len, "lat_sig catch: no time"), -1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, &saved_usr1);
	have_usr1 = 1;
	caught = 0;
	catch_run(0, 1000);		/* 1000 sent to ourselves: all caught? */
	got = caught;
	int r = probe_measure(catch_run, 0, t);
	restore_signals();
	if (got != 1000)
		return snprintf(why, len, "lat_sig catch: 1000 signals sent, %llu caught",
				(unsigned long long)got), -1;
	if (r < 0)
		return snprintf(why, len, "lat_sig catch: no time"), -1;
	/* The sending alone again, after: a host that took the CPU away during
	 * one of the two (seen: a KVM guest's kill(pid, 0) at 4 us, above the
	 * whole catch) leaves the other; the smaller is the baseline. */
	struct probe_time again;
	if (probe_measure(send_run, 0, &again) == 0 && again.ticks1000 < send.ticks1000)
		send = again;
	return sandbox_os_net(t, send.ticks1000, 1, "lat_sig catch", why, len);
}

/* The store that faults: its address known, so the last fault of a run
 * resumes past it; every other returns and the store is tried again. */
extern const char sandbox_prot_store[], sandbox_prot_resume[];
static char *prot_page;
static uint64_t prot_target, prot_caught;

static __attribute__((noinline)) void prot_store(char *p)
{
	__asm__ volatile(".globl sandbox_prot_store\nsandbox_prot_store:\n\tmovb $1, (%0)\n"
			 ".globl sandbox_prot_resume\nsandbox_prot_resume:\n" : : "r"(p) : "memory");
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;

	if (si->si_addr != prot_page || g[REG_RIP] != (greg_t)(uintptr_t)sandbox_prot_store ||
	    si->si_code != SEGV_ACCERR) {
		saved_segv.sa_sigaction(sig, si, ctx);	/* not ours: the sandbox's handler */
		return;
	}
	if (++prot_caught >= prot_target)
		g[REG_RIP] = (greg_t)(uintptr_t)sandbox_prot_resume;
}

static uint64_t prot_run(void *arg, uint32_t n)
{
	uint64_t t0 = probe_ticks();

	(void)arg;
	prot_target = n, prot_caught = 0;
	prot_store(prot_page);
	return probe_ticks() - t0;
}

static int sig_prot(const struct probe_time *catch, struct probe_time *t, char *why, size_t len)
{
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };
	int fd = sandbox_temp_file(PAGE), r;

	prot_page = fd < 0 ? MAP_FAILED : mmap(0, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (fd >= 0)
		close(fd);
	if (prot_page == MAP_FAILED)
		return snprintf(why, len, "lat_sig prot: a read-only file page: %s", strerror(errno)), -1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &saved_segv);
	have_segv = 1;
	prot_run(0, 100);
	uint64_t seen = prot_caught;			/* 100 writes: 100 faults? */
	r = probe_measure(prot_run, 0, t);
	restore_signals();
	munmap(prot_page, PAGE);
	if (seen != 100)
		return snprintf(why, len, "lat_sig prot: 100 faulting writes, %llu caught",
				(unsigned long long)seen), -1;
	if (r < 0)
		return snprintf(why, len, "lat_sig prot: no time"), -1;
	return sandbox_os_net(t, catch->ticks1000, 1, "lat_sig prot", why, len);
}

/* ---- the hooks ---- */

void sandbox_os_reap(void)
{
	sandbox_ring_reap();
	sandbox_proc_reap();
	restore_signals();
	pf_free();
}

static const struct probe_os linux_os = {
	.name = "Linux",
	.ring_open = sandbox_ring_open, .ring_run = sandbox_ring_run,
	.ring_alone = sandbox_ring_alone, .ring_close = sandbox_ring_close,
	.pagefault = pagefault, .sig_catch = sig_catch, .sig_prot = sig_prot,
	.null_call = sandbox_null_call, .fork_proc = sandbox_fork_proc,
	.exec_proc = sandbox_exec_proc, .mmap_file = sandbox_mmap_file,
};

const struct probe_os *probe_os(void)
{
	return &linux_os;
}
