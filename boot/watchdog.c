/* The watchdog's core side: a probe's budget, the deadline the arch's timer
 * interrupt checks (run_watchdog_tick), the sections it never cuts short,
 * and the watchdog= boot argument.  Separate from the run loop, which only
 * sets the jump back and stops it. */
#include <setjmp.h>
#include <stdint.h>
#include "arch.h"
#include "args.h"
#include "probe.h"
#include "watchdog.h"

jmp_buf watchdog_jump;
static volatile uint64_t deadline;		/* ticks; 0: disarmed */
static volatile uint32_t budget_ms;
static unsigned long opt_watchdog_ms;		/* watchdog=: every probe's budget */
static unsigned long opt_watchdog_rep;		/* watchdog_rep=: ... from this repetition */

uint32_t watchdog_scaled_ms(uint32_t ms)
{
	uint64_t f = boot_info.load_factor100 > 100 ? boot_info.load_factor100 : 100;

	if (opt_watchdog_ms && !opt_watchdog_rep)
		return opt_watchdog_ms;		/* the boot argument wins */
	return ms * f / 100 < 3600000 ? (uint32_t)(ms * f / 100) : 3600000;
}

void probe_budget(struct probe_ctx *ctx, uint32_t ms)
{
	ms = watchdog_scaled_ms(ms);
	if (opt_watchdog_ms && ctx->rep >= (int)opt_watchdog_rep)
		ms = opt_watchdog_ms;
	budget_ms = ms;
	uint64_t ticks = (uint64_t)boot_info.tick_hz * ms / 1000;
	deadline = arch_ticks() + ticks;
	arch_watchdog_arm(ticks);
}

void watchdog_stop(void)
{
	deadline = 0;
	arch_watchdog_disarm();
}

uint32_t watchdog_budget_ms(void) { return budget_ms; }

/* The run loop's own bookkeeping (samples: malloc; diagnostics: the
 * console's state) and the MMU core's (a space's slot and tables) are
 * never cut short: a longjmp out of newlib's malloc would leave its free
 * list broken, and a later allocation could land anywhere; one out of
 * space_init, a slot with no tables (boot/mmu.c).  A deadline that falls
 * inside is taken when the section ends. */
static volatile int held, missed;

void watchdog_hold(void) { held++; }

void watchdog_release(void)
{
	if (--held == 0 && missed) {
		missed = 0;
		if (deadline && arch_ticks() >= deadline) {
			deadline = 0;
			longjmp(watchdog_jump, 1);
		}
	}
}

/* From the arch's timer interrupt (interrupts off, any MMU state): past
 * the deadline, back to the run loop, which leaves the mode. */
uint64_t run_watchdog_tick(void)
{
	uint64_t now = arch_ticks();

	if (deadline && now >= deadline) {
		if (held) {		/* taken at release(); look again soon */
			missed = 1;
			return boot_info.tick_hz / 10000 ? boot_info.tick_hz / 10000 : 1;
		}
		deadline = 0;
		longjmp(watchdog_jump, 1);
	}
	return deadline ? deadline - now : 0;
}

static int set_watchdog(const char *key, const char *value)
{
	return arg_uint(key, value, 1, 3600000, &opt_watchdog_ms);
}

static int set_watchdog_rep(const char *key, const char *value)
{
	return arg_uint(key, value, 0, 999, &opt_watchdog_rep);
}

const struct boot_arg run_args[] = {
	{ "watchdog", "1..3600000 ms: every probe run's budget (default 60 s, or the probe's own, "
	  "scaled where the CPU is shared)",
	  set_watchdog },
	{ "watchdog_rep", "0..999: tests only: watchdog= from this repetition on (default 0)",
	  set_watchdog_rep },
	{ 0 }
};
