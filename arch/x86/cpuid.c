/* CPUID's caches and data TLBs, decoded once for arch/i386 and
 * arch/sandbox (cpuid.h).  Sources, best first:
 *
 *   caches  leaf 4 (Intel) or 0x8000001D (AMD with TOPOEXT): deterministic;
 *           else leaf 2 descriptors (old Intel), AMD's 0x80000005/6
 *   TLBs    Intel: leaf 0x18 (deterministic address translation), else
 *           leaf 2 descriptors (cpuid_leaf2.c);
 *           AMD: 0x80000005 (L1), 0x80000006 (L2), 0x80000019 (1G pages)
 *
 * Only the data side is kept per level (the probes chase loads): Intel's
 * data, unified and load-only structures; a store-only one is left out.
 * Where two structures of one level hold the same page size (Golden Cove's
 * STLB: one 4K/2M/4M, one 4K/1G array) their entries add up. */
#include <stdio.h>
#include <string.h>
#include "cpuid.h"

static void note(struct x86_cpu_desc *d, const char *what)
{
	size_t n = strlen(d->tlb_note);

	if (strstr(d->tlb_note, what))
		return;			/* said once */
	snprintf(d->tlb_note + n, sizeof(d->tlb_note) - n, "%s%s", n ? "; " : "", what);
}

/* Leaf 4 and 0x8000001D have one layout: EAX type/level, EBX ways,
 * partitions, line, ECX sets. */
static int deterministic_caches(x86_cpuid_fn cpuid, uint32_t leaf, struct x86_cpu_desc *d)
{
	uint32_t r[4];
	int found = 0;

	for (uint32_t sub = 0; sub < 16; sub++) {
		cpuid(leaf, sub, r);
		unsigned type = r[0] & 0x1f, level = (r[0] >> 5) & 7;
		if (!type)
			break;
		uint32_t line = (r[1] & 0xfff) + 1, ways = (r[1] >> 22) + 1;
		uint32_t bytes = ways * (((r[1] >> 12) & 0x3ff) + 1) * line * (r[2] + 1);
		found++;
		if (level == 1 && type == 1)
			d->l1d = bytes, d->line = line, d->l1d_ways = ways;
		else if (level == 1 && type == 2)
			d->l1i = bytes;
		else if (level == 2)
			d->l2 = bytes, d->l2_ways = ways;
		else if (level == 3)
			d->l3 = bytes, d->l3_ways = ways;
	}
	return found;
}

/* One structure's entries added to a level and page size; ways kept where
 * every structure added there agrees, else unknown. */
static void add_tlb(struct x86_tlb *t, uint32_t entries, uint32_t ways)
{
	if (!entries)
		return;
	if (!t->entries)
		t->ways = ways;
	else if (t->ways != ways)
		t->ways = 0;
	t->entries += entries;
}

/* Leaf 0x18: sub-leaf 0's EAX is the last sub-leaf; each describes one
 * structure: EDX type (1 data, 2 instruction, 3 unified, 4 load-only,
 * 5 store-only), level, fully associative; EBX page sizes (bits 0-3: 4K,
 * 2M, 4M, 1G) and ways; ECX sets. */
static int decode_leaf18(x86_cpuid_fn cpuid, struct x86_cpu_desc *d)
{
	uint32_t r[4], last;
	int found = 0;

	cpuid(0x18, 0, r);
	last = r[0] < 64 ? r[0] : 64;
	for (uint32_t sub = 0; sub <= last; sub++) {
		cpuid(0x18, sub, r);
		unsigned type = r[3] & 0x1f, level = (r[3] >> 5) & 7, full = (r[3] >> 8) & 1;
		uint32_t ways = r[1] >> 16, entries = ways * r[2];
		if (!type || !entries)
			continue;
		if (full)
			ways = entries;
		if (type == 2) {
			if (level == 1 && (r[1] & 1))
				d->itlb += entries;
			continue;
		}
		if (type == 5)
			continue;		/* store-only: a load chase never uses it */
		if (level < 1 || level > X86_TLB_LEVELS) {
			note(d, "CPUID 0x18 lists a TLB level past 2 (not kept)");
			continue;
		}
		struct x86_tlb *t = d->dtlb[level - 1];
		found++;
		if (r[1] & 1)
			add_tlb(&t[X86_PG_4K], entries, ways);
		if (r[1] & 6)			/* 2M, 4M or both: one array */
			add_tlb(&t[X86_PG_LARGE], entries, ways);
		if (r[1] & 8)
			add_tlb(&t[X86_PG_1G], entries, ways);
	}
	return found;
}

