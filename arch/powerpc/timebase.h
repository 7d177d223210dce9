/* arch/powerpc/timebase.c: arch_ticks() for both PowerPCs, and the rate
 * measured against QEMU's instruction count (icount_shift >= 0), which each
 * arch's arch_calibrate_ticks() takes when it has one. */
#ifndef POWERPC_TIMEBASE_H
#define POWERPC_TIMEBASE_H
#include "boot_info.h"

void ppc_tb_measure(struct boot_info *bi, int icount_shift);

#endif
