/* cachetest: drive cache.c from a script on stdin, one command a line, and
 * print what each access did, for selftest/test_plugin.py:
 *   cache BYTES WAYS LINE WB ALLOC [lru|plru]
 *                                    a new cache (WB 1 write-back, ALLOC 1
 *                                    store misses allocate; LRU unless plru)
 *   r ADDR | w ADDR                  a load or store: "hit", or "miss" with
 *                                    "fill" and "wb" (a dirty victim written back)
 *   inv                              invalidate everything
 *   stats                            the counters
 *   bits ADDR                        the PLRU tree of ADDR's set, bit 0 first
 *   tlb N | t PAGE | tflush | tstats a shadow TLB of N entries
 *   l1mmu VSP N4K WAYS               an e500 L1 MMU side: VSP entries, N4K
 *                                    4 KiB entries of WAYS ways
 *   m ADDR SHIFT | mflush | mstats   a lookup of ADDR's page of 2^SHIFT bytes
 * Numbers in C syntax (0x...).  Exit 0; 2 on a bad line (said on stderr). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cache.h"

static int bad(int n, const char *line)
{
	fprintf(stderr, "cachetest: line %d: cannot read '%s'\n", n, line);
	return 2;
}

int main(int argc, char **argv)
{
	struct cache c;
	struct stlb t;
	struct l1mmu m;
	int have_cache = 0, have_tlb = 0, have_mmu = 0, n = 0;
	char line[256], cmd[16], repl[8];

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: cachetest < script  (commands: cache BYTES WAYS LINE WB ALLOC [lru|plru], r ADDR, "
		     "w ADDR, inv, stats, bits ADDR, tlb N, t PAGE, tflush, tstats, l1mmu VSP N4K WAYS, "
		     "m ADDR SHIFT, mflush, mstats)");
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "cachetest: unknown option '%s'\n", argv[1]);
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long long a, b, w, l, wb, al;

		n++;
		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		if (sscanf(line, "%15s", cmd) != 1)
			return bad(n, line);
		if (!strcmp(cmd, "cache")) {
			struct cache_cfg cfg;
			int k = sscanf(line, "cache %lli %lli %lli %lli %lli %7s", &b, &w, &l, &wb, &al, repl);

			if (k < 5 || (k == 6 && strcmp(repl, "lru") && strcmp(repl, "plru")))
				return bad(n, line);
			cfg = (struct cache_cfg){ (uint32_t)b, (uint32_t)w, (uint32_t)l, (int)wb, (int)al,
						  k == 6 && !strcmp(repl, "plru") ? CACHE_PLRU : CACHE_LRU };
			if (have_cache)
				cache_free(&c);
			if (cache_init(&c, &cfg) < 0) {
				fprintf(stderr, "cachetest: line %d: bad geometry\n", n);
				return 2;
			}
			have_cache = 1;
		} else if ((!strcmp(cmd, "r") || !strcmp(cmd, "w")) && have_cache) {
			int r;

			if (sscanf(line, "%*s %lli", &a) != 1)
				return bad(n, line);
			r = cache_access(&c, a, cmd[0] == 'w');
			printf("%s %#llx %s%s%s\n", cmd, a, r ? "miss" : "hit", r & CACHE_FILL ? " fill" : "",
			       r & CACHE_WRITEBACK ? " wb" : "");
		} else if (!strcmp(cmd, "inv") && have_cache) {
			cache_invalidate(&c);
		} else if (!strcmp(cmd, "stats") && have_cache) {
			printf("loads %llu stores %llu load_misses %llu store_misses %llu fills %llu writebacks %llu\n",
			       (unsigned long long)c.st.loads, (unsigned long long)c.st.stores,
			       (unsigned long long)c.st.load_misses, (unsigned long long)c.st.store_misses,
			       (unsigned long long)c.st.fills, (unsigned long long)c.st.writebacks);
		} else if (!strcmp(cmd, "bits") && have_cache) {
			uint32_t tree;

			if (sscanf(line, "bits %lli", &a) != 1)
				return bad(n, line);
			tree = cache_plru_bits(&c, a);
			printf("bits %#llx ", a);
			for (unsigned i = 0; i + 1 < c.cfg.ways; i++)
				putchar('0' + (tree >> i & 1));
			putchar('\n');
		} else if (!strcmp(cmd, "l1mmu")) {
			if (sscanf(line, "l1mmu %lli %lli %lli", &a, &b, &w) != 3)
				return bad(n, line);
			if (have_mmu)
				l1mmu_free(&m);
			if (l1mmu_init(&m, (unsigned)a, (unsigned)b, (unsigned)w) < 0)
				return bad(n, line);
			have_mmu = 1;
		} else if (!strcmp(cmd, "m") && have_mmu) {
			if (sscanf(line, "m %lli %lli", &a, &b) != 2)
				return bad(n, line);
			printf("m %#llx %s\n", a, l1mmu_lookup(&m, a, (unsigned)b) ? "hit" : "miss");
		} else if (!strcmp(cmd, "mflush") && have_mmu) {
			l1mmu_flush(&m);
		} else if (!strcmp(cmd, "mstats") && have_mmu) {
			printf("lookups %llu misses %llu\n", (unsigned long long)m.lookups,
			       (unsigned long long)m.misses);
		} else if (!strcmp(cmd, "tlb")) {
			if (sscanf(line, "tlb %lli", &a) != 1 || stlb_init(&t, (unsigned)a) < 0)
				return bad(n, line);
			have_tlb = 1;
		} else if (!strcmp(cmd, "t") && have_tlb) {
			if (sscanf(line, "t %lli", &a) != 1)
				return bad(n, line);
			printf("t %#llx %s\n", a, stlb_lookup(&t, a) ? "hit" : "miss");
		} else if (!strcmp(cmd, "tflush") && have_tlb) {
			stlb_flush(&t);
		} else if (!strcmp(cmd, "tstats") && have_tlb) {
			printf("lookups %llu misses %llu\n", (unsigned long long)t.lookups,
			       (unsigned long long)t.misses);
		} else {
			return bad(n, line);
		}
	}
	if (have_cache)
		cache_free(&c);
	if (have_mmu)
		l1mmu_free(&m);
	return 0;
}
