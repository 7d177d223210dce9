/* Between the files of arch/sandbox: where the sandbox's "RAM" lies.
 *
 * RAM is a memfd of RAM_BYTES mapped at RAM_BASE, "physical" address =
 * RAM_BASE + offset in the memfd, so the default mapping is 1:1 as on the
 * boards.  Its first IMAGE_BYTES are the image's area (our heap and the
 * stack the run uses), always in 4K pages; probe memory is the rest.  The
 * whole memfd is mapped once more elsewhere: the physical view. */
#ifndef SANDBOX_H
#define SANDBOX_H

#define RAM_BASE	0x10000000
#define RAM_BYTES	0x20000000		/* 512 MiB */
#define RAM_END		(RAM_BASE + RAM_BYTES)
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

void sandbox_ram_init(void);		/* the memfd, both views, the image's area */
void sandbox_faults_init(void);		/* SIGSEGV/SIGBUS handler */
void sandbox_cpu_init(void);		/* pin to one CPU, read CPUID */
int sandbox_cpu(void);			/* the CPU we run on */
void sandbox_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]);
const char *sandbox_thp_setting(char *buf, int size, const char *file);
long sandbox_meminfo(const char *key);		/* a /proc/meminfo figure, -1 */
unsigned sandbox_dtlb_entries(int large);	/* L1 dTLB, 4K or 2M pages; 0 unknown */
#endif
#endif
