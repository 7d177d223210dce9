/* A set-associative cache and a shadow TLB as the model in mmuplugin.c
 * uses them: pure C, no QEMU, so that host tests (cachetest.c) drive the
 * same code on hand-computed access streams. */
#ifndef MMU_CACHE_H
#define MMU_CACHE_H
#include <stdint.h>

struct cache_cfg {
	uint32_t bytes, ways, line;	/* powers of two; bytes = sets x ways x line */
	int write_back;			/* 1: stores dirty the line; 0: write-through */
	int store_allocate;		/* 1: a store miss fills the line; 0: it goes to memory */
	int repl;			/* CACHE_LRU or CACHE_PLRU */
};

/* Replacement: true LRU (the 405's one bit a class; the e500's L1 TLBs),
 * or the binary-tree pseudo-LRU of the e500's L1 caches: ways - 1 bits a
 * set, bit 0 the root, node i's children 2i+1 (lower ways: taken when the
 * bit is 0) and 2i+2; an access points the bits on its way's path away
 * from it; invalid ways are filled first, lowest first. */
enum { CACHE_LRU, CACHE_PLRU };

struct cache_stats {
	uint64_t loads, stores, load_misses, store_misses;
	uint64_t fills, writebacks;	/* lines read in; dirty lines written out */
};

struct cache {
	struct cache_cfg cfg;
	uint32_t sets, line_shift;
	uint64_t clock;			/* LRU: each access's stamp */
	uint64_t *tag, *stamp;		/* sets x ways; stamp 0: invalid */
	uint8_t *dirty;
	uint32_t *tree;			/* PLRU: a set's bits */
	struct cache_stats st;
};

/* What an access did: a hit, or a miss that filled (or not) and that
 * wrote a dirty victim back (or not). */
enum { CACHE_HIT = 0, CACHE_MISS = 1, CACHE_FILL = 2, CACHE_WRITEBACK = 4 };

int cache_init(struct cache *c, const struct cache_cfg *cfg);	/* 0, or -1: bad geometry */
void cache_free(struct cache *c);
int cache_access(struct cache *c, uint64_t addr, int store);	/* CACHE_* flags */
void cache_invalidate(struct cache *c);				/* drops dirty lines too */
uint32_t cache_plru_bits(const struct cache *c, uint64_t addr);	/* addr's set's tree */

/* A fully associative shadow TLB with round-robin replacement (the 405's
 * ITLB and DTLB): pages are compared whole, victims taken in turn. */
#define STLB_MAX	16
struct stlb {
	unsigned entries, next;
	uint64_t page[STLB_MAX];
	uint8_t valid[STLB_MAX];
	uint64_t lookups, misses;
};
int stlb_init(struct stlb *t, unsigned entries);	/* 0, or -1: too many */
int stlb_lookup(struct stlb *t, uint64_t page);	/* 1 hit; 0 miss (now loaded) */
void stlb_flush(struct stlb *t);

/* The e500's L1 MMU for one side (instructions or data): a fully
 * associative array of variable-size pages (L1VSP) beside a
 * set-associative one of 4 KiB pages (L1TLB4K), both true LRU, refilled
 * from the L2 MMU on a miss.  Both are caches of translations: a page is
 * a line. */
struct l1mmu {
	struct cache vsp, tlb4k;
	uint64_t lookups, misses;
};
int l1mmu_init(struct l1mmu *m, unsigned vsp_entries, unsigned tlb4k_entries, unsigned tlb4k_ways);
int l1mmu_lookup(struct l1mmu *m, uint64_t addr, unsigned page_shift);	/* 1 hit; 0 miss (now loaded) */
void l1mmu_flush(struct l1mmu *m);
void l1mmu_free(struct l1mmu *m);
#endif
