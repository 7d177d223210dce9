/* The MPIC (an OpenPIC) as U-Boot leaves it: CPU 0's current task priority
 * 0, so any source it enabled interrupts a probe running with MSR[EE] on,
 * into a vector that expects only the decrementer.  CTPR 15 masks every
 * priority (MPC8548ERM 10.3.7.1, "CTPR"); exit=return gives the loader's
 * back.  The 405 masks its UIC for the same reason. */
#include <stdio.h>
#include "e500.h"

static uint32_t loader_ctpr;
static int masked;
static char text[160];

static volatile uint32_t *ctpr(void)
{
	return (volatile uint32_t *)(E500_CCSR_VA + e500_fdt.mpic_off + MPIC_CTPR0);
}

void e500_mpic_mask(void)
{
	if (!e500_fdt.mpic_off) {
		snprintf(text, sizeof(text), "none in the device tree: no source masked");
		return;
	}
	loader_ctpr = *ctpr();
	*ctpr() = 15;
	__asm__ volatile("msync" ::: "memory");
	masked = 1;
	snprintf(text, sizeof(text), "CTPR %lu as the loader left it, now %lu: every source masked",
		 (unsigned long)loader_ctpr, (unsigned long)*ctpr());
}

void e500_mpic_restore(void)
{
	if (masked)
		*ctpr() = loader_ctpr;
	__asm__ volatile("msync" ::: "memory");
}

const char *e500_mpic_text(void)
{
	return text;
}
