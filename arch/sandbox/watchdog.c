/* The watchdog's timer in a process: ITIMER_REAL, one shot, and SIGALRM
 * calling run_watchdog_tick(), which longjmps back to the run loop past
 * the deadline.  SA_NODEFER: a handler left by longjmp must not leave
 * SIGALRM blocked (glibc's setjmp keeps no signal mask); disarm unblocks
 * SIGSEGV too, in case the deadline fell inside a fault's handler.  Disarm
 * ends every probe run, however it ended: the OS figures' children and
 * signal actions go then too (os.c). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include "arch.h"
#include "os.h"
#include "report.h"
#include "sandbox.h"

static int ready;

static void set_timer(uint64_t ticks)
{
	uint64_t us = boot_info.tick_hz ? ticks * 1000000 / boot_info.tick_hz : 1000000;
	struct itimerval it = { { 0, 0 }, { (time_t)(us / 1000000), (suseconds_t)(us % 1000000) } };

	if (!it.it_value.tv_sec && !it.it_value.tv_usec)
		it.it_value.tv_usec = 1;	/* zero would disarm it */
	setitimer(ITIMER_REAL, &it, 0);
}

static void on_alarm(int sig)
{
	(void)sig;
	uint64_t left = run_watchdog_tick();	/* does not return past the deadline */
	if (left)
		set_timer(left);
}

void arch_watchdog_arm(uint64_t ticks)
{
	if (!ready) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;
		sa.sa_flags = SA_NODEFER | SA_RESTART;
		sigaction(SIGALRM, &sa, 0);
		ready = 1;
	}
	set_timer(ticks);
}

void arch_watchdog_disarm(void)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	sigset_t s;

	setitimer(ITIMER_REAL, &off, 0);
	sandbox_os_reap();
	sigemptyset(&s);
	sigaddset(&s, SIGALRM);
	sigaddset(&s, SIGSEGV);
	sigprocmask(SIG_UNBLOCK, &s, 0);
}

/* The watchdog's budgets are the image's clock, here the host's: on a CPU
 * others share we get a part of each second, so a budget is scaled by how
 * much of a CPU a 100 ms spin got at start (its thread's CPU time over the
 * wall time).  Alone: factor 1. */
#define SPIN_NS		100000000ll
static char load_text[160];

static int64_t ns_of(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

void sandbox_load_calibrate(struct boot_info *bi)
{
	int64_t w0 = ns_of(CLOCK_MONOTONIC), c0 = ns_of(CLOCK_THREAD_CPUTIME_ID), w, c;

	do
		w = ns_of(CLOCK_MONOTONIC) - w0;
	while (w < SPIN_NS);
	c = ns_of(CLOCK_THREAD_CPUTIME_ID) - c0;
	int64_t f = c > 0 ? w * 100 / c : 2000;
	bi->load_factor100 = (uint32_t)(f < 100 ? 100 : f > 2000 ? 2000 : f);
	snprintf(load_text, sizeof(load_text), "watchdog: budgets x%u.%02u (a %lld ms spin at start "
		 "had %lld%% of a CPU)", bi->load_factor100 / 100, bi->load_factor100 % 100,
		 (long long)(w / 1000000), (long long)(c * 100 / w));
}

void sandbox_load_report(void)
{
	if (load_text[0])
		report_diag("%s", load_text);
}
