/*
 * pagechase: a TLB curve on a Linux host, to tell TLB steps from cache
 * steps in a lat_mem_rd curve (mmuguess -r).  A random cyclic chase over
 * P pages, one load per page, each page's line a different one of its 64
 * (page k uses line k mod 64), so that the lines spread over all cache
 * sets and stay cached far beyond the TLB's reach: the first step of the
 * curve is the first-level data TLB running out.  Prints lat_mem_rd's
 * format ("stride=<page>, then "<size in MB> <ns>" per point, size = P
 * pages), 4 points an octave from 8 pages to MAXPAGES (default 4096), so
 * `mmuguess -t` on it gives that step as l1_bytes: the TLB reach.
 *
 *   pagechase [MAXPAGES]
 *
 * Pin it (taskset -c 1) for a steady curve.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINE 64

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static void **chase(void **p, long n)
{
	while (n--) {
		p = (void **)*p; p = (void **)*p; p = (void **)*p; p = (void **)*p;
		p = (void **)*p; p = (void **)*p; p = (void **)*p; p = (void **)*p;
	}
	return p;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), max = argc > 1 ? atol(argv[1]) : 4096;
	char *buf;
	static unsigned order[1 << 20];
	uint32_t x = 0x2545F491u;

	int help = argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));

	if (help || argc > 2 || max < 16 || max > (1 << 20) || page < 16 * LINE) {
		fprintf(help ? stdout : stderr, "usage: pagechase [MAXPAGES: 16 .. 1048576]\n");
		return help ? 0 : 2;
	}
	buf = aligned_alloc(page, max * page);
	if (!buf) {
		perror("pagechase");
		return 1;
	}
	for (long i = 0; i < max * page; i += page)
		buf[i] = 1;			/* fault every page in */
	printf("\"stride=%ld\n", page);
	for (long pw = 8; pw <= max; pw *= 2)
		for (long q = 4; q < 8 && pw * q / 4 <= max; q++) {
			long pages = pw * q / 4;	/* 4 points an octave */
			double best = 1e30;
			void **p;

			/* Sattolo: a single random cycle through the pages. */
			for (long i = 0; i < pages; i++)
				order[i] = i;
			for (long i = pages - 1; i > 0; i--) {
				long j;
				unsigned t;
				x ^= x << 13; x ^= x >> 17; x ^= x << 5;
				j = x % i;
				t = order[i]; order[i] = order[j]; order[j] = t;
			}
			/* Page k's line k mod 64 points at page order[k]'s. */
			for (long k = 0; k < pages; k++)
				*(void **)(buf + k * page + k % (page / LINE) * LINE) =
					buf + order[k] * page + order[k] % (page / LINE) * LINE;
			p = chase((void **)buf, pages);	/* warm */
			for (int r = 0; r < 5; r++) {
				long n = 1 << 18;	/* 2M loads */
				double t = now_ns();
				p = chase(p, n);
				t = (now_ns() - t) / (8.0 * n);
				if (t < best)
					best = t;
			}
			/* (p == 0) is 0: it keeps the chase from being optimised away. */
			printf("%.5f %.3f\n", pages * (double)page / 1048576.0, best + (p == 0));
		}
	return 0;
}
