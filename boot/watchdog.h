/* The watchdog's core side (boot/watchdog.c), for the run loop and the
 * probe API: the jump back, the budget, the sections it never cuts short. */
#ifndef BOOT_WATCHDOG_H
#define BOOT_WATCHDOG_H
#include <setjmp.h>
#include <stdint.h>

/* Where run_watchdog_tick() longjmps past the deadline: the run loop sets it. */
extern jmp_buf watchdog_jump;

/* A probe run's budget unless the probe sets its own. */
#define WATCHDOG_DEFAULT_MS	60000

/* The budget a probe asking for `ms` gets: watchdog= if given, else ms
 * scaled by boot_info.load_factor100 (a CPU we share runs us slower). */
uint32_t watchdog_scaled_ms(uint32_t ms);
void watchdog_stop(void);		/* the probe's run ended: disarmed */
uint32_t watchdog_budget_ms(void);	/* the budget the last probe_budget() set */

/* Around the run loop's own bookkeeping (malloc, the console) and the MMU
 * core's space slots: a deadline inside is taken at the end of the
 * outermost section. */
void watchdog_hold(void);
void watchdog_release(void);

#endif
