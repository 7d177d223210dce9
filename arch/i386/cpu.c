/* TSC, naming the CPU (CPUID: signature, paging features, caches, TLBs),
 * stopping it. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "i386.h"
#include "report.h"

const char arch_name[] = "i386";
struct i386_features i386_cpu;

uint64_t arch_ticks(void)
{
	return rdtsc();
}

/* CPUID's hypervisor bit and leaf 0x40000000's signature. */
const char *arch_platform(void)
{
	static char other[40];
	uint32_t r[4];
	char sig[13];

	cpuid(1, 0, r);
	if (!(r[2] & (1u << 31)))
		return "bare hardware (CPUID: no hypervisor)";
	cpuid(0x40000000, 0, r);
	memcpy(sig, &r[1], 4);
	memcpy(sig + 4, &r[2], 4);
	memcpy(sig + 8, &r[3], 4);
	sig[12] = 0;
	if (!strcmp(sig, "KVMKVMKVM"))
		return "KVM";
	if (!strcmp(sig, "TCGTCGTCGTCG"))
		return "QEMU TCG";
	snprintf(other, sizeof(other), "hypervisor '%s'", sig);
	return other;
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

/* What CPUID says about caches and TLBs; 0 = not reported.  Reported as
 * measurements (cpuid.flat.*) on the first mode entry, inside the block. */
static struct {
	uint32_t l1d, l1i, l2, l3, line;		/* bytes */
	uint32_t dtlb, itlb, stlb, dtlb_large;		/* entries */
	const char *cache_src, *tlb_src;
} info;

/* Leaf 2 one-byte descriptors (Intel SDM table 3-12), the common ones.
 * kind: 'd' L1d, 'i' L1i, '2' L2, '3' L3 (size in KiB); 'D' 4K dTLB,
 * 'I' 4K iTLB, 'S' shared 4K TLB, 'L' large-page dTLB (entries). */
static const struct { uint8_t code; char kind; uint16_t n; } leaf2[] = {
	{ 0x01, 'I', 32 }, { 0x03, 'D', 64 }, { 0x04, 'L', 8 }, { 0x05, 'L', 32 },
	{ 0x06, 'i', 8 }, { 0x08, 'i', 16 }, { 0x09, 'i', 32 }, { 0x0a, 'd', 8 },
	{ 0x0c, 'd', 16 }, { 0x0d, 'd', 16 }, { 0x0e, 'd', 24 }, { 0x21, '2', 256 },
	{ 0x22, '3', 512 }, { 0x23, '3', 1024 }, { 0x25, '3', 2048 }, { 0x29, '3', 4096 },
	{ 0x2c, 'd', 32 }, { 0x30, 'i', 32 }, { 0x41, '2', 128 }, { 0x42, '2', 256 },
	{ 0x43, '2', 512 }, { 0x44, '2', 1024 }, { 0x45, '2', 2048 }, { 0x48, '2', 3072 },
	{ 0x4e, '2', 6144 }, { 0x4f, 'I', 32 }, { 0x50, 'I', 64 }, { 0x51, 'I', 128 },
	{ 0x52, 'I', 256 }, { 0x56, 'L', 16 }, { 0x57, 'D', 16 }, { 0x59, 'D', 16 },
	{ 0x5a, 'L', 32 }, { 0x5b, 'D', 64 }, { 0x5c, 'D', 128 }, { 0x5d, 'D', 256 },
	{ 0x60, 'd', 16 }, { 0x63, 'L', 32 }, { 0x66, 'd', 8 }, { 0x67, 'd', 16 },
	{ 0x68, 'd', 32 }, { 0x78, '2', 1024 }, { 0x79, '2', 128 }, { 0x7a, '2', 256 },
	{ 0x7b, '2', 512 }, { 0x7c, '2', 1024 }, { 0x7d, '2', 2048 }, { 0x7f, '2', 512 },
	{ 0x80, '2', 512 }, { 0x82, '2', 256 }, { 0x83, '2', 512 }, { 0x84, '2', 1024 },
	{ 0x85, '2', 2048 }, { 0x86, '2', 512 }, { 0x87, '2', 1024 }, { 0xb0, 'I', 128 },
	{ 0xb2, 'I', 64 }, { 0xb3, 'D', 128 }, { 0xb4, 'D', 256 }, { 0xb5, 'I', 64 },
	{ 0xb6, 'I', 128 }, { 0xba, 'D', 64 }, { 0xc0, 'D', 8 }, { 0xc1, 'S', 1024 },
	{ 0xc2, 'D', 16 }, { 0xc3, 'S', 1536 }, { 0xca, 'S', 512 }, { 0xd0, '3', 512 },
	{ 0xd1, '3', 1024 }, { 0xd2, '3', 2048 }, { 0xd6, '3', 1024 }, { 0xd7, '3', 2048 },
	{ 0xd8, '3', 4096 }, { 0xe2, '3', 2048 }, { 0xe3, '3', 4096 }, { 0xe4, '3', 8192 },
};

/* Leaf 2: returns how many descriptors it did not know; sets *uses_leaf4
 * for 0xFF ("see leaf 4") and *uses_leaf18 for 0xFE ("see leaf 0x18"). */
static int decode_leaf2(int *uses_leaf4, int *uses_leaf18, int *caches, int *tlbs)
{
	uint32_t r[4];
	int unknown = 0;

	cpuid(2, 0, r);
	r[0] &= ~0xffu;				/* AL is the iteration count */
	for (int i = 0; i < 4; i++) {
		if (r[i] & 0x80000000u)		/* bit 31 set: register holds no descriptors */
			continue;
		for (int b = 0; b < 4; b++) {
			uint8_t d = r[i] >> (8 * b);
			int found = 0;
			if (!d)
				continue;
			if (d == 0xff) { *uses_leaf4 = 1; continue; }
			if (d == 0xfe) { *uses_leaf18 = 1; continue; }
			for (unsigned k = 0; k < sizeof(leaf2) / sizeof(leaf2[0]); k++) {
				if (leaf2[k].code != d)
					continue;
				uint32_t n = leaf2[k].n;
				found = 1;
				switch (leaf2[k].kind) {
				case 'd': info.l1d = n << 10; ++*caches; break;
				case 'i': info.l1i = n << 10; ++*caches; break;
				case '2': info.l2 = n << 10; ++*caches; break;
				case '3': info.l3 = n << 10; ++*caches; break;
				case 'D': if (!info.dtlb) info.dtlb = n; ++*tlbs; break;
				case 'I': if (!info.itlb) info.itlb = n; ++*tlbs; break;
				case 'S': info.stlb = n; ++*tlbs; break;
				case 'L': if (!info.dtlb_large) info.dtlb_large = n; ++*tlbs; break;
				}
			}
			unknown += !found;
		}
	}
	return unknown;
}

/* Leaf 4: deterministic cache parameters (Intel, and QEMU's models). */
static int decode_leaf4(void)
{
	uint32_t r[4];
	int found = 0;

	for (uint32_t sub = 0; sub < 16; sub++) {
		cpuid(4, sub, r);
		unsigned type = r[0] & 0x1f, level = (r[0] >> 5) & 7;
		if (!type)
			break;
		uint32_t ways = (r[1] >> 22) + 1, parts = ((r[1] >> 12) & 0x3ff) + 1;
		uint32_t line = (r[1] & 0xfff) + 1, sets = r[2] + 1;
		uint32_t bytes = ways * parts * line * sets;
		found++;
		if (level == 1 && type == 1) info.l1d = bytes, info.line = line;
		else if (level == 1 && type == 2) info.l1i = bytes;
		else if (level == 2) info.l2 = bytes;
		else if (level == 3) info.l3 = bytes;
	}
	return found;
}

/* Leaf 0x18: deterministic TLB parameters (sub-leaf 0 gives the count). */
static int decode_leaf18(void)
{
	uint32_t r[4], max;
	int found = 0;

	cpuid(0x18, 0, r);
	max = r[0];
	for (uint32_t sub = 0; sub <= max && sub < 32; sub++) {
		cpuid(0x18, sub, r);
		unsigned type = r[3] & 0x1f, level = (r[3] >> 5) & 7;
		uint32_t entries = ((r[1] >> 16) & 0xffff) * (r[2] + 1);	/* ways x sets */
		if (!type)
			continue;
		found++;
		if (!(r[1] & 1))		/* no 4K pages in this structure */
			continue;
		if (level == 1 && (type == 1 || type == 4) && !info.dtlb) info.dtlb = entries;
		else if (level == 1 && type == 2 && !info.itlb) info.itlb = entries;
		else if (level == 2 && type == 3) info.stlb = entries;
	}
	return found;
}

/* AMD 0x80000005/6: L1 and L2 caches and TLBs. */
static int decode_amd(void)
{
	uint32_t r[4];

	if (i386_cpu.max_ext_leaf < 0x80000006)
		return 0;
	cpuid(0x80000005, 0, r);
	info.l1d = (r[2] >> 24) << 10, info.line = r[2] & 0xff;
	info.l1i = (r[3] >> 24) << 10;
	info.dtlb = (r[1] >> 16) & 0xff, info.itlb = r[1] & 0xff;
	info.dtlb_large = (r[0] >> 16) & 0xff;
	cpuid(0x80000006, 0, r);
	info.l2 = (r[2] >> 16) << 10;
	info.l3 = (r[3] >> 18) * (512u << 10);
	info.stlb = (r[1] >> 16) & 0xfff;
	return 1;
}

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

void arch_describe_cpu(void)
{
	uint32_t r[4], sig[4];
	char vendor[13];
	int leaf4 = 0, leaf18 = 0, caches = 0, tlbs = 0, unknown = 0;

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

	/* Caches: leaf 4, else leaf 2, else AMD's; TLBs: leaf 2, leaf 0x18, AMD. */
	memset(&info, 0, sizeof(info));
	if (!strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine")) {
		if (decode_amd())
			info.cache_src = info.tlb_src = "CPUID 0x80000005/6";
	} else {
		if (i386_cpu.max_leaf >= 2)
			unknown = decode_leaf2(&leaf4, &leaf18, &caches, &tlbs);
		if (caches)
			info.cache_src = "CPUID 2 descriptors";
		if (tlbs)
			info.tlb_src = "CPUID 2 descriptors";
		if (i386_cpu.max_leaf >= 4 && decode_leaf4())
			info.cache_src = "CPUID 4";
		if (i386_cpu.max_leaf >= 0x18 && decode_leaf18())
			info.tlb_src = tlbs ? "CPUID 2 and 0x18" : "CPUID 0x18";
	}
	report_diag("cpu caches (%s): L1d %lu KiB, L1i %lu KiB, L2 %lu KiB, L3 %lu KiB, line %lu B",
		    info.cache_src ? info.cache_src : "not reported by CPUID",
		    (unsigned long)info.l1d >> 10, (unsigned long)info.l1i >> 10,
		    (unsigned long)info.l2 >> 10, (unsigned long)info.l3 >> 10,
		    (unsigned long)info.line);
	report_diag("cpu TLBs (%s): dTLB 4K %lu, iTLB 4K %lu, shared L2 TLB %lu, dTLB large %lu "
		    "entries%s", info.tlb_src ? info.tlb_src : "not reported by CPUID",
		    (unsigned long)info.dtlb, (unsigned long)info.itlb, (unsigned long)info.stlb,
		    (unsigned long)info.dtlb_large,
		    leaf18 && !info.tlb_src ? " (leaf 2 points to leaf 0x18, which is empty)" : "");
	i386_describe_tsc();
	if (unknown)
		report_diag("cpu: %d CPUID 2 descriptor(s) not in our table", unknown);
}

/* The CPUID figures as measurements, once, at the start of the measurement
 * block: 0 (not reported) is left out rather than printed as a size. */
void arch_report_measurements(void)
{
	static const struct { const char *name; size_t off; const char *unit; } m[] = {
		{ "l1d_bytes", offsetof(typeof(info), l1d), "bytes" },
		{ "l1i_bytes", offsetof(typeof(info), l1i), "bytes" },
		{ "l2_bytes", offsetof(typeof(info), l2), "bytes" },
		{ "l3_bytes", offsetof(typeof(info), l3), "bytes" },
		{ "line_bytes", offsetof(typeof(info), line), "bytes" },
		{ "dtlb_entries", offsetof(typeof(info), dtlb), "count" },
		{ "itlb_entries", offsetof(typeof(info), itlb), "count" },
		{ "stlb_entries", offsetof(typeof(info), stlb), "count" },
		{ "dtlb_large_entries", offsetof(typeof(info), dtlb_large), "count" },
	};
	for (unsigned i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		uint32_t v = *(uint32_t *)((char *)&info + m[i].off);
		if (v)
			report_measurement("cpuid", "flat", m[i].name, v, 0, m[i].unit);
	}
}

uint32_t arch_cache_bytes(int level)
{
	return level == 1 ? info.l1d : level == 2 ? info.l2 : level == 3 ? info.l3 : 0;
}

uint32_t arch_cache_line(void) { return info.line; }

/* The first-level data TLB's 4K entries as CPUID describes them, or 0. */
unsigned i386_dtlb_entries(void)
{
	return info.dtlb;
}

void arch_halt(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}
