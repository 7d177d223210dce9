/* From the registers the loader left to boot_info: which entry path, the
 * command line or argv, the bd_t. */
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
	ppc405_return_to_loader(status);
}

/* An argc is small; a bd_t pointer is a RAM address past the vectors. */
#define MAX_GO_ARGC 64

/* start.S: the loader's r1, r2, LR, MSR, EVPR, r13..r31. */
extern uint32_t loader_regs[];

/* U-Boot on PowerPC keeps its global data in r2, and gd->bd (the bd_t)
 * is gd's first word; 'go' passes no bd_t, but leaves r2 alone.  Taken
 * only when it looks like one: both pointers word-aligned and low in RAM
 * (never a wild access on a real board), a power-of-two memsize and a CPU
 * clock in the 405's range. */
static void *bd_from_uboot_gd(uint32_t r2)
{
	const uint32_t ram_max = 256u << 20;		/* the Walnut's largest */

	if (!r2 || (r2 & 3) || r2 >= ram_max)
		return 0;
	uint32_t bd = *(volatile uint32_t *)r2;
	if (!bd || (bd & 3) || bd >= ram_max)
		return 0;
	const struct ppc4xx_bd *b = (const struct ppc4xx_bd *)bd;
	if (b->memsize < (4u << 20) || b->memsize > ram_max || (b->memsize & (b->memsize - 1)) ||
	    b->intfreq < 25000000u || b->intfreq > 1000000000u)
		return 0;
	return (void *)bd;
}

void ppc405_entry(uint32_t r3, uint32_t r4, uint32_t r5, uint32_t r6, uint32_t r7)
{
	static char cmdline[1024];	/* longer than boot_main takes: it reports overlong lines */
	struct boot_info *bi = &boot_info;

	(void)r5;
	bi->entry_ticks = arch_ticks();
	if (r3 <= MAX_GO_ARGC) {
		entered_by_go = 1;
		bi->entry = ENTRY_UBOOT_GO;
		bi->argc = r3;
		bi->argv = (char **)r4;
		bi->bd = bd_from_uboot_gd(loader_regs[1]);
		bi->entry_name = bi->bd ? "U-Boot go (r3 = argc, r4 = argv; bd_t from gd in r2)"
					: "U-Boot go (r3 = argc, r4 = argv; no bd_t)";
	} else {
		bi->entry = ENTRY_UBOOT_BOOTM;
		bi->entry_name = "bd_t in r3, command line in r6/r7 (U-Boot bootm or QEMU -kernel)";
		bi->bd = (void *)r3;
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
