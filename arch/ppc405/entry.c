/* From the registers the loader left to boot_info: which entry path, the
 * command line or argv, the bd_t. */
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "boot_info.h"
#include "ppc405.h"


static int entered_by_go;

int arch_can_return(void)
{
	return entered_by_go;
}

void arch_return_to_loader(int status)
{
	mtmsr(mfmsr() & ~MSR_EE);	/* the loader's rfi turns it back on */
	ppc405_uic_restore();
	ppc405_return_to_loader(status);
}

/* An argc is small; a bd_t pointer is a RAM address past the vectors. */
#define MAX_GO_ARGC 64

/* clocks_in_mhz: with that U-Boot variable set, U-Boot passes intfreq and
 * busfreq in MHz instead of Hz (bootm's bd_t, and gd->bd that go finds).
 * No 405 runs below 10 MHz or above 10 GHz, so a figure below 10000 is
 * MHz on either entry path: taken times 10^6, and the banner says so. */
#define MHZ_BELOW	10000u

static struct ppc4xx_bd bd_copy;
static uint32_t bd_intfreq_given;
static int bd_in_mhz;

const struct ppc4xx_bd *ppc405_take_bd(const struct ppc4xx_bd *b)
{
	bd_copy = *b;
	bd_intfreq_given = b->intfreq;
	bd_in_mhz = b->intfreq && b->intfreq < MHZ_BELOW;
	if (bd_in_mhz) {
		bd_copy.intfreq = b->intfreq * 1000000u;
		if (b->busfreq < MHZ_BELOW)
			bd_copy.busfreq = b->busfreq * 1000000u;
	}
	return &bd_copy;
}

const char *ppc405_bd_intfreq_text(void)
{
	static char text[96];

	if (bd_in_mhz)
		snprintf(text, sizeof(text), "bd_t intfreq %lu, in MHz (clocks_in_mhz): %lu Hz",
			 (unsigned long)bd_intfreq_given, (unsigned long)bd_copy.intfreq);
	else
		snprintf(text, sizeof(text), "bd_t intfreq %lu", (unsigned long)bd_intfreq_given);
	return text;
}

/* U-Boot on PowerPC keeps its global data in a fixed register: r2 from
 * 2.x on, r29 in 1.x; gd->bd (the bd_t) is gd's first word.  'go' passes
 * no bd_t but leaves that register alone.  Taken only when it looks like
 * one: both pointers word-aligned and low in RAM (never a wild access on a
 * real board), a power-of-two memsize and a CPU clock in the 405's range
 * (in Hz, or in MHz with clocks_in_mhz). */
static const struct ppc4xx_bd *bd_from_uboot_gd(uint32_t gd)
{
	const uint32_t ram_max = 256u << 20;		/* the Walnut's largest */

	if (!gd || (gd & 3) || gd >= ram_max)
		return 0;
	uint32_t bd = *(volatile uint32_t *)gd;
	if (!bd || (bd & 3) || bd >= ram_max)
		return 0;
	const struct ppc4xx_bd *b = (const struct ppc4xx_bd *)bd;
	uint32_t f = b->intfreq < MHZ_BELOW ? b->intfreq * 1000000u : b->intfreq;
	if (b->memsize < (4u << 20) || b->memsize > ram_max || (b->memsize & (b->memsize - 1)) ||
	    f < 25000000u || f > 1000000000u)
		return 0;
	return ppc405_take_bd(b);
}

void ppc405_entry(uint32_t r3, uint32_t r4, uint32_t r5, uint32_t r6, uint32_t r7)
{
	static char cmdline[1024];	/* longer than boot_main takes: it reports overlong lines */
	struct boot_info *bi = &boot_info;

	(void)r5;
	bi->entry_ticks = arch_ticks();
	ppc405_uic_mask();		/* before anything turns MSR[EE] on */
	ppc405_pit_take();
	if (r3 <= MAX_GO_ARGC) {
		entered_by_go = 1;
		bi->entry = ENTRY_UBOOT_GO;
		bi->argc = r3;
		bi->argv = (char **)r4;
		if ((bi->bd = (void *)bd_from_uboot_gd(loader_regs.r2)))
			bi->entry_name = "U-Boot go (r3 = argc, r4 = argv; bd_t from gd in r2)";
		else if ((bi->bd = (void *)bd_from_uboot_gd(loader_regs.r13_31[29 - 13])))
			bi->entry_name = "U-Boot go (r3 = argc, r4 = argv; bd_t from gd in r29, U-Boot 1.x)";
		else
			bi->entry_name = "U-Boot go (r3 = argc, r4 = argv; no bd_t in r2 or r29)";
	} else {
		bi->entry = ENTRY_UBOOT_BOOTM;
		bi->entry_name = "bd_t in r3, command line in r6/r7 (U-Boot bootm or QEMU -kernel)";
		bi->bd = (void *)ppc405_take_bd((const struct ppc4xx_bd *)r3);
		/* r6..r7 is the command line, end exclusive; may be NUL-terminated early. */
		size_t len = r6 && r7 > r6 ? r7 - r6 : 0;
		if (len >= sizeof(cmdline))
			len = sizeof(cmdline) - 1;
		memcpy(cmdline, (const char *)r6, len);
		cmdline[len] = 0;
		bi->cmdline = cmdline;
	}
	boot_main();
}
