/* The table of probes, in the order they run, and the boot arguments that
 * belong to probes. */
#include "config.h"
#include "probe.h"

extern const struct probe probe_boot, probe_demand, probe_modeswitch;

const struct probe *const probe_table[] = {
	&probe_boot,
	&probe_demand,
	&probe_modeswitch,
};
const int probe_count = sizeof(probe_table) / sizeof(probe_table[0]);

int demand_set_pages(const char *key, const char *value);

const struct boot_arg probe_args[] = {
	{ "fault_pages", "1..4096 pages the demand probe faults in (default 64)", demand_set_pages },
	{ 0 }
};
