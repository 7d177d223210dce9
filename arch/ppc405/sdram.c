/* RAM size from the 405's own SDRAM controller: the sum of its enabled
 * banks.  Firmware (or QEMU) programmed them; we only read. */
#include "ppc405.h"

#define DCR_SDRAM0_CFGADDR	0x10
#define DCR_SDRAM0_CFGDATA	0x11
#define SDRAM0_B0CR		0x40	/* B1CR..B3CR follow every 4 */
#define BxCR_ENABLED		0x1
#define BxCR_SIZE(bcr)		(((bcr) >> 17) & 7)	/* 4 MiB << n; 7 reserved */

uint64_t ppc405_sdram_bytes(void)
{
	uint64_t total = 0;

	for (unsigned bank = 0; bank < 4; bank++) {
		mtdcr(DCR_SDRAM0_CFGADDR, SDRAM0_B0CR + 4 * bank);
		uint32_t bcr = mfdcr(DCR_SDRAM0_CFGDATA);
		if ((bcr & BxCR_ENABLED) && BxCR_SIZE(bcr) != 7)
			total += (uint64_t)4 << 20 << BxCR_SIZE(bcr);
	}
	return total;
}
