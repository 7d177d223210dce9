/* boot/timing.c's start-up, for boot/main.c: the timer read's cost, the core
 * clock, where the figures come from. */
#ifndef BOOT_TIMING_H
#define BOOT_TIMING_H

void timing_init(void);

#endif
