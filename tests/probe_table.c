/* The table of probes, in the order they run. */
#include "probe.h"

extern const struct probe probe_boot, probe_cpu, probe_demand, probe_modeswitch, probe_tlbwalk,
	probe_tlb, probe_bw_mem, probe_spaces, probe_aspace, probe_lat_mem,
	probe_trap, probe_fork, probe_exec, probe_mmap, probe_pagefault, probe_pipe, probe_ctx,
	probe_signal;

const struct probe *const probe_table[] = {
	&probe_boot,
	&probe_cpu,
	&probe_demand,
	&probe_modeswitch,
	&probe_tlbwalk,
	&probe_tlb,
	&probe_lat_mem,		/* before bw_mem, which sizes by where it saw memory */
	&probe_bw_mem,
	&probe_spaces,
	&probe_aspace,
	&probe_trap,
	&probe_fork,
	&probe_exec,
	&probe_mmap,
	&probe_pagefault,
	&probe_pipe,
	&probe_ctx,
	&probe_signal,
};
const int probe_count = sizeof(probe_table) / sizeof(probe_table[0]);
/* probes=all and a list of every probe take them all (boot/args.c). */
_Static_assert(sizeof(probe_table) / sizeof(probe_table[0]) <= PROBE_TABLE_MAX,
	       "more probes than a run holds: raise PROBE_TABLE_MAX");
