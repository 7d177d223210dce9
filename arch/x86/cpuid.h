/* What CPUID says of the caches and the data TLBs, for arch/i386 and
 * arch/sandbox (arch/x86/cpuid*.c).  One decoder for every vendor's
 * leaves; the CPUID instruction is the caller's (a function pointer), so
 * the host test (tools/cpuiddecode.c) can feed it recorded registers.
 *
 * A figure nothing reports is 0 = unknown, never a default. */
#ifndef X86_CPUID_H
#define X86_CPUID_H
#include <stdint.h>

typedef void (*x86_cpuid_fn)(uint32_t leaf, uint32_t sub, uint32_t r[4]);

enum { X86_PG_4K, X86_PG_LARGE, X86_PG_1G, X86_PAGE_KINDS };	/* LARGE: 2M/4M */
enum { X86_TLB_L1, X86_TLB_L2, X86_TLB_LEVELS };	/* L1 dTLB; STLB / AMD's L2 dTLB */

struct x86_tlb {
	uint32_t entries;		/* 0: not reported */
	uint32_t ways;			/* 0: not reported; fully associative: = entries */
	uint8_t ways_at_least;		/* AMD's codes from 4 ways up: a lower bound */
};

struct x86_cpu_desc {
	char vendor[13];
	int amd;			/* AuthenticAMD or HygonGenuine: AMD's leaves */
	unsigned family, model, stepping;
	uint32_t max_leaf, max_ext;
	uint32_t l1d, l1i, l2, l3, line;		/* bytes */
	uint32_t l1d_ways, l2_ways, l3_ways;		/* 0: not reported */
	const char *cache_src;				/* 0: none */
	struct x86_tlb dtlb[X86_TLB_LEVELS][X86_PAGE_KINDS];	/* data (or unified) side */
	uint32_t itlb;			/* L1 instruction TLB, 4K pages */
	const char *tlb_src;		/* 0: none */
	char tlb_note[200];		/* why a level or size is unknown, or "" */
	int leaf2_unknown;		/* CPUID 2 descriptors not in our table */
};

void x86_cpuid_decode(x86_cpuid_fn cpuid, struct x86_cpu_desc *d);

/* 0 on bare hardware (CPUID 1 ECX bit 31 clear), else "KVM", "QEMU TCG" or
 * "hypervisor 'signature'" (leaf 0x40000000). */
const char *x86_hypervisor(x86_cpuid_fn cpuid);

/* Banner lines (report_diag) and cpuid.<mode>.* measurements. */
void x86_describe_cpuid(const struct x86_cpu_desc *d);
void x86_report_cpuid(const struct x86_cpu_desc *d, const char *mode);

/* cpuid_leaf2.c: the one-byte descriptors of leaf 2 (Intel). */
int x86_decode_leaf2(x86_cpuid_fn cpuid, struct x86_cpu_desc *d, int *tlbs, int *caches,
		     int *see_leaf18);

#endif
