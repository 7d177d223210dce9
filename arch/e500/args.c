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

static int set_pins(const char *key, const char *value)
{
	return arg_uint(key, value, 0, 8, &e500_opt.pins);
}

static int set_lpsize(const char *key, const char *value)
{
	static const char *const sizes[] = { "4m", "16m", "64m", 0 };
	int i;

	if (arg_choice(key, value, sizes, &i) < 0)
		return -1;
	e500_opt.lpsize = TSIZE_4M + i;
	return 0;
}

const struct boot_arg arch_args[] = {
	{ "pins", "0..8 16M TLB1 entries pinned in mode pinned (default 2)", set_pins },
	{ "lpsize", "4m, 16m or 64m: page size of mode largepte (default 16m)", set_lpsize },
	{ "fdt", "the device tree's address in hex, for U-Boot go (fdt=${fdtcontroladdr}); "
		 "bootm and QEMU pass it in r3", set_fdt },
	{ 0 }
};
