/* The tables' sections and columns (include/table_defs.h): data only, no
 * dependencies, so the host tool mmureport links it too. */
#include "table_defs.h"

/* Columns leave in_us out where it is 0. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

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
	 * the sizes guessed (lat_mem names no level it cannot see, nor any
	 * under QEMU: those cells stay empty). */
	{ "Memory latencies in nanoseconds - smaller is better (lat_mem, random chase)", {
		{ "Mhz", "", "cpu", "mhz", 9 },
		{ "L1 $", "ns", "lat_mem", "l1_ns", 7 },
		{ "L2 $", "ns", "lat_mem", "l2_ns", 7 },
		{ "Main", "mem ns", "lat_mem", "mem_ns", 8 },
		{ "Guess L1", "bytes", "lat_mem", "l1_bytes", 9 },
		{ "Guess L2", "bytes", "lat_mem", "l2_bytes", 9 },
		{ "Guess L3", "bytes", "lat_mem", "l3_bytes", 9 },
	} },
	{ "Core clock (cpu: dependent adds, as LMbench's mhz)", {
		{ "Core", "MHz", "cpu", "mhz", 10 },
		{ "Spread", "%", "cpu", "mhz_spread", 7 },
	} },
	{ "Fault and mapping latencies in microseconds - smaller is better", {
		{ "Page", "Fault", "demand", "page_fault_ns", 8, 1 },
		{ "Prot", "Fault", "demand", "prot_fault_ns", 8, 1 },
		{ "Null", "fault", "demand", "null_fault_ns", 8, 1 },
		{ "Remap", "(kmap)", "demand", "kmap_ns", 8, 1 },
		{ "Batch", "remap", "demand", "remap_batch_ns", 8, 1 },
		{ "Mode", "switch", "modeswitch", "switch_ns", 9, 1 },
	} },
	{ "Address-space switch in nanoseconds (aspace: N spaces / K bytes each)", {
		{ "2p/0K", "tagged", "aspace", "2p_0k_ns", 8 },
		{ "2p/16K", "tagged", "aspace", "2p_16k_ns", 8 },
		{ "2p/64K", "tagged", "aspace", "2p_64k_ns", 8 },
		{ "8p/16K", "tagged", "aspace", "8p_16k_ns", 8 },
		{ "8p/64K", "tagged", "aspace", "8p_64k_ns", 8 },
		{ "16p/16K", "tagged", "aspace", "16p_16k_ns", 8 },
		{ "16p/64K", "tagged", "aspace", "16p_64k_ns", 8 },
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
	{ "Address-space switch (spaces: 32 warm switches, one window page each)", {
		{ "Tagged", "ns", "spaces", "tagged_switch_ns", 9 },
		{ "Tagged", "flushes", "spaces", "tagged_switch_flushes", 8 },
		{ "Tagged", "misses", "spaces", "tagged_switch_dtlb_misses", 8 },
		{ "Flush", "ns", "spaces", "flush_switch_ns", 9 },
		{ "Flush", "flushes", "spaces", "flush_switch_flushes", 8 },
		{ "Flush", "misses", "spaces", "flush_switch_dtlb_misses", 8 },
	} },
	{ "Page tables of the default mapping", {
		{ "Tables", "bytes", "mmu", "pagetable_bytes", 10 },
		{ "Mapped", "bytes", "mmu", "mapped_bytes", 11 },
	} },
	{ 0 }
};

