/* CPUID leaf 2 (Intel): one-byte descriptors of caches and TLBs, for CPUs
 * without leaf 4 (caches) or leaf 0x18 (TLBs).  The table is written from
 * the Intel SDM vol. 2A, CPUID, table "Encoding of CPUID Leaf 2
 * Descriptors"; only TLBs and data/unified caches are kept.
 *
 * Data TLB levels: the SDM names "Data TLB0" the small first level and
 * "Data TLB1" the one behind it (Core 2, Atom); "Shared 2nd-Level TLB"
 * (STLB) is level 2.  A TLB1 with no TLB0 or plain data TLB beside it is
 * the first level. */
#include <string.h>
#include "cpuid.h"

enum { LV_TLB0, LV_L1, LV_TLB1, LV_STLB };	/* how the SDM names the level */
#define P4K	1
#define PL	2		/* 2M and/or 4M */
#define P1G	4
#define FULL	0xff

static const struct leaf2 {
	uint8_t code;
	char kind;		/* 'D' data TLB, 'S' shared TLB, 'I' instruction TLB,
				 * 'd' L1 data, 'i' L1 instruction, '2' L2, '3' L3 cache */
	uint8_t level, pages, ways;	/* ways 0 unknown, FULL fully associative */
	uint16_t n;		/* TLB: entries; cache: KiB */
	uint8_t line;		/* L1 data cache line, bytes */
} table[] = {
	{ 0x01, 'I', LV_L1, P4K, 4, 32, 0 },	{ 0x02, 'I', LV_L1, PL, FULL, 2, 0 },
	{ 0x03, 'D', LV_L1, P4K, 4, 64, 0 },	{ 0x04, 'D', LV_L1, PL, 4, 8, 0 },
	{ 0x05, 'D', LV_TLB1, PL, 4, 32, 0 },	{ 0x0b, 'I', LV_L1, PL, 4, 4, 0 },
	{ 0x4f, 'I', LV_L1, P4K, 0, 32, 0 },	{ 0x50, 'I', LV_L1, P4K | PL, 0, 64, 0 },
	{ 0x51, 'I', LV_L1, P4K | PL, 0, 128, 0 }, { 0x52, 'I', LV_L1, P4K | PL, 0, 256, 0 },
	{ 0x55, 'I', LV_L1, PL, FULL, 7, 0 },	{ 0x56, 'D', LV_TLB0, PL, 4, 16, 0 },
	{ 0x57, 'D', LV_TLB0, P4K, 4, 16, 0 },	{ 0x59, 'D', LV_TLB0, P4K, FULL, 16, 0 },
	{ 0x5a, 'D', LV_TLB0, PL, 4, 32, 0 },	{ 0x5b, 'D', LV_L1, P4K | PL, 0, 64, 0 },
	{ 0x5c, 'D', LV_L1, P4K | PL, 0, 128, 0 }, { 0x5d, 'D', LV_L1, P4K | PL, 0, 256, 0 },
	{ 0x61, 'I', LV_L1, P4K, FULL, 48, 0 },	{ 0x63, 'D', LV_L1, PL, 4, 32, 0 },
	{ 0x63, 'D', LV_L1, P1G, 4, 4, 0 },	/* 0x63: a separate 1G array */
	{ 0x64, 'D', LV_TLB1, P4K, 4, 512, 0 },	{ 0x6a, 'D', LV_TLB0, P4K, 8, 64, 0 },
	{ 0x6b, 'D', LV_TLB1, P4K, 8, 256, 0 },	{ 0x6c, 'D', LV_TLB1, PL, 8, 128, 0 },
	{ 0x6d, 'D', LV_TLB1, P1G, FULL, 16, 0 }, { 0x76, 'I', LV_L1, PL, FULL, 8, 0 },
	{ 0xa0, 'D', LV_L1, P4K, FULL, 32, 0 },	{ 0xb0, 'I', LV_L1, P4K, 4, 128, 0 },
	{ 0xb1, 'I', LV_L1, PL, 4, 8, 0 },	{ 0xb2, 'I', LV_L1, P4K, 4, 64, 0 },
	{ 0xb3, 'D', LV_L1, P4K, 4, 128, 0 },	{ 0xb4, 'D', LV_TLB1, P4K, 4, 256, 0 },
	{ 0xb5, 'I', LV_L1, P4K, 8, 64, 0 },	{ 0xb6, 'I', LV_L1, P4K, 8, 128, 0 },
	{ 0xba, 'D', LV_TLB1, P4K, 4, 64, 0 },	{ 0xc0, 'D', LV_L1, P4K | PL, 4, 8, 0 },
	{ 0xc1, 'S', LV_STLB, P4K | PL, 8, 1024, 0 }, { 0xc2, 'D', LV_L1, P4K | PL, 4, 16, 0 },
	{ 0xc3, 'S', LV_STLB, P4K | PL, 6, 1536, 0 },
	{ 0xc3, 'S', LV_STLB, P1G, 4, 16, 0 },	/* 0xc3: also a 1G array */
	{ 0xc4, 'D', LV_L1, PL, 4, 32, 0 },	{ 0xca, 'S', LV_STLB, P4K, 4, 512, 0 },
	/* caches */
	{ 0x06, 'i', 0, 0, 4, 8, 0 },		{ 0x08, 'i', 0, 0, 4, 16, 0 },
	{ 0x09, 'i', 0, 0, 4, 32, 0 },		{ 0x0a, 'd', 0, 0, 2, 8, 32 },
	{ 0x0c, 'd', 0, 0, 4, 16, 32 },		{ 0x0d, 'd', 0, 0, 4, 16, 64 },
	{ 0x0e, 'd', 0, 0, 6, 24, 64 },		{ 0x21, '2', 0, 0, 8, 256, 0 },
	{ 0x22, '3', 0, 0, 4, 512, 0 },		{ 0x23, '3', 0, 0, 8, 1024, 0 },
	{ 0x25, '3', 0, 0, 8, 2048, 0 },	{ 0x29, '3', 0, 0, 8, 4096, 0 },
	{ 0x2c, 'd', 0, 0, 8, 32, 64 },		{ 0x30, 'i', 0, 0, 8, 32, 0 },
	{ 0x41, '2', 0, 0, 4, 128, 0 },		{ 0x42, '2', 0, 0, 4, 256, 0 },
	{ 0x43, '2', 0, 0, 4, 512, 0 },		{ 0x44, '2', 0, 0, 4, 1024, 0 },
	{ 0x45, '2', 0, 0, 4, 2048, 0 },	{ 0x48, '2', 0, 0, 12, 3072, 0 },
	{ 0x4e, '2', 0, 0, 24, 6144, 0 },	{ 0x60, 'd', 0, 0, 8, 16, 64 },
	{ 0x66, 'd', 0, 0, 4, 8, 64 },		{ 0x67, 'd', 0, 0, 4, 16, 64 },
	{ 0x68, 'd', 0, 0, 4, 32, 64 },		{ 0x78, '2', 0, 0, 4, 1024, 0 },
	{ 0x79, '2', 0, 0, 8, 128, 0 },		{ 0x7a, '2', 0, 0, 8, 256, 0 },
	{ 0x7b, '2', 0, 0, 8, 512, 0 },		{ 0x7c, '2', 0, 0, 8, 1024, 0 },
	{ 0x7d, '2', 0, 0, 8, 2048, 0 },	{ 0x7f, '2', 0, 0, 2, 512, 0 },
	{ 0x80, '2', 0, 0, 8, 512, 0 },		{ 0x82, '2', 0, 0, 8, 256, 0 },
	{ 0x83, '2', 0, 0, 8, 512, 0 },		{ 0x84, '2', 0, 0, 8, 1024, 0 },
	{ 0x85, '2', 0, 0, 8, 2048, 0 },	{ 0x86, '2', 0, 0, 4, 512, 0 },
	{ 0x87, '2', 0, 0, 8, 1024, 0 },	{ 0xd0, '3', 0, 0, 4, 512, 0 },
	{ 0xd1, '3', 0, 0, 4, 1024, 0 },	{ 0xd2, '3', 0, 0, 4, 2048, 0 },
	{ 0xd6, '3', 0, 0, 8, 1024, 0 },	{ 0xd7, '3', 0, 0, 8, 2048, 0 },
	{ 0xd8, '3', 0, 0, 8, 4096, 0 },	{ 0xe2, '3', 0, 0, 16, 2048, 0 },
	{ 0xe3, '3', 0, 0, 16, 4096, 0 },	{ 0xe4, '3', 0, 0, 16, 8192, 0 },
};
#define ENTRIES (sizeof(table) / sizeof(table[0]))

