/* TSC, naming the CPU (CPUID: signature, paging features, caches, TLBs),
 * stopping it. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch.h"
#include "i386.h"
#include "report.h"
#include "../x86/cpuid.h"

const char arch_name[] = "i386";
struct i386_features i386_cpu;

uint64_t arch_ticks(void)
{
	return rdtsc();
}

static void cpuid_fn(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	cpuid(leaf, sub, r);
}

/* CPUID's hypervisor bit and leaf 0x40000000's signature (arch/x86). */
const char *arch_platform(void)
{
	const char *hv = x86_hypervisor(cpuid_fn);

	return hv ? hv : "bare hardware (CPUID: no hypervisor)";
}

void i386_probe_features(void)
{
	uint32_t r[4];

	cpuid(0, 0, r);
	i386_cpu.max_leaf = r[0];
	cpuid(1, 0, r);
	i386_cpu.pse = !!(r[3] & (1u << 3));
	i386_cpu.tsc = !!(r[3] & (1u << 4));
	i386_cpu.pae = !!(r[3] & (1u << 6));
	i386_cpu.pge = !!(r[3] & (1u << 13));
	i386_cpu.pcid = !!(r[2] & (1u << 17));
	cpuid(0x80000000, 0, r);
	i386_cpu.max_ext_leaf = r[0] >= 0x80000000 && r[0] < 0x80000100 ? r[0] : 0;
	if (i386_cpu.max_ext_leaf >= 0x80000001) {
		cpuid(0x80000001, 0, r);
		i386_cpu.nx = !!(r[3] & (1u << 20));
	}
}

/* What CPUID says of caches and TLBs (arch/x86/cpuid.c); 0 = not
 * reported.  Reported as measurements (cpuid.flat.*) on the first mode
 * entry, inside the block. */
static struct x86_cpu_desc info;

/* The MTRRs, read and never written (the firmware owns them): whether
 * the fixed ranges give the first MiB several memory types, which is why
 * pse and pae2m map it with 4K pages (SDM Vol. 3A 11.11.9). */
static void describe_mtrr(uint32_t cpuid1_edx)
{
	static const char *const type[8] = { "UC", "WC", "2?", "3?", "WT", "WP", "WB", "7?" };
	static const uint16_t fixed[11] = { 0x250, 0x258, 0x259, 0x268, 0x269, 0x26a, 0x26b,
					    0x26c, 0x26d, 0x26e, 0x26f };
	char seen[40] = "";
	unsigned types = 0;

	if (!(cpuid1_edx & (1u << 12))) {
		report_diag("mtrr: none (CPUID 1 EDX bit 12 clear)");
		return;
	}
	uint64_t cap = rdmsr(0xfe), def = rdmsr(0x2ff);	/* IA32_MTRRCAP, _DEF_TYPE */
	int on = !!(def & (1u << 11)), fixed_on = on && (def & (1u << 10)) && (cap & (1u << 8));
	if (fixed_on) {
		for (int i = 0; i < 11; i++) {		/* 8 ranges a register, a type a byte */
			uint64_t v = rdmsr(fixed[i]);
			for (int b = 0; b < 8; b++)
				types |= 1u << ((v >> (8 * b)) & 7);
		}
		for (int t = 0; t < 8; t++)
			if (types & (1u << t))
				snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), " %s", type[t]);
	}
	report_diag("mtrr (read only): %s, fixed ranges %s, default type %s%s%s",
		    on ? "enabled" : "disabled (all memory UC)", fixed_on ? "on" : "off",
		    type[def & 7], fixed_on ? "; first MiB:" : "", seen);
}

extern uint32_t loader_eflags;		/* start.S: EFLAGS at a go entry */

/* A20: with the gate closed every address has bit 20 forced to 0, so RAM
 * from 1 MiB on aliases the MiB below (loaders open it; checked, as a
 * closed gate corrupts everything quietly).  Two writes to a word of ours
 * and a read of its alias: the alias follows both only when it wraps. */
static void check_a20(void)
{
	static volatile uint32_t word;
	uintptr_t a = (uintptr_t)&word;
	volatile uint32_t *alias = (volatile uint32_t *)(a ^ 0x100000u);
	int wraps;

	word = 0x5a20a20au;
	wraps = *alias == word;
	word = ~0x5a20a20au;
	wraps = wraps && *alias == word;
	if (wraps) {
		report_diag("a20: closed: %#lx reads back what was written at %#lx (addresses wrap "
			    "at 1 MiB)", (unsigned long)(uintptr_t)alias, (unsigned long)a);
		exit(report_abort("A20 gate closed: RAM above 1 MiB is not addressable"));
	}
	report_diag("a20: open (checked: %#lx does not alias %#lx)", (unsigned long)a,
		    (unsigned long)(uintptr_t)alias);
}

void arch_describe_cpu(void)
{
	uint32_t r[4], sig[4];
	char vendor[13];

	cpuid(0, 0, r);
	memcpy(vendor, &r[1], 4);
	memcpy(vendor + 4, &r[3], 4);
	memcpy(vendor + 8, &r[2], 4);
	vendor[12] = 0;
	cpuid(1, 0, sig);
	unsigned family = (sig[0] >> 8) & 0xf, model = (sig[0] >> 4) & 0xf;
	if (family == 0xf)
		family += (sig[0] >> 20) & 0xff;
	if (family >= 6)
		model |= ((sig[0] >> 16) & 0xf) << 4;
	report_diag("cpu: %s family %u model %u stepping %lu (CPUID 1 EAX %#010lx)", vendor,
		    family, model, (unsigned long)(sig[0] & 0xf), (unsigned long)sig[0]);
	report_diag("cpu features: PSE %s, PAE %s, PGE %s, NX %s, PCID %s (CPUID 1 EDX %#010lx "
		    "ECX %#010lx)", i386_cpu.pse ? "yes" : "no", i386_cpu.pae ? "yes" : "no",
		    i386_cpu.pge ? "yes" : "no", i386_cpu.nx ? "yes" : "no",
		    i386_cpu.pcid ? "yes (used only in 64-bit mode)" : "no",
		    (unsigned long)sig[3], (unsigned long)sig[2]);
	describe_mtrr(sig[3]);

	x86_cpuid_decode(cpuid_fn, &info);
	x86_describe_cpuid(&info);
	i386_describe_tsc();
	report_diag("%s", i386_timers_text());
	if (arch_can_return())
		report_diag("eflags: the loader's 0x%08lx (IF %s), given back on exit=return",
			    (unsigned long)loader_eflags, loader_eflags & 0x200 ? "on" : "off");
	check_a20();
	i386_fire_stray_vector();
}

/* The CPUID figures as measurements, once, at the start of the measurement
 * block: what CPUID does not report is left out rather than printed as 0. */
void arch_report_measurements(void)
{
	x86_report_cpuid(&info, "flat");
}

uint32_t arch_cache_bytes(int level)
{
	return level == 1 ? info.l1d : level == 2 ? info.l2 : level == 3 ? info.l3 : 0;
}

uint32_t arch_cache_ways(int level)
{
	return level == 1 ? info.l1d_ways : level == 2 ? info.l2_ways : level == 3 ? info.l3_ways : 0;
}

uint32_t arch_cache_line(void) { return info.line; }

/* The first-level data TLB's 4K entries as CPUID describes them, or 0. */
unsigned i386_dtlb_entries(void)
{
	return info.dtlb[X86_TLB_L1][X86_PG_4K].entries;
}

void arch_halt(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}