/* AMD's 4-bit associativity code (0x80000006, 0x80000019): a table with
 * gaps (4, 6, 8, 16, 32, ... ways; no 12 or 24), and Zen's skewed L2 dTLBs
 * fall in them (AMD's manual gives Zen 1 12 ways where the code says 8):
 * from 4 ways up a code is a lower bound. */
static void amd_assoc4(struct x86_tlb *t, unsigned code)
{
	static const uint8_t ways[16] = { 0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0 };

	t->ways = code == 0xf ? t->entries : ways[code];
	t->ways_at_least = code >= 4 && code != 0xf && t->ways;
}

/* A data TLB field of 0x80000006/0x80000019: [31:28] ways code, [27:16]. */
static void amd_l2_field(struct x86_tlb *t, uint32_t reg)
{
	t->entries = (reg >> 16) & 0xfff;
	if (t->entries)
		amd_assoc4(t, reg >> 28);
}

static int decode_amd_tlbs(x86_cpuid_fn cpuid, struct x86_cpu_desc *d)
{
	struct x86_tlb *l1 = d->dtlb[X86_TLB_L1], *l2 = d->dtlb[X86_TLB_L2];
	uint32_t r[4];

	if (d->max_ext < 0x80000005)
		return 0;
	cpuid(0x80000005, 0, r);	/* [31:24] ways (0xff fully), [23:16] entries */
	l1[X86_PG_LARGE].entries = (r[0] >> 16) & 0xff;
	l1[X86_PG_LARGE].ways = r[0] >> 24 == 0xff ? l1[X86_PG_LARGE].entries : r[0] >> 24;
	l1[X86_PG_4K].entries = (r[1] >> 16) & 0xff;
	l1[X86_PG_4K].ways = r[1] >> 24 == 0xff ? l1[X86_PG_4K].entries : r[1] >> 24;
	d->itlb = r[1] & 0xff;
	if (d->max_ext >= 0x80000019) {
		cpuid(0x80000019, 0, r);
		amd_l2_field(&l1[X86_PG_1G], r[0]);
	}
	/* Family 1Ah (Zen 5) reports 0x080 in the L2 fields where its L2 dTLB
	 * has 4096 entries: the field is not a count there, and nothing
	 * public says its scale. */
	if (d->family >= 0x1a) {
		note(d, "AMD family 1Ah+: the L2 TLB fields of CPUID 0x80000006/19 are not "
			"entry counts (Zen 5 reads 128 for 4096), L2 TLB unknown");
		return 1;
	}
	if (d->max_ext >= 0x80000006) {
		cpuid(0x80000006, 0, r);
		amd_l2_field(&l2[X86_PG_4K], r[1]);
		amd_l2_field(&l2[X86_PG_LARGE], r[0]);
	}
	if (d->max_ext >= 0x80000019) {
		cpuid(0x80000019, 0, r);
		amd_l2_field(&l2[X86_PG_1G], r[1]);
	}
	return 1;
}

/* Old AMD caches: 0x80000005 ECX L1d ([31:24] KiB, [7:0] line), EDX L1i,
 * 0x80000006 ECX L2 ([31:16] KiB), EDX L3 ([31:18] in 512 KiB). */
static void amd_legacy_caches(x86_cpuid_fn cpuid, struct x86_cpu_desc *d)
{
	uint32_t r[4];

	cpuid(0x80000005, 0, r);
	d->l1d = (r[2] >> 24) << 10, d->line = r[2] & 0xff, d->l1i = (r[3] >> 24) << 10;
	if (d->max_ext >= 0x80000006) {
		cpuid(0x80000006, 0, r);
		d->l2 = (r[2] >> 16) << 10, d->l3 = (r[3] >> 18) * (512u << 10);
	}
	if (d->l1d || d->l2)
		d->cache_src = "CPUID 0x80000005/6";
}

static int any_tlb(const struct x86_cpu_desc *d)
{
	for (int l = 0; l < X86_TLB_LEVELS; l++)
		for (int p = 0; p < X86_PAGE_KINDS; p++)
			if (d->dtlb[l][p].entries)
				return 1;
	return 0;
}