/* Descriptors that name no cache or TLB: null, "no L2/L3" (0x40),
 * prefetch (0xf0, 0xf1), trace cache (0x70-0x72), 0xff (see leaf 4). */
static int no_structure(uint8_t c)
{
	return !c || c == 0x40 || c == 0xf0 || c == 0xf1 || (c >= 0x70 && c <= 0x72) || c == 0xff;
}

/* The valid descriptor bytes of leaf 2 (AL, the iteration count, is not
 * one; a register with bit 31 set holds none). */
static int bytes(x86_cpuid_fn cpuid, uint8_t out[16])
{
	uint32_t r[4];
	int n = 0;

	cpuid(2, 0, r);
	r[0] &= ~0xffu;
	for (int i = 0; i < 4; i++)
		for (int b = 0; b < 4 && !(r[i] & 0x80000000u); b++)
			if ((uint8_t)(r[i] >> (8 * b)))
				out[n++] = r[i] >> (8 * b);
	return n;
}

static void put_tlb(struct x86_tlb *t, const struct leaf2 *e)
{
	if (t->entries)			/* the first descriptor of a kind stands */
		return;
	t->entries = e->n;
	t->ways = e->ways == FULL ? e->n : e->ways;
}

static void put(struct x86_cpu_desc *d, const struct leaf2 *e, int has_l1, int *tlbs, int *caches)
{
	uint32_t kib = (uint32_t)e->n << 10;

	switch (e->kind) {
	case 'D': case 'S': {
		int level = e->level == LV_STLB || (e->level == LV_TLB1 && has_l1);
		for (int p = 0; p < X86_PAGE_KINDS; p++)
			if (e->pages & (1u << p))
				put_tlb(&d->dtlb[level][p], e);
		++*tlbs;
		break;
	}
	case 'I':
		if ((e->pages & P4K) && !d->itlb)
			d->itlb = e->n;
		++*tlbs;
		break;
	case 'd': d->l1d = kib, d->line = e->line; ++*caches; break;
	case 'i': d->l1i = kib; ++*caches; break;
	case '2': d->l2 = kib; ++*caches; break;
	case '3': d->l3 = kib; ++*caches; break;
	}
}

/* Returns how many descriptors are in no table; *see_leaf18 for 0xfe. */
int x86_decode_leaf2(x86_cpuid_fn cpuid, struct x86_cpu_desc *d, int *tlbs, int *caches,
		     int *see_leaf18)
{
	uint8_t code[16];
	int n = bytes(cpuid, code), unknown = 0, has_l1 = 0;

	for (int i = 0; i < n; i++)		/* is there a first level beside a TLB1? */
		for (unsigned k = 0; k < ENTRIES; k++)
			if (table[k].code == code[i] && table[k].kind == 'D' &&
			    (table[k].level == LV_TLB0 || table[k].level == LV_L1))
				has_l1 = 1;
	for (int i = 0; i < n; i++) {
		int found = 0;
		if (code[i] == 0xfe) {
			*see_leaf18 = 1;
			continue;
		}
		for (unsigned k = 0; k < ENTRIES; k++)
			if (table[k].code == code[i]) {
				put(d, &table[k], has_l1, tlbs, caches);
				found = 1;
			}
		unknown += !found && !no_structure(code[i]);
	}
	return unknown;
}
