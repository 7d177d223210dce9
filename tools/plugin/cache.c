/* The cache and shadow-TLB models of cache.h.  LRU by a per-line stamp:
 * exact for any number of ways (for the 405's two it is the manual's one
 * LRU bit a congruence class).  A stamp of 0 marks an invalid line under
 * either policy; PLRU keeps its tree bits beside. */
#include <stdlib.h>
#include <string.h>
#include "cache.h"

static int pow2(uint32_t v) { return v && !(v & (v - 1)); }

int cache_init(struct cache *c, const struct cache_cfg *cfg)
{
	memset(c, 0, sizeof(*c));
	if (!pow2(cfg->bytes) || !pow2(cfg->ways) || !pow2(cfg->line) ||
	    (uint64_t)cfg->ways * cfg->line > cfg->bytes || (cfg->repl == CACHE_PLRU && cfg->ways > 32) ||
	    (cfg->repl != CACHE_LRU && cfg->repl != CACHE_PLRU))
		return -1;
	c->cfg = *cfg;
	c->sets = cfg->bytes / cfg->ways / cfg->line;
	while ((1u << c->line_shift) < cfg->line)
		c->line_shift++;
	c->tag = calloc((size_t)c->sets * cfg->ways, sizeof(*c->tag));
	c->stamp = calloc((size_t)c->sets * cfg->ways, sizeof(*c->stamp));
	c->dirty = calloc((size_t)c->sets * cfg->ways, 1);
	c->tree = calloc(c->sets, sizeof(*c->tree));
	if (!c->tag || !c->stamp || !c->dirty || !c->tree) {
		cache_free(c);
		return -1;
	}
	return 0;
}

void cache_free(struct cache *c)
{
	free(c->tag);
	free(c->stamp);
	free(c->dirty);
	free(c->tree);
	c->tag = c->stamp = 0;
	c->dirty = 0;
	c->tree = 0;
}

void cache_invalidate(struct cache *c)
{
	size_t n = (size_t)c->sets * c->cfg.ways;

	memset(c->stamp, 0, n * sizeof(*c->stamp));
	memset(c->dirty, 0, n);
	memset(c->tree, 0, c->sets * sizeof(*c->tree));	/* assumed: the bits start over */
}

uint32_t cache_plru_bits(const struct cache *c, uint64_t addr)
{
	return c->tree[(addr >> c->line_shift) % c->sets];
}

/* PLRU: walk from the root, 0 to the lower half, 1 to the upper. */
static unsigned plru_victim(uint32_t tree, unsigned ways)
{
	unsigned node = 0;

	while (node < ways - 1)
		node = 2 * node + 1 + (tree >> node & 1);
	return node - (ways - 1);
}

/* PLRU: every node on the way's path now points at the other half. */
static uint32_t plru_touch(uint32_t tree, unsigned ways, unsigned way)
{
	for (unsigned node = way + ways - 1; node; node = (node - 1) / 2) {
		unsigned parent = (node - 1) / 2;

		if (node == 2 * parent + 1)
			tree |= 1u << parent;
		else
			tree &= ~(1u << parent);
	}
	return tree;
}

/* The way a fill takes: an invalid one first (the lowest), else the
 * policy's choice. */
static unsigned victim_of(const struct cache *c, uint32_t set)
{
	const uint64_t *stamp = c->stamp + (size_t)set * c->cfg.ways;
	unsigned victim = 0;

	for (unsigned w = 0; w < c->cfg.ways; w++)
		if (!stamp[w])
			return w;
	if (c->cfg.repl == CACHE_PLRU)
		return plru_victim(c->tree[set], c->cfg.ways);
	for (unsigned w = 1; w < c->cfg.ways; w++)
		if (stamp[w] < stamp[victim])
			victim = w;
	return victim;
}

