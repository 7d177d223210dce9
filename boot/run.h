/* Between the files of boot/: the run loop, the stack paint, the MMU
 * core's start-up and per-mode figures. */
#ifndef BOOT_RUN_H
#define BOOT_RUN_H
#include <stdint.h>
#include "mmu_arch.h"

void run_probes(void);
int run_planned(void);
void run_planned_name(int index, char *buf, int size);
void boot_paint_stack(void);
uintptr_t boot_stack_high_water(void);
void mmu_init(void);
void mmu_report_figures(const struct mmu_mode *m);
const char *mmu_unavailable(const struct mmu_mode *m);
void timing_init(void);

#endif
