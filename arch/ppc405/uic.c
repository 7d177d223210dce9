/* The loader's interrupt sources while we run.  Our probes run with
 * MSR[EE] on (the watchdog's PIT interrupt), and U-Boot leaves its
 * universal interrupt controller as its drivers set it: its EMAC driver
 * enables UIC bits that eth_halt never masks.  Such a source would land at
 * our 0x500 as an unexpected exception, so UIC0's enables are saved and
 * cleared at entry and given back on exit=return.  The status register is
 * left alone: what is pending stays pending for the loader.
 *
 * Why masking rather than EE off with a polled watchdog: a probe stuck in
 * a loop polls nothing, so only an interrupt can stop it. */
#include <stdio.h>
#include "ppc405.h"

#define DCR_UIC0_SR	0xc0	/* status: pending sources */
#define DCR_UIC0_ER	0xc2	/* enables */
#define DCR_UIC0_MSR	0xc6	/* masked status: SR & ER, what reaches the core */

static uint32_t loader_er, loader_sr;
static int saved;
static char text[160];

/* Both chips here (405GP, 405EP) have UIC0 at DCR 0xc0; on another chip
 * nothing is touched and the banner says so. */
void ppc405_uic_mask(void)
{
	uint32_t pvr = mfspr(SPR_PVR) >> 16;

	if (pvr != 0x4011 && pvr != 0x5121) {
		snprintf(text, sizeof(text), "uic: not touched (chip not known): its sources may "
			 "interrupt the probes");
		return;
	}
	loader_er = mfdcr(DCR_UIC0_ER);
	loader_sr = mfdcr(DCR_UIC0_SR);
	mtdcr(DCR_UIC0_ER, 0);
	saved = 1;
	snprintf(text, sizeof(text), "uic: UIC0_ER 0x%08lx while we run, UIC0_MSR 0x%08lx (the "
		 "loader's ER 0x%08lx, SR 0x%08lx: enables kept for exit=return)",
		 (unsigned long)mfdcr(DCR_UIC0_ER), (unsigned long)mfdcr(DCR_UIC0_MSR),
		 (unsigned long)loader_er, (unsigned long)loader_sr);
}

/* Called with MSR[EE] off: the loader's rfi turns it back on. */
void ppc405_uic_restore(void)
{
	if (saved)
		mtdcr(DCR_UIC0_ER, loader_er);
}

const char *ppc405_uic_text(void)
{
	return text;
}
