/* From the registers the loader left to boot_info: which entry path, the
 * device tree, the command line or argv; then the boot translation, before
 * anything touches the console (the CCSR block is mapped by it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch.h"
#include "boot_info.h"
#include "e500.h"

#define EPAPR_MAGIC	0x45504150u	/* "EPAP": r6 of an ePAPR entry (r3 = device tree) */
#define MAX_GO_ARGC	64		/* an argc is small; a pointer is not */

const char *e500_fdt_source;
const char *e500_fdt_error;		/* why there is no device tree (board_init reports it) */
static char cmdline[1024];

int arch_can_return(void)
{
	return 0;	/* the loader's TLB1 entries are gone: no way back to it */
}

void arch_return_to_loader(int status)
{
	(void)status;
	arch_halt();
}

/* go's argv: fdt=<address> gives the device tree (U-Boot's go passes none:
 * the boot script adds fdt=${fdtcontroladdr}).  Hex, as U-Boot prints its
 * variables (7a8de80) or with 0x; anything else gives no address. */
static const void *fdt_from_argv(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *end;
		if (strncmp(argv[i], "fdt=", 4))
			continue;
		unsigned long a = strtoul(argv[i] + 4, &end, 16);
		return *end || end == argv[i] + 4 ? 0 : (const void *)a;
	}
	return 0;
}

void e500_entry(uint32_t r3, uint32_t r4, uint32_t r5, uint32_t r6, uint32_t r7)
{
	struct boot_info *bi = &boot_info;
	const void *fdt = 0;

	(void)r5;
	bi->entry_ticks = arch_ticks();
	if (r6 == EPAPR_MAGIC) {
		bi->entry = ENTRY_UBOOT_BOOTM;
		bi->entry_name = "ePAPR: r3 = device tree, r6 = ePAPR magic (QEMU's own boot, "
				 "or U-Boot bootm with a device tree)";
		fdt = (const void *)r3;
		e500_fdt_source = "r3 (ePAPR entry)";
		(void)r7;	/* the initial mapping's size: we make our own */
	} else if (r3 <= MAX_GO_ARGC) {
		bi->entry = ENTRY_UBOOT_GO;
		bi->entry_name = "U-Boot go (r3 = argc, r4 = argv)";
		bi->argc = r3;
		bi->argv = (char **)r4;
		fdt = fdt_from_argv(bi->argc, bi->argv);
		e500_fdt_source = "the boot argument fdt= (U-Boot go)";
	} else {
		bi->entry = ENTRY_UBOOT_BOOTM;
		bi->entry_name = "bd_t in r3, command line in r6/r7 (U-Boot bootm without a device tree)";
		e500_fdt_source = "none: bootm was given no device tree (bootm <image> - <fdt>)";
	}
	e500_fdt_error = fdt ? e500_fdt_read(fdt, &e500_fdt) : "no device tree was passed";
	if (!e500_fdt_error && (!e500_fdt.ram_bytes || !e500_fdt.ccsr_pa || !e500_fdt.uart_off))
		e500_fdt_error = "the device tree gives no /memory reg, /soc ranges or ns16550";
	if (e500_fdt_error) {
		/* Nothing to map RAM and console by: the board prints the error
		 * through QEMU ppce500's fixed CCSR (e500_ccsr_fallback). */
		e500_fdt.ram_bytes = 64u << 20;		/* only for the error path's map */
		e500_fdt.ccsr_pa = E500_CCSR_FALLBACK_PA;
		e500_fdt.uart_off = E500_UART_FALLBACK_OFF;
	}
	if (bi->entry != ENTRY_UBOOT_GO) {
		const char *a = e500_fdt.bootargs ? e500_fdt.bootargs : "";
		strncpy(cmdline, a, sizeof(cmdline) - 1);	/* boot_main reports overlong lines */
		bi->cmdline = cmdline;
	}
	e500_boot_translation(e500_fdt.ram_bytes, e500_fdt.ccsr_pa);
	boot_main();
}