static void touch(struct cache *c, uint32_t set, unsigned way)
{
	c->stamp[(size_t)set * c->cfg.ways + way] = c->clock;
	if (c->cfg.repl == CACHE_PLRU)
		c->tree[set] = plru_touch(c->tree[set], c->cfg.ways, way);
}

int cache_access(struct cache *c, uint64_t addr, int store)
{
	uint64_t lineno = addr >> c->line_shift;
	uint32_t set = (uint32_t)(lineno % c->sets), ways = c->cfg.ways;
	uint64_t tag = lineno / c->sets, *stamp = c->stamp + (size_t)set * ways;
	uint64_t *tags = c->tag + (size_t)set * ways;
	uint8_t *dirty = c->dirty + (size_t)set * ways;
	unsigned victim;
	int r = CACHE_MISS;

	c->clock++;
	if (store)
		c->st.stores++;
	else
		c->st.loads++;
	for (unsigned w = 0; w < ways; w++)
		if (stamp[w] && tags[w] == tag) {
			touch(c, set, w);
			if (store && c->cfg.write_back)
				dirty[w] = 1;
			return CACHE_HIT;
		}
	if (store)
		c->st.store_misses++;
	else
		c->st.load_misses++;
	if (store && !c->cfg.store_allocate)
		return r;			/* the word goes to memory, the cache is unchanged */
	victim = victim_of(c, set);
	if (stamp[victim] && dirty[victim]) {
		c->st.writebacks++;
		r |= CACHE_WRITEBACK;
	}
	tags[victim] = tag;
	touch(c, set, victim);
	dirty[victim] = store && c->cfg.write_back;
	c->st.fills++;
	return r | CACHE_FILL;
}

int stlb_init(struct stlb *t, unsigned entries)
{
	memset(t, 0, sizeof(*t));
	if (!entries || entries > STLB_MAX)
		return -1;
	t->entries = entries;
	return 0;
}

void stlb_flush(struct stlb *t)
{
	memset(t->valid, 0, sizeof(t->valid));	/* the round-robin pointer stays: the
						   manual says nothing of resetting it */
}

int stlb_lookup(struct stlb *t, uint64_t page)
{
	t->lookups++;
	for (unsigned i = 0; i < t->entries; i++)
		if (t->valid[i] && t->page[i] == page)
			return 1;
	t->misses++;
	t->page[t->next] = page;
	t->valid[t->next] = 1;
	t->next = (t->next + 1) % t->entries;
	return 0;
}

/* The L1VSP holds pages of any size: a page is its number and its size,
 * one "line" of a one-set cache whose lines are one unit long. */
int l1mmu_init(struct l1mmu *m, unsigned vsp_entries, unsigned tlb4k_entries, unsigned tlb4k_ways)
{
	struct cache_cfg vsp = { vsp_entries, vsp_entries, 1, 0, 0, CACHE_LRU };
	struct cache_cfg t4k = { tlb4k_entries << 12, tlb4k_ways, 1u << 12, 0, 0, CACHE_LRU };

	memset(m, 0, sizeof(*m));
	if (cache_init(&m->vsp, &vsp) < 0 || cache_init(&m->tlb4k, &t4k) < 0) {
		l1mmu_free(m);
		return -1;
	}
	return 0;
}

void l1mmu_free(struct l1mmu *m)
{
	cache_free(&m->vsp);
	cache_free(&m->tlb4k);
}

void l1mmu_flush(struct l1mmu *m)
{
	cache_invalidate(&m->vsp);
	cache_invalidate(&m->tlb4k);
}

int l1mmu_lookup(struct l1mmu *m, uint64_t addr, unsigned page_shift)
{
	int r;

	m->lookups++;
	if (page_shift == 12)
		r = cache_access(&m->tlb4k, addr, 0);
	else
		r = cache_access(&m->vsp, (addr >> page_shift) << 6 | page_shift, 0);
	if (r == CACHE_HIT)
		return 1;
	m->misses++;
	return 0;
}
