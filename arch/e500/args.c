/* The e500's boot arguments.  fdt= is read by the entry code itself (it
 * must know the device tree before the console exists); here it is only
 * accepted and checked. */
#include "args.h"
#include "e500.h"

static int set_fdt(const char *key, const char *value)
{
	unsigned long v;
	return arg_uint(key, value, 1, 0xffffffffu, &v);
}

const struct boot_arg arch_args[] = {
	{ "fdt", "the device tree's address, for U-Boot go (fdt=${fdtcontroladdr}); "
		 "bootm and QEMU pass it in r3", set_fdt },
	{ 0 }
};
