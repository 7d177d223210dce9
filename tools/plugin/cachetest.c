/* cachetest: drive cache.c from a script on stdin, one command a line, and
 * print what each access did, for selftest/test_plugin.py:
 *   cache BYTES WAYS LINE WB ALLOC   a new cache (WB 1 write-back, ALLOC 1
 *                                    store misses allocate)
 *   r ADDR | w ADDR                  a load or store: "hit", or "miss" with
 *                                    "fill" and "wb" (a dirty victim written back)
 *   inv                              invalidate everything
 *   stats                            the counters
 *   tlb N | t PAGE | tflush | tstats a shadow TLB of N entries
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
	int have_cache = 0, have_tlb = 0, n = 0;
	char line[256], cmd[16];

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: cachetest < script  (commands: cache BYTES WAYS LINE WB ALLOC, r ADDR, w ADDR, "
		     "inv, stats, tlb N, t PAGE, tflush, tstats)");
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

			if (sscanf(line, "cache %lli %lli %lli %lli %lli", &b, &w, &l, &wb, &al) != 5)
				return bad(n, line);
			cfg = (struct cache_cfg){ (uint32_t)b, (uint32_t)w, (uint32_t)l, (int)wb, (int)al };
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
	return 0;
}
