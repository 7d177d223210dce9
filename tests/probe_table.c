/* The table of probes, in the order they run, and the boot arguments that
 * belong to probes. */
#include "config.h"
#include "probe.h"

extern const struct probe probe_boot, probe_demand, probe_modeswitch, probe_tlbwalk;

const struct probe *const probe_table[] = {
	&probe_boot,
	&probe_demand,
	&probe_modeswitch,
	&probe_tlbwalk,
};
const int probe_count = sizeof(probe_table) / sizeof(probe_table[0]);

int demand_set_pages(const char *key, const char *value);
int tlbwalk_set_pages(const char *key, const char *value);
int tlbwalk_set_region(const char *key, const char *value);

const struct boot_arg probe_args[] = {
	{ "fault_pages", "1..4096 pages the demand probe faults in (default 64, 16 with quick)", demand_set_pages },
	{ "walk_pages", "pages the tlbwalk probe walks (default 256; must fit its region)", tlbwalk_set_pages },
	{ "walk_region", "low (inside the low 32 MiB) or high (at or above 64 MiB, default)", tlbwalk_set_region },
	{ 0 }
};
