/* The cache and shadow-TLB models of cache.h.  LRU by a per-line stamp:
 * exact for any number of ways (for the 405's two it is the manual's one
 * LRU bit a congruence class). */
#include <stdlib.h>
#include <string.h>
#include "cache.h"

static int pow2(uint32_t v) { return v && !(v & (v - 1)); }

int cache_init(struct cache *c, const struct cache_cfg *cfg)
{
	memset(c, 0, sizeof(*c));
	if (!pow2(cfg->bytes) || !pow2(cfg->ways) || !pow2(cfg->line) ||
	    (uint64_t)cfg->ways * cfg->line > cfg->bytes)
		return -1;
	c->cfg = *cfg;
	c->sets = cfg->bytes / cfg->ways / cfg->line;
	while ((1u << c->line_shift) < cfg->line)
		c->line_shift++;
	c->tag = calloc((size_t)c->sets * cfg->ways, sizeof(*c->tag));
	c->stamp = calloc((size_t)c->sets * cfg->ways, sizeof(*c->stamp));
	c->dirty = calloc((size_t)c->sets * cfg->ways, 1);
	if (!c->tag || !c->stamp || !c->dirty) {
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
	c->tag = c->stamp = 0;
	c->dirty = 0;
}

void cache_invalidate(struct cache *c)
{
	size_t n = (size_t)c->sets * c->cfg.ways;

	memset(c->stamp, 0, n * sizeof(*c->stamp));
	memset(c->dirty, 0, n);
}

int cache_access(struct cache *c, uint64_t addr, int store)
{
	uint64_t lineno = addr >> c->line_shift;
	uint32_t set = (uint32_t)(lineno % c->sets), ways = c->cfg.ways;
	uint64_t tag = lineno / c->sets, *stamp = c->stamp + (size_t)set * ways;
	uint64_t *tags = c->tag + (size_t)set * ways;
	uint8_t *dirty = c->dirty + (size_t)set * ways;
	unsigned victim = 0;
	int r = CACHE_MISS;

	c->clock++;
	if (store)
		c->st.stores++;
	else
		c->st.loads++;
	for (unsigned w = 0; w < ways; w++)
		if (stamp[w] && tags[w] == tag) {
			stamp[w] = c->clock;
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
	for (unsigned w = 1; w < ways; w++)	/* an invalid way (stamp 0) first, else the LRU */
		if (stamp[w] < stamp[victim])
			victim = w;
	if (stamp[victim] && dirty[victim]) {
		c->st.writebacks++;
		r |= CACHE_WRITEBACK;
	}
	tags[victim] = tag;
	stamp[victim] = c->clock;
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
