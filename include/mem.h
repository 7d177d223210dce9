/* Physical RAM for probe buffers: what lies past the image, up to the end
 * of the RAM the board found.  Every MMU mode maps it 1:1 by default, so a
 * buffer's address is the same virtual and physical. */
#ifndef MEM_H
#define MEM_H
#include <stddef.h>
#include <stdint.h>

/* `len` bytes aligned to `align`, at or above `min_addr`.  Returns 0 after
 * printing what was asked and what exists when RAM is too small. */
uintptr_t probe_mem_alloc(size_t len, size_t align, uintptr_t min_addr, const char *what);

/* Give back everything (between probes). */
void probe_mem_reset(void);

/* The free range, for arch code that maps RAM (set by board_init). */
extern uintptr_t probe_mem_start, probe_mem_end;

#endif
