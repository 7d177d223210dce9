/* The MMU core's (boot/mmu.c) for the rest of boot/: start-up, and what the
 * run loop asks of a mode before its probes run.  Probes see include/mmu.h,
 * the arches include/mmu_arch.h. */
#ifndef BOOT_MMU_CORE_H
#define BOOT_MMU_CORE_H
#include "mmu_arch.h"

void mmu_init(void);
void mmu_report_figures(const struct mmu_mode *m);	/* once per mode */
const char *mmu_unavailable(const struct mmu_mode *m);

#endif
