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
};

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
	struct cache_stats st;
};

/* What an access did: a hit, or a miss that filled (or not) and that
 * wrote a dirty victim back (or not). */
enum { CACHE_HIT = 0, CACHE_MISS = 1, CACHE_FILL = 2, CACHE_WRITEBACK = 4 };

int cache_init(struct cache *c, const struct cache_cfg *cfg);	/* 0, or -1: bad geometry */
void cache_free(struct cache *c);
int cache_access(struct cache *c, uint64_t addr, int store);	/* CACHE_* flags */
void cache_invalidate(struct cache *c);				/* drops dirty lines too */

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
#endif
