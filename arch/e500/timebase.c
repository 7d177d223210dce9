/* The e500's timebase rate: measured under QEMU -icount
 * (arch/powerpc/timebase.c), else the device tree's timebase-frequency. */
#include <stdio.h>
#include "arch.h"
#include "boot_info.h"
#include "e500.h"
#include "../powerpc/timebase.h"

void arch_calibrate_ticks(struct boot_info *bi, int icount_shift)
{
	static char source[80];

	if (icount_shift >= 0) {
		ppc_tb_measure(bi, icount_shift);
		return;
	}
	if (e500_fdt.tb_hz) {
		bi->tick_hz = e500_fdt.tb_hz;
		snprintf(source, sizeof(source), "the device tree's timebase-frequency (%lu Hz)",
			 (unsigned long)e500_fdt.tb_hz);
	} else {
		bi->tick_hz = 0;
		snprintf(source, sizeof(source), "no timebase-frequency in the device tree: no time figures");
	}
	bi->tick_hz_source = source;
}

