/* The CPU clock from the 405's clock controller, so it is known without
 * any bd_t: the board's SysClk through the PLL, as the registers say.
 * Which registers depends on the chip (PVR). */
#include <stdio.h>
#include "ppc405.h"

#define DCR_CPC0_PLLMR		0xb0	/* 405GP */
#define DCR_CPC0_CR1		0xb2	/* 405GP chip control 1 (0xb1 is CR0) */
#define DCR_CPC0_PSR		0xb4	/* 405GP pin strapping */
#define CR1_CETE		0x00800000u	/* timers count TmrClk, not the CPU clock */
#define DCR_CPC0_PLLMR0		0xf0	/* 405EP */
#define DCR_CPC0_PLLMR1		0xf4

/* 405GP CPC0_PLLMR: FWDV (bits 0-2) forward divider = 8 - field, 1 means
 * the PLL is bypassed (CPU = SysClk); FBDV (bits 3-6) feedback divider,
 * 0 = 16; CBDV (bits 13-14) CPU:PLB ratio = field + 1.  The PLB clock
 * is SysClk x FBDV, the CPU runs CBDV times faster. */
static uint32_t gp_cpu_hz(uint32_t sysclk, uint32_t pllmr)
{
	uint32_t fwdv = 8 - ((pllmr >> 29) & 7);
	uint32_t fbdv = (pllmr >> 25) & 0xf;
	uint32_t cbdv = ((pllmr >> 17) & 3) + 1;

	if (fwdv == 1)
		return sysclk;
	return (uint64_t)sysclk * (fbdv ? fbdv : 16) * cbdv;
}

/* 405EP: CPC0_PLLMR1 FBMUL feedback multiplier (bits 8-11, 0 = 16) when
 * the PLL is selected (SSCS, bit 0) and not bypassed (bit 1, PLLR);
 * CPC0_PLLMR0 CCDV CPU divider = field + 1. */
static uint32_t ep_cpu_hz(uint32_t sysclk, uint32_t m0, uint32_t m1)
{
	uint64_t pll = sysclk;

	if ((m1 & 0x80000000u) && !(m1 & 0x40000000u))
		pll *= (((m1 >> 20) - 1) & 0xf) + 1;
	return pll / (((m0 >> 20) & 3) + 1);
}

uint32_t ppc405_pll_cpu_hz(uint32_t sysclk, char *src, unsigned n)
{
	uint32_t pvr = mfspr(SPR_PVR);
	unsigned long mhz = sysclk / 1000000, khz = sysclk / 1000 % 1000;

	if (pvr >> 16 == 0x4011) {
		uint32_t pllmr = mfdcr(DCR_CPC0_PLLMR), psr = mfdcr(DCR_CPC0_PSR);
		snprintf(src, n, "405GP PLL: CPC0_PLLMR %#lx (CPC0_PSR %#lx), SysClk %lu.%03lu MHz",
			 (unsigned long)pllmr, (unsigned long)psr, mhz, khz);
		return gp_cpu_hz(sysclk, pllmr);
	}
	if (pvr >> 16 == 0x5121) {
		uint32_t m0 = mfdcr(DCR_CPC0_PLLMR0), m1 = mfdcr(DCR_CPC0_PLLMR1);
		snprintf(src, n, "405EP PLL: CPC0_PLLMR0/1 %#lx/%#lx, SysClk %lu.%03lu MHz",
			 (unsigned long)m0, (unsigned long)m1, mhz, khz);
		return ep_cpu_hz(sysclk, m0, m1);
	}
	snprintf(src, n, "no PLL decoding for PVR %#010lx", (unsigned long)pvr);
	return 0;
}

/* Which clock the timebase (and PIT) counts.  405GP (manual, clocking
 * chapter): CPC0_CR1[CETE] selects the external TmrClk input instead of
 * the CPU clock; firmware may leave it set (Linux's 405GP set-up clears
 * it).  We only read it: the loader's timer stays as it had it.  The
 * 405EP's CPC0_CR1 (DCR 0xf2) is not read: QEMU 7.2's ref405ep does not
 * model that DCR (an mfdcr of it never completes there), so on the 405EP
 * the CPU clock is taken, and the text says so.  Returns 1 for TmrClk,
 * 0 for the CPU clock as read, -1 where nothing was read. */
int ppc405_tb_clock(char *text, unsigned n)
{
	uint32_t pvr = mfspr(SPR_PVR);

	if (pvr >> 16 == 0x4011) {
		uint32_t cr1 = mfdcr(DCR_CPC0_CR1);
		int ext = (cr1 & CR1_CETE) != 0;
		snprintf(text, n, "timebase: counts %s (405GP CPC0_CR1 %#lx: CETE %s)",
			 ext ? "TmrClk, the external timer clock" : "the CPU clock",
			 (unsigned long)cr1, ext ? "set" : "clear");
		return ext;
	}
	snprintf(text, n, "timebase: taken as counting the CPU clock (%s: its timer clock "
		 "selection is not read; QEMU 7.2 does not model the 405EP's CPC0_CR1)",
		 pvr >> 16 == 0x5121 ? "405EP" : "chip not known");
	return -1;
}
