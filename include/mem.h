/* The one owner of RAM for probes and page tables (boot/mem.c).  The board
 * says where free RAM is; the MMU core takes its page-table pool off the
 * top; probes get the rest (include/probe.h: probe_mem_alloc).  Every MMU
 * mode maps [0, mem_ram_end()) 1:1 by default. */
#ifndef MEM_H
#define MEM_H
#include <stddef.h>
#include <stdint.h>

/* board_init: free RAM is [start, end), past the image, below the loader's. */
void mem_set_free_ram(uintptr_t start, uintptr_t end);

/* The MMU core: `bytes` (4K multiple) off the top for page tables; the base,
 * or 0 when it does not fit above the image with 1 MiB to spare. */
uintptr_t mem_reserve_top(size_t bytes);

uintptr_t mem_ram_end(void);		/* end of the free RAM the board gave */
uintptr_t mem_probe_start(void);	/* probe memory: [start, end) */
uintptr_t mem_probe_end(void);
uintptr_t mem_probe_high(void);	/* end of the highest block probes got; 0 none */

/* The heap's break, between the linker's __heap_start and __heap_end:
 * newlib's sbrk on the boards (boot/syscalls.c), the sandbox's
 * (arch/sandbox/heap.c).  (void *)-1 with ENOMEM past either end. */
void *heap_sbrk(intptr_t incr);

#endif
