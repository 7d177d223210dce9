/* The table of probes, in the order they run. */
#include "config.h"
#include "probe.h"

extern const struct probe probe_boot;

const struct probe *const probe_table[] = {
	&probe_boot,
};
const int probe_count = sizeof(probe_table) / sizeof(probe_table[0]);

/* Boot arguments that belong to probes (sizes, regions). */
const struct boot_arg probe_args[] = {
	{ 0 }
};
