/* The watchdog's timer in a process: ITIMER_REAL, one shot, and SIGALRM
 * calling run_watchdog_tick(), which longjmps back to the run loop past
 * the deadline.  SA_NODEFER: a handler left by longjmp must not leave
 * SIGALRM blocked (glibc's setjmp keeps no signal mask); disarm unblocks
 * SIGSEGV too, in case the deadline fell inside a fault's handler.  Disarm
 * ends every probe run, however it ended: the OS figures' children and
 * signal actions go then too (os.c). */
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include "arch.h"
#include "os.h"

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