static void decode_amd(x86_cpuid_fn cpuid, struct x86_cpu_desc *d)
{
	uint32_t r[4] = { 0 };

	if (d->max_ext >= 0x80000001)
		cpuid(0x80000001, 0, r);
	if ((r[2] & (1u << 22)) && d->max_ext >= 0x8000001d &&
	    deterministic_caches(cpuid, 0x8000001d, d))
		d->cache_src = "CPUID 0x8000001D";
	else if (d->max_ext >= 0x80000005)
		amd_legacy_caches(cpuid, d);
	if (decode_amd_tlbs(cpuid, d) && any_tlb(d))
		d->tlb_src = d->dtlb[X86_TLB_L1][X86_PG_1G].entries ||
			     d->dtlb[X86_TLB_L2][X86_PG_1G].entries ? "CPUID 0x80000005/6/19 of AMD"
								    : "CPUID 0x80000005/6 of AMD";
}

static void decode_intel(x86_cpuid_fn cpuid, struct x86_cpu_desc *d)
{
	int tlbs = 0, caches = 0, see18 = 0;

	if (d->max_leaf >= 2)
		d->leaf2_unknown = x86_decode_leaf2(cpuid, d, &tlbs, &caches, &see18);
	if (caches)
		d->cache_src = "CPUID 2 descriptors";
	if (d->max_leaf >= 4 && deterministic_caches(cpuid, 4, d))
		d->cache_src = "CPUID 4";
	if (tlbs && any_tlb(d))
		d->tlb_src = "CPUID 0x2 descriptors";
	if (d->max_leaf >= 0x18) {
		struct x86_cpu_desc from18 = *d;	/* 0x18 replaces leaf 2's TLBs */
		memset(from18.dtlb, 0, sizeof(from18.dtlb));
		from18.itlb = 0;
		if (decode_leaf18(cpuid, &from18) && any_tlb(&from18)) {
			*d = from18;
			d->tlb_src = "CPUID 0x18";
		} else if (see18) {
			note(d, "CPUID 2 points to leaf 0x18, which is empty");
		}
	} else if (see18) {
		note(d, "CPUID 2 points to leaf 0x18, past the highest leaf");
	}
	if (d->leaf2_unknown) {
		char s[64];
		snprintf(s, sizeof(s), "%d CPUID 2 descriptor(s) not in our table", d->leaf2_unknown);
		note(d, s);
	}
}

void x86_cpuid_decode(x86_cpuid_fn cpuid, struct x86_cpu_desc *d)
{
	uint32_t r[4];

	memset(d, 0, sizeof(*d));
	cpuid(0, 0, r);
	d->max_leaf = r[0];
	memcpy(d->vendor, &r[1], 4), memcpy(d->vendor + 4, &r[3], 4), memcpy(d->vendor + 8, &r[2], 4);
	d->amd = !strcmp(d->vendor, "AuthenticAMD") || !strcmp(d->vendor, "HygonGenuine");
	if (d->max_leaf >= 1) {
		cpuid(1, 0, r);
		d->family = (r[0] >> 8) & 0xf, d->model = (r[0] >> 4) & 0xf, d->stepping = r[0] & 0xf;
		if (d->family == 0xf)
			d->family += (r[0] >> 20) & 0xff;
		if (d->family >= 6)
			d->model |= ((r[0] >> 16) & 0xf) << 4;
	}
	cpuid(0x80000000, 0, r);
	d->max_ext = r[0] >= 0x80000000 && r[0] < 0x80000100 ? r[0] : 0;
	if (d->amd)
		decode_amd(cpuid, d);
	else
		decode_intel(cpuid, d);
	if (!d->tlb_src)
		note(d, "TLB sizes unknown: the tlb probe measures them");
}

const char *x86_hypervisor(x86_cpuid_fn cpuid)
{
	static char other[40];
	uint32_t r[4];
	char sig[13];

	cpuid(1, 0, r);
	if (!(r[2] & (1u << 31)))
		return 0;
	cpuid(0x40000000, 0, r);
	memcpy(sig, &r[1], 4), memcpy(sig + 4, &r[2], 4), memcpy(sig + 8, &r[3], 4);
	sig[12] = 0;
	if (!strcmp(sig, "KVMKVMKVM"))
		return "KVM";
	if (!strcmp(sig, "TCGTCGTCGTCG"))
		return "QEMU TCG";
	snprintf(other, sizeof(other), "hypervisor '%s'", sig);
	return other;
}
