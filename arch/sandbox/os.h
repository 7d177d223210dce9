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

/* os_proc.c: lat_syscall null, lat_proc fork and exec, lat_mmap. */
int sandbox_null_call(uint32_t pages, struct probe_time *t, char *why, size_t len);
int sandbox_fork_proc(uint32_t bytes, uint32_t writes, struct probe_time *t,
		      uint64_t *child_faults, char *why, size_t len);
int sandbox_exec_proc(int shell, struct probe_time *t, uint64_t *execs, uint64_t *ran,
		      char *why, size_t len);
int sandbox_mmap_file(uint32_t bytes, struct probe_time *t, uint64_t *faults, char *why, size_t len);
void sandbox_proc_reap(void);

/* os.c: t less base_ticks1000 per iteration over `per` events (1 with
 * `why` where nothing is left); a file of `bytes` in the page cache, gone
 * once closed. */
int sandbox_os_net(struct probe_time *t, uint64_t base_ticks1000, unsigned per,
		   const char *what, char *why, size_t len);
int sandbox_temp_file(size_t bytes);

/* The end of every probe run (arch_watchdog_disarm): children killed and
 * reaped, signal actions and files of the OS figures given back. */
void sandbox_os_reap(void);
#endif
