/* Between boot/proc.c and boot/proc_mem.c: the processes' frame pool. */
#ifndef PROC_MEM_H
#define PROC_MEM_H
#include <stdint.h>

int proc_pool_init(void);			/* once; 0, or -1 after saying why */
uint32_t proc_pool_bytes(void);			/* its size; 0 before init */
uintptr_t proc_frames_alloc(uint32_t n);	/* n contiguous frames, 1 reference each; 0 */
uint8_t *proc_frame_ref(uintptr_t frame);	/* its reference count */
void proc_frame_put(uintptr_t frame);		/* one reference less (0: free) */

#endif
