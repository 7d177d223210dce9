/* Naming the CPU, its caches and TLBs from its configuration registers,
 * and stopping it. */
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "boot_info.h"
#include "e500.h"
#include "mem.h"
#include "report.h"

extern char __free_ram_start[];
static char probe_mem_note[128];

const char arch_name[] = "e500";

static const char *pvr_name(uint32_t pvr)
{
	switch (pvr >> 16) {
	case 0x8020: return "e500v1";
	case 0x8021: return "e500v2";
	case 0x8023: return "e500mc";
	}
	return "not an e500 this image knows";
}

/* L1CFG0/1: size in KiB (bits 21-31), ways - 1 (13-20), block size code (7-8). */
static uint32_t l1_bytes(uint32_t cfg) { return (cfg & 0x7ff) << 10; }
static unsigned l1_ways(uint32_t cfg) { return ((cfg >> 11) & 0xff) + 1; }

uint32_t arch_cache_bytes(int level)
{
	return level == 1 ? l1_bytes(mfspr(SPR_L1CFG0)) : 0;
}

uint32_t arch_cache_ways(int level)
{
	return level == 1 ? l1_ways(mfspr(SPR_L1CFG0)) : 0;
}

uint32_t arch_cache_line(void)
{
	return 32u << ((mfspr(SPR_L1CFG0) >> 23) & 3);
}

/* The e500 cannot tell QEMU from a board: the boot arguments say (qemu=). */
const char *arch_platform(void)
{
	return 0;
}

/* TLBnCFG: entries (bits 20-31), associativity (0-7). */
void arch_describe_cpu(void)
{
	uint32_t pvr = mfspr(SPR_PVR), t0 = mfspr(SPR_TLB0CFG), t1 = mfspr(SPR_TLB1CFG);
	uint32_t d = mfspr(SPR_L1CFG0), i = mfspr(SPR_L1CFG1);

	report_diag("cpu: PowerPC %s, PVR 0x%08lx, SVR 0x%08lx", pvr_name(pvr), (unsigned long)pvr,
		    (unsigned long)mfspr(SPR_SVR));
	report_diag("tlb: TLB0 %lu entries %lu-way (TLB0CFG 0x%08lx), TLB1 %lu entries fully "
		    "associative (TLB1CFG 0x%08lx), MMUCFG 0x%08lx", (unsigned long)(t0 & 0xfff),
		    (unsigned long)(t0 >> 24), (unsigned long)t0, (unsigned long)(t1 & 0xfff),
		    (unsigned long)t1, (unsigned long)mfspr(SPR_MMUCFG));
	report_diag("tlb: %s", e500_tlb_text(0));
	report_diag("tlb: %s", e500_tlb_text(1));
	report_diag("caches: L1 data %lu KiB %u-way, instruction %lu KiB %u-way, %lu-byte lines "
		    "(L1CFG0 0x%08lx, L1CFG1 0x%08lx); L1CSR0 0x%08lx, L1CSR1 0x%08lx as the loader left them",
		    (unsigned long)l1_bytes(d) >> 10, l1_ways(d), (unsigned long)l1_bytes(i) >> 10,
		    l1_ways(i), (unsigned long)arch_cache_line(), (unsigned long)d, (unsigned long)i,
		    (unsigned long)mfspr(SPR_L1CSR0), (unsigned long)mfspr(SPR_L1CSR1));
	report_diag("interrupts: MSR[EE,CE,DE] off at entry (the loader's MSR 0x%08lx), MSR[ME] on: "
		    "machine checks dump (MSR 0x%08lx)", (unsigned long)loader_regs.msr,
		    (unsigned long)mfmsr());
	report_diag("timers: TCR 0x%08lx (the loader's 0x%08lx): decrementer and watchdog "
		    "interrupts off", (unsigned long)mfspr(SPR_TCR), (unsigned long)loader_regs.tcr);
	report_diag("watchdog: %s", e500_core_watchdog_text());
	report_diag("mpic: %s", e500_mpic_text());
	report_diag("device tree: from %s%s%s", e500_fdt_source, e500_fdt.model ? ", model " : "",
		    e500_fdt.model ? e500_fdt.model : "");
	for (unsigned i = 0; i < e500_fdt.nreserved; i++)
		report_diag("reserved: 0x%08llx-0x%08llx (%s): not used",
			    (unsigned long long)e500_fdt.reserved[i].base,
			    (unsigned long long)(e500_fdt.reserved[i].base + e500_fdt.reserved[i].bytes - 1),
			    e500_fdt.reserved[i].why);
	if (e500_fdt.spin_table)
		report_diag("cpus: cpu@%u waits on its spin table at 0x%llx: its polling is bus "
			    "traffic under every memory figure (U-Boot: setenv mp_holdoff 1)",
			    e500_fdt.spin_cpu, (unsigned long long)e500_fdt.spin_table);
	report_diag("probe memory: %#lx-%#lx (%s), then page tables to %#lx",
		    (unsigned long)mem_probe_start(), (unsigned long)mem_probe_end(), probe_mem_note,
		    (unsigned long)mem_ram_end());
}

