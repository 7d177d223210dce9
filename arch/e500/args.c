/* The e500's boot arguments.  fdt= is read by the entry code itself (it
 * must know the device tree before the console exists); here it is only
 * accepted and checked. */
#include <stdlib.h>
#include "args.h"
#include "e500.h"
#include "report.h"

/* Hex, with or without 0x (U-Boot's variables have none). */
static int set_fdt(const char *key, const char *value)
{
	char *end;

	if (value && *value && (strtoul(value, &end, 16), !*end))
		return 0;
	console_printf("mmubench: error: boot argument '%s=%s': a hex address (fdt=${fdtcontroladdr})\n",
		       key, value ? value : "");
	return -1;
}

const struct boot_arg arch_args[] = {
	{ "fdt", "the device tree's address in hex, for U-Boot go (fdt=${fdtcontroladdr}); "
		 "bootm and QEMU pass it in r3", set_fdt },
	{ 0 }
};
