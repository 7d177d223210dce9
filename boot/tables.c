/* The human summary: LMbench-2.0-style tables, one row per board+mode,
 * filled from the measurements already reported.  A table whose cells are
 * all empty (its probes did not run) is left out. */
#include <stdio.h>
#include <string.h>
#include "board.h"
#include "config.h"
#include "report.h"

/* Columns leave in_us out where it is 0. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

struct column {
	const char *head1, *head2;	/* two header lines, as LMbench */
	const char *probe, *metric;
	int width;
	int in_us;			/* a figure in ns, shown in microseconds */
};

struct table {
	const char *title;
	struct column cols[10];
};

static const struct table tables[] = {
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
	{ "TLB - entries by level, reach, miss cost (tlb: one load per page)", {
		{ "L1", "entries", "tlb", "l1_entries", 8 },
		{ "L2", "entries", "tlb", "l2_entries", 8 },
		{ "Reach", "bytes", "tlb", "reach_bytes", 10 },
		{ "Miss", "ns", "tlb", "miss_ns", 8 },
		{ "Miss", "cycles", "tlb", "miss_cycles", 8 },
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

static void pad(char *line, int *n, int width, const char *text)
{
	*n += sprintf(line + *n, " %*.*s", width, width, text);
}

static void print_table(const struct table *t)
{
	char line[200], dash[200];
	int n, any = 0;

	/* Leave the table out when none of its cells has a value. */
	for (int m = 0; m < config.nmodes; m++)
		for (const struct column *c = t->cols; c->probe; c++) {
			int64_t v;
			int d;
			any |= report_lookup(c->probe, config.modes[m]->name, c->metric, &v, &d);
		}
	if (!any)
		return;

	n = snprintf(line, sizeof(line), "%s", t->title);
	report_table_line(line);
	memset(dash, '-', n);
	dash[n] = 0;
	report_table_line(dash);
	snprintf(line, sizeof(line), "Figures from: %s", boot_info.platform);
	report_table_line(line);

	for (int h = 0; h < 3; h++) {
		n = sprintf(line, "%-9s %-9s", h == 0 ? "Host" : h == 2 ? "---------" : "",
			    h == 0 ? "Mode" : h == 2 ? "---------" : "");
		for (const struct column *c = t->cols; c->probe; c++) {
			if (h == 2) {
				memset(dash, '-', c->width);
				dash[c->width] = 0;
			}
			pad(line, &n, c->width, h == 0 ? c->head1 : h == 1 ? c->head2 : dash);
		}
		report_table_line(line);
	}
	for (int m = 0; m < config.nmodes; m++) {
		const char *mode = config.modes[m]->name;
		n = sprintf(line, "%-9.9s %-9.9s", board_name, mode);
		for (const struct column *c = t->cols; c->probe; c++) {
			char cell[32] = "";
			int64_t v;
			int d;
			if (report_lookup(c->probe, mode, c->metric, &v, &d))
				format_fixed(cell, sizeof(cell), c->in_us ? v / 1000 : v, d);
			pad(line, &n, c->width, cell);
		}
		report_table_line(line);
	}
	report_table_line("");
}

void report_tables(void)
{
	report_tables_begin();
	for (const struct table *t = tables; t->title; t++)
		print_table(t);
	report_tables_end();
}
