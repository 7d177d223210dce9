/* Between the files of arch/sandbox: where the sandbox's "RAM" lies.
 *
 * RAM is a memfd of RAM_BYTES mapped at RAM_BASE, "physical" address =
 * RAM_BASE + offset in the memfd, so the default mapping is 1:1 as on the
 * boards.  Its first IMAGE_BYTES are the image's area (our heap and the
 * stack the run uses), always in 4K pages; probe memory is the rest.  The
 * whole memfd is mapped once more elsewhere: the physical view.
 *
 * RAM_BYTES is chosen at start (entry.c): up to a quarter of MemAvailable,
 * or the ram= boot argument, in 2 MiB steps, at most RAM_MAX_BYTES: RAM
 * ends below the self-check's alias page, 4 MiB below the address spaces'
 * window at 0xC0000000 (boot/mmu.c, include/mmu.h); the probes' scratch
 * windows lie above (0xD0000000...). */
#ifndef SANDBOX_H
#define SANDBOX_H

#define RAM_BASE	0x10000000
#define RAM_LAYOUT_END	0xBFC00000		/* MMU_SPACE_BASE - 4 MiB */
#define RAM_MAX_BYTES	(RAM_LAYOUT_END - RAM_BASE)	/* 2812 MiB */
#define RAM_MIN_BYTES	0x04000000		/* 64 MiB: the image's 4 and 60 for probes */
#define RAM_BYTES	sandbox_ram_bytes
#define RAM_END		(RAM_BASE + sandbox_ram_bytes)
#define IMAGE_BYTES	0x00400000		/* heap 2 MiB, stack 2 MiB */
#define HEAP_START	RAM_BASE
#define HEAP_END	(RAM_BASE + 0x00200000)
#define STACK_BOTTOM	HEAP_END
#define STACK_TOP	(RAM_BASE + IMAGE_BYTES)
#define PROBE_START	(RAM_BASE + IMAGE_BYTES)
#define LARGE		0x00200000		/* 2 MiB: THP and hugetlb page */

#ifndef __ASSEMBLY__
#include <stdint.h>
#include "boot_info.h"

extern uintptr_t sandbox_ram_bytes;	/* RAM_BYTES: a 2 MiB multiple */
extern const char *sandbox_ram_source;	/* how it was chosen, for the banner */
void sandbox_ram_choose(void);		/* entry.c: RAM_BYTES, once, before it is mapped */
int sandbox_set_ram(const char *key, const char *value);	/* the ram= boot argument */

void sandbox_ram_init(void);		/* the memfd, both views, the image's area */
void sandbox_faults_init(void);		/* SIGSEGV/SIGBUS handler */
void sandbox_cpu_init(void);		/* pin to one CPU, read CPUID */
/* watchdog.c: the watchdog's scale for a shared CPU, measured; its line. */
void sandbox_load_calibrate(struct boot_info *bi);
void sandbox_load_report(void);
void sandbox_entry_clocks(struct boot_info *bi);	/* main's start, in both clocks */
int sandbox_cpu(void);			/* the CPU we run on */
void sandbox_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]);
extern uint32_t sandbox_max_leaf, sandbox_max_ext;	/* CPUID's highest leaves (cpu.c) */
extern char sandbox_tsc_note[];		/* timer.c: the TSC cross-check, or "" */
const char *sandbox_thp_setting(char *buf, int size, const char *file);
long sandbox_meminfo(const char *key);		/* a /proc/meminfo figure, -1 */
unsigned sandbox_dtlb_entries(int large);	/* L1 dTLB, 4K or 2M pages; 0 unknown */
#endif
#endif
