/* The tables' sections and columns (include/table_defs.h): data only, no
 * dependencies, so the host tool mmureport links it too. */
#include <string.h>
#include "table_defs.h"

/* Columns leave in_us and words out where they are 0. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* aspace's switch_kind: include/mmu.h's enum mmu_switch in its order, then
 * an OS's process switch (older sandbox logs' aspace; now the ctx probe's). */
static const char *const switch_kinds[] = { "untagged", "tagged", "emulated", "process", 0 };
/* lat_mem's l<N>_verdict: include/guess.h's enum guess_verdict in its order. */
static const char *const verdicts[] = { "undocumented", "consistent", "differs", "shared", 0 };

const char *table_word(const struct column *c, long long value)
{
	if (!c->words || value < 0)
		return 0;
	for (long long i = 0; c->words[i]; i++)
		if (i == value)
			return c->words[i];
	return 0;
}

const struct table report_table_defs[] = {
	{ "Basic system parameters - clocks and timer", {
		{ "Tick", "MHz", "boot", "tick_mhz", 8 },
		{ "Timer", "read ns", "boot", "timer_read_ns", 8 },
		{ "Timer", "ticks", "boot", "timer_read_ticks", 6 },
		{ "Heap", "KiB", "boot", "heap_kib", 7 },
		{ "Stack", "KiB", "boot", "stack_kib", 6 },
		{ "Boot", "us", "boot", "entry_to_first_result", 9 },
	} },
	/* LMbench's "Memory latencies" (random chase); its Guesses column as
	 * the sizes named (lat_mem names no level it cannot see, nor any under
	 * QEMU: those cells stay empty), each with its verdict against the
	 * CPU: a size is the CPU's only where "consistent" (lib/guess.c). */
	{ "Memory latencies in nanoseconds - smaller is better (lat_mem, random chase)", {
		{ "Mhz", "", "cpu", "mhz", 9 },
		{ "L1 $", "ns", "lat_mem", "l1_ns", 7 },
		{ "L2 $", "ns", "lat_mem", "l2_ns", 7 },
		{ "Main", "mem ns", "lat_mem", "mem_ns", 8 },
		{ "Guess L1", "bytes", "lat_mem", "l1_bytes", 9 },
		{ "Guess L2", "bytes", "lat_mem", "l2_bytes", 9 },
		{ "Guess L3", "bytes", "lat_mem", "l3_bytes", 9 },
		{ "L1 vs", "CPU", "lat_mem", "l1_verdict", 12, 0, verdicts },
		{ "L2 vs", "CPU", "lat_mem", "l2_verdict", 12, 0, verdicts },
		{ "L3 vs", "CPU", "lat_mem", "l3_verdict", 12, 0, verdicts },
	} },
	{ "Core clock (cpu: dependent adds, as LMbench's mhz)", {
		{ "Core", "MHz", "cpu", "mhz", 10 },
		{ "Spread", "%", "cpu", "mhz_spread", 7 },
	} },
	/* Our fault path, timed per fault: the probe's hook maps back (demand),
	 * unprotects (protect) or steps past (null) the access. */
	{ "Fault and mapping latencies in microseconds - smaller is better (demand: our fault hook)", {
		{ "Demand", "fault", "demand", "page_fault_ns", 8, 1 },
		{ "Protect", "fault", "demand", "prot_fault_ns", 8, 1 },
		{ "Null", "fault", "demand", "null_fault_ns", 8, 1 },
		{ "Remap", "(kmap)", "demand", "kmap_ns", 8, 1 },
		{ "Batch", "remap", "demand", "remap_batch_ns", 8, 1 },
		{ "Mode", "switch", "modeswitch", "switch_ns", 9, 1 },
	} },
	/* Older sandbox logs' lat_pagefault, lat_sig prot and catch (demand, under
	 * an OS); the pagefault and signal probes' now, in the table after. */
	{ "OS fault and signal latencies in microseconds - LMbench's methods (demand, under an OS)", {
		{ "Page", "Fault", "demand", "lat_pagefault_ns", 8, 1 },
		{ "Prot", "Fault", "demand", "lat_sig_prot_ns", 8, 1 },
		{ "Sig", "hndl", "demand", "lat_sig_catch_ns", 8, 1 },
	} },
	/* LMbench's methods: a board's processes (boot/proc.c), or an OS's. */
	{ "Faults, signals and pipes in microseconds - LMbench's methods (pagefault, signal, pipe)", {
		{ "Page", "Fault", "pagefault", "pagefault_ns", 8, 1 },
		{ "Prot", "Fault", "signal", "prot_ns", 8, 1 },
		{ "Sig", "hndl", "signal", "catch_ns", 8, 1 },
		{ "Pipe", "lat", "pipe", "pipe_ns", 8, 1 },
	} },
	{ "Context switching in microseconds - lat_ctx's ring (ctx: N processes / K KiB each)", {
		{ "2p/0K", "ctxsw", "ctx", "2p_0k_ns", 8, 1 },
		{ "2p/16K", "ctxsw", "ctx", "2p_16k_ns", 8, 1 },
		{ "2p/64K", "ctxsw", "ctx", "2p_64k_ns", 8, 1 },
		{ "8p/16K", "ctxsw", "ctx", "8p_16k_ns", 8, 1 },
		{ "8p/64K", "ctxsw", "ctx", "8p_64k_ns", 8, 1 },
		{ "16p/16K", "ctxsw", "ctx", "16p_16k_ns", 8, 1 },
		{ "16p/64K", "ctxsw", "ctx", "16p_64k_ns", 8, 1 },
	} },
	/* The process probes (tests/trap.c ...): a board's processes, or under
	 * an OS LMbench's methods (getppid, fork, fork+execve, sh -c, mmap). */
	{ "Processes in microseconds - smaller is better (trap, fork, exec, mmap)", {
		{ "Null", "call", "trap", "null_call_ns", 8, 1 },
		{ "Pressed", "call", "trap", "pressed_call_ns", 8, 1 },
		{ "Fork", "proc", "fork", "fork_us", 9 },
		{ "Exec", "proc", "exec", "exec_us", 9 },
		{ "Sh", "proc", "exec", "sh_us", 9 },
		{ "Mmap all", "pages", "mmap", "mmap_us", 9 },
	} },
	/* Where the miss handler tells kernel pages (the 405): what a pinned or
	 * large-page kernel saves, per operation (the calls: 64 of them). */
	{ "Kernel-page TLB misses (trap: 64 pressed calls; fork, exec, mmap: one each)", {
		{ "Calls", "DTLB", "trap", "pressed_kernel_dtlb_misses", 7 },
		{ "Calls", "ITLB", "trap", "pressed_kernel_itlb_misses", 7 },
		{ "Fork", "DTLB", "fork", "fork_kernel_dtlb_misses", 7 },
		{ "Fork", "ITLB", "fork", "fork_kernel_itlb_misses", 7 },
		{ "Exec", "DTLB", "exec", "exec_kernel_dtlb_misses", 7 },
		{ "Exec", "ITLB", "exec", "exec_kernel_itlb_misses", 7 },
		{ "Mmap", "DTLB", "mmap", "mmap_kernel_dtlb_misses", 7 },
		{ "Mmap", "ITLB", "mmap", "mmap_kernel_itlb_misses", 7 },
	} },
	/* What a switch was, per row: the TLB description's kind (tagged: the
	 * 405's PID; untagged: a CR3 load; process: older sandbox logs' OS
	 * process switch, lat_ctx's ring). */
	{ "Address-space switch in nanoseconds (aspace: N spaces / K bytes each)", {
		{ "Switch", "kind", "aspace", "switch_kind", 8, 0, switch_kinds },
		{ "2p/0K", "ns", "aspace", "2p_0k_ns", 8 },
		{ "2p/16K", "ns", "aspace", "2p_16k_ns", 8 },
		{ "2p/64K", "ns", "aspace", "2p_64k_ns", 8 },
		{ "8p/16K", "ns", "aspace", "8p_16k_ns", 8 },
		{ "8p/64K", "ns", "aspace", "8p_64k_ns", 8 },
		{ "16p/16K", "ns", "aspace", "16p_16k_ns", 8 },
		{ "16p/64K", "ns", "aspace", "16p_64k_ns", 8 },
	} },
	{ "Address-space switch in nanoseconds, flushing every switch (aspace, tagged TLBs)", {
		{ "2p/0K", "flush", "aspace", "2p_0k_flush_ns", 8 },
		{ "2p/16K", "flush", "aspace", "2p_16k_flush_ns", 8 },
		{ "2p/64K", "flush", "aspace", "2p_64k_flush_ns", 8 },
		{ "8p/16K", "flush", "aspace", "8p_16k_flush_ns", 8 },
		{ "8p/64K", "flush", "aspace", "8p_64k_flush_ns", 8 },
		{ "16p/16K", "flush", "aspace", "16p_16k_flush_ns", 8 },
		{ "16p/64K", "flush", "aspace", "16p_64k_flush_ns", 8 },
	} },
	{ "Address-space switch in nanoseconds, emulated by remapping a window (aspace, under an OS)", {
		{ "2p/0K", "remap", "aspace", "2p_0k_remap_ns", 8 },
		{ "2p/16K", "remap", "aspace", "2p_16k_remap_ns", 8 },
		{ "2p/64K", "remap", "aspace", "2p_64k_remap_ns", 8 },
		{ "8p/16K", "remap", "aspace", "8p_16k_remap_ns", 8 },
		{ "8p/64K", "remap", "aspace", "8p_64k_remap_ns", 8 },
		{ "16p/16K", "remap", "aspace", "16p_16k_remap_ns", 8 },
		{ "16p/64K", "remap", "aspace", "16p_64k_remap_ns", 8 },
	} },
	{ "Software-loaded TLB (tlbwalk) - exact counts", {
		{ "DTLB miss", "per pass", "tlbwalk", "dtlb_misses_per_pass", 10 },
		{ "Instr per", "miss", "tlbwalk", "instructions_per_miss", 10 },
		{ "Load", "ns/page", "tlbwalk", "ns_per_page", 9 },
	} },
	{ "TLB - entries by level, reach, miss cost (tlb: one load per page, less the caches' share)", {
		{ "L1", "entries", "tlb", "l1_entries", 8 },
		{ "L2", "entries", "tlb", "l2_entries", 8 },
		{ "L3", "entries", "tlb", "l3_entries", 8 },
		{ "Reach", "bytes", "tlb", "reach_bytes", 10 },
		{ "L1 miss", "ns", "tlb", "miss_ns", 8 },
		{ "L1 miss", "cycles", "tlb", "miss_cycles", 8 },
		{ "L2 miss", "ns", "tlb", "l2_miss_ns", 8 },
		{ "Large pg", "entries", "tlb", "lp_l1_entries", 8 },
		{ "Large pg", "miss ns", "tlb", "lp_miss_ns", 8 },
	} },
	{ "*Local* Communication bandwidths in MB/s - bigger is better", {
		{ "Bcopy", "(libc)", "bw_mem", "cp_libc_mbs", 9 },
		{ "Bcopy", "(hand)", "bw_mem", "cp_hand_mbs", 9 },
		{ "Mem", "read", "bw_mem", "rd_mbs", 9 },
		{ "Mem", "write", "bw_mem", "wr_mbs", 9 },
	} },
	/* A space created untagged (MMU_SPACE_FLUSH): a flush on the 405, a
	 * CR3 load on i386, a window remap under an OS; the row's kind says
	 * which the mode's tagged-or-not switch is. */
	{ "Address-space switch (spaces: 32 warm switches, one window page each)", {
		{ "Switch", "kind", "spaces", "switch_kind", 8, 0, switch_kinds },
		{ "Tagged", "ns", "spaces", "tagged_switch_ns", 9 },
		{ "Tagged", "flushes", "spaces", "tagged_switch_flushes", 8 },
		{ "Tagged", "misses", "spaces", "tagged_switch_dtlb_misses", 8 },
		{ "Untagged", "ns", "spaces", "flush_switch_ns", 9 },
		{ "Untagged", "flushes", "spaces", "flush_switch_flushes", 8 },
		{ "Untagged", "misses", "spaces", "flush_switch_dtlb_misses", 8 },
	} },
	{ "Page tables of the default mapping", {
		{ "Tables", "bytes", "mmu", "pagetable_bytes", 10 },
		{ "Mapped", "bytes", "mmu", "mapped_bytes", 11 },
	} },
	{ 0 }
};


const char *table_metric_word(const char *probe, const char *metric, long long value)
{
	for (const struct table *t = report_table_defs; t->title; t++)
		for (const struct column *c = t->cols; c->probe; c++)
			if (c->words && !strcmp(c->probe, probe) && !strcmp(c->metric, metric))
				return table_word(c, value);
	return 0;
}
