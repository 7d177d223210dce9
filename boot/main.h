/* boot/main.c's for the rest of boot/: the stack paint and its high-water mark. */
#ifndef BOOT_MAIN_H
#define BOOT_MAIN_H
#include <stdint.h>

void boot_paint_stack(void);
uintptr_t boot_stack_high_water(void);

#endif
