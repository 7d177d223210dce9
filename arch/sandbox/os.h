/* Between arch/sandbox's OS-cost files (os.c, os_ring.c): include/probe.h's
 * struct probe_os, Linux's side. */
#ifndef SANDBOX_OS_H
#define SANDBOX_OS_H
#include "probe.h"

void *sandbox_ring_open(unsigned procs, unsigned bytes, char *why, size_t len);
uint64_t sandbox_ring_run(void *ring, uint32_t n);
uint64_t sandbox_ring_alone(void *ring, uint32_t n);
int sandbox_ring_close(void *ring, struct probe_ring_counts *c);
void sandbox_ring_reap(void);

/* The end of every probe run (arch_watchdog_disarm): children killed and
 * reaped, signal actions and files of the OS figures given back. */
void sandbox_os_reap(void);
#endif
