/* What each arch/ provides to boot/ and the probes. */
#ifndef ARCH_H
#define ARCH_H
#include <stdint.h>
#include "boot_info.h"

extern const char arch_name[];

/* Vectors/IDT and anything else the CPU needs before C runs probes. */
void arch_init(struct boot_info *bi);

/* Free-running tick counter (timebase, TSC) and its calibration: sets
 * bi->tick_hz and bi->tick_hz_source, measuring where the board has a
 * reference.  `icount_shift` >= 0 when the runner told us QEMU counts
 * instructions (1 instruction = 2^shift ns). */
uint64_t arch_ticks(void);
void arch_calibrate_ticks(struct boot_info *bi, int icount_shift);

/* The core clock, as LMbench's mhz measures it: `iters` iterations of a
 * loop of 16 (wide: 32) dependent one-cycle adds; returns its ticks.  The
 * difference of the two is iters * 16 cycles, loop overhead cancelled. */
uint64_t arch_add_chain_ticks(uint32_t iters, int wide);

/* The data caches as the CPU reports them (i386: CPUID; the 405: its PVR):
 * level 1..3 in bytes, 0 where there is none or nothing says; the line. */
uint32_t arch_cache_bytes(int level);
uint32_t arch_cache_ways(int level);	/* 0: not known */
uint32_t arch_cache_line(void);

/* Where we run, as the CPU tells (i386: CPUID's hypervisor leaf): "KVM",
 * "QEMU TCG", "hypervisor <signature>", "bare hardware"; 0 when the CPU
 * cannot tell (the 405: then the boot arguments do). */
const char *arch_platform(void);

/* Banner lines about the CPU (through report_diag), and run-wide
 * measurements at the start of the measurement block (i386: cpuid.flat.*). */
void arch_describe_cpu(void);
void arch_report_measurements(void);

/* The watchdog's timer (405: the PIT, or the loader's PIT tick; i386: the
 * 8254 PIT on IRQ 0): an interrupt no later than `ticks` (arch_ticks
 * units) from now, or at the timer's next tick where it ticks on its own;
 * interrupts on until disarmed.  The interrupt calls run_watchdog_tick(), which returns the
 * ticks left to the deadline (re-arm for them) and never returns once the
 * deadline has passed. */
void arch_watchdog_arm(uint64_t ticks);
void arch_watchdog_disarm(void);
uint64_t run_watchdog_tick(void);

/* boot/: where the arch's entry code goes, on our stack, BSS cleared. */
void boot_main(void) __attribute__((noreturn));

/* NULL when this architecture can raise `kind`, else why not. */
const char *arch_crash_unsupported(const char *kind);
void arch_crash(const char *kind);

/* Return to the loader (U-Boot go) with a status, if we came from one. */
int arch_can_return(void);
void arch_return_to_loader(int status) __attribute__((noreturn));

/* Stop the CPU for good. */
void arch_halt(void) __attribute__((noreturn));

/* Bounds for the boot probe and sbrk (from the linker script). */
extern char __heap_start[], __heap_end[], __stack_bottom[], __stack_top[];
extern char __image_start[], __image_end[];

#endif