/* The largest stretch of [lo, hi) that no reserved region (rounded out to
 * whole MiB) touches. */
static void largest_free(uint64_t lo, uint64_t hi, uint64_t *bs, uint64_t *be)
{
	uint64_t s = lo;

	*bs = *be = lo;
	while (s < hi) {
		uint64_t e = hi;
		int covered = 0;
		for (unsigned i = 0; i < e500_fdt.nreserved && !covered; i++) {
			const struct e500_reserved *r = &e500_fdt.reserved[i];
			uint64_t rb = r->base & ~0xfffffull;
			uint64_t re = (r->base + r->bytes + 0xfffff) & ~0xfffffull;
			if (rb <= s && s < re)
				s = re, covered = 1;
			else if (rb > s && rb < e)
				e = rb;
		}
		if (covered)
			continue;
		if (e - s > *be - *bs)
			*bs = s, *be = e;
		s = e;
	}
}

/* Probe memory: from past the image to the end of RAM, or, after U-Boot's
 * go (the one entry exit=return can go back to), to below its stack less
 * 1 MiB: U-Boot relocates itself to the top of RAM and keeps its stack,
 * heap and global data just below, all of which it needs again (as the
 * 405's path does).  After bootm and QEMU's own boot nothing of the
 * loader's is kept but what the device tree reserves: a second core's
 * boot page and spin table (U-Boot's mpc85xx mp.c puts them in the last
 * 4 KiB of RAM, and a write there releases the core to garbage), the tree
 * itself.  The largest stretch clear of those is probe memory. */
void e500_set_probe_mem(uint64_t ram_bytes)
{
	/* From the 4 MiB after the image's: a directory word (4 MiB) then
	 * holds the image or probe memory, never both. */
	uintptr_t start = (((uintptr_t)__image_start >> 22) + 1) << 22;
	uint64_t end = ram_bytes, bs, be;
	uint32_t sp = loader_regs.r1;

	if (start < (uintptr_t)__free_ram_start)
		start = (uintptr_t)__free_ram_start;
	if (arch_can_return() && sp < ram_bytes && sp >= start + (2u << 20)) {
		end = (sp - (1u << 20)) & ~0xfffffu;
		snprintf(probe_mem_note, sizeof(probe_mem_note), "past the image, below go's stack "
			 "at %#lx less 1 MiB: U-Boot lies above", (unsigned long)sp);
	} else {
		snprintf(probe_mem_note, sizeof(probe_mem_note),
			 "past the image to the end of RAM: no way back to the loader");
	}
	largest_free(start, end, &bs, &be);
	if (bs != start || be != end)
		snprintf(probe_mem_note + strlen(probe_mem_note), sizeof(probe_mem_note) -
			 strlen(probe_mem_note), "; the largest stretch clear of the reserved");
	mem_set_free_ram(bs, be);
}

void arch_report_measurements(void)
{
}

void arch_halt(void)
{
	mtmsr(mfmsr() & ~(MSR_EE | MSR_CE));
	for (;;)
		__asm__ volatile("" ::: "memory");
}
