/* Probe `bw_mem`: memory bandwidth in MB/s (LMbench's MB: 2^20 bytes), as
 * LMbench's bw_mem: read (every 32-bit word summed), write (every word
 * stored), copy with newlib's memcpy ("Bcopy (libc)") and with a loop
 * unrolled by hand, eight words at a time; a copy counts the bytes copied
 * once, as LMbench does.  frd, fwr, fcp: LMbench 2.0's own loops (below),
 * the summary's Mem read, Mem write and Bcopy (hand).  Two sizes: half the L1 data
 * cache (in cache) and one beyond every cache: 4x where lat_mem's curve
 * reached memory in this run, else 8x the largest cache the CPU reports
 * (with `quick` 2x, at most 8 MiB), bounded by free RAM (a copy needs two
 * buffers).  The headlines are the beyond-cache figures, as LMbench's
 * summary; each size also has its own names.  Where RAM cannot hold a
 * buffer beyond the caches (a guest whose CPUID reports the host's L3),
 * that is the harness's limit, not a failure: the in-cache figures and
 * whatever size fits are measured, with no headline and a diagnostic.
 * Each figure is one pass over the buffer timed by probe_measure (median
 * of 5 runs, spread).  Each loop lies between region markers (mark.h) for
 * the modelled-time plugin, outside the timed span: the figures do not
 * count them, the plugin's region holds the two timer reads. */
#include <stdio.h>
#include <string.h>
#include "probe.h"
#include "mark.h"

#define QUICK_MAX	(8u << 20)	/* quick: the largest buffer */
#define DST_SKEW	(4096 + 576)	/* see bw_run */
#define NO_MEMCPY __attribute__((noinline, optimize("no-tree-loop-distribute-patterns")))

struct buf {
	uint32_t *src, *dst;
	size_t bytes;
	int translated;			/* for the region markers (mark.h) */
};

static volatile uint32_t sink;

NO_MEMCPY static uint64_t rd(void *arg, uint32_t n)
{
	const struct buf *b = arg;
	uint64_t t0;
	uint32_t sum = 0;

	MARK_BEGIN(MARK_BW_RD, b->translated);
	t0 = probe_ticks();
	while (n--)
		for (const uint32_t *p = b->src, *e = p + b->bytes / 4; p < e; p += 8)
			sum += p[0] + p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7];
	t0 = probe_ticks() - t0;
	MARK_END(MARK_BW_RD);
	sink = sum;			/* keep the loads */
	return t0;
}

NO_MEMCPY static uint64_t wr(void *arg, uint32_t n)
{
	const struct buf *b = arg;
	uint64_t t0;

	MARK_BEGIN(MARK_BW_WR, b->translated);
	t0 = probe_ticks();
	while (n--)
		for (uint32_t *p = b->dst, *e = p + b->bytes / 4; p < e; p += 8) {
			p[0] = 1; p[1] = 1; p[2] = 1; p[3] = 1;
			p[4] = 1; p[5] = 1; p[6] = 1; p[7] = 1;
		}
	t0 = probe_ticks() - t0;
	MARK_END(MARK_BW_WR);
	return t0;
}

NO_MEMCPY static uint64_t cp_libc(void *arg, uint32_t n)
{
	const struct buf *b = arg;
	uint64_t t0;

	MARK_BEGIN(MARK_BW_CP_LIBC, b->translated);
	t0 = probe_ticks();
	while (n--)
		memcpy(b->dst, b->src, b->bytes);
	t0 = probe_ticks() - t0;
	MARK_END(MARK_BW_CP_LIBC);
	return t0;
}

NO_MEMCPY static uint64_t cp_hand(void *arg, uint32_t n)
{
	const struct buf *b = arg;
	uint64_t t0;

	MARK_BEGIN(MARK_BW_CP_HAND, b->translated);
	t0 = probe_ticks();
	while (n--) {
		const uint32_t *s = b->src, *e = s + b->bytes / 4;
		for (uint32_t *d = b->dst; s < e; s += 8, d += 8) {
			d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; d[3] = s[3];
			d[4] = s[4]; d[5] = s[5]; d[6] = s[6]; d[7] = s[7];
		}
	}
	t0 = probe_ticks() - t0;
	MARK_END(MARK_BW_CP_HAND);
	return t0;
}

/* LMbench 2.0's frd, fwr and fcp, as gcc -O builds them: blocks of 128
 * 32-bit words (512 bytes), each word one scalar access; frd sums and
 * fcp copies each block in ascending order, fwr stores it descending
 * (its chained assignment p[0] = p[1] = ... = p[127] = 1 stores p[127]
 * first).  volatile keeps every access a word and in this order whatever
 * the compiler's flags (no vector or merged stores: -O2 would make them).
 * The columns of LMbench's summary; rd, wr, cp_hand are mmubench's own. */
#define BLOCK	128
#define UP4(op, i)	op(i) op(i + 1) op(i + 2) op(i + 3)
#define UP32(op, i)	UP4(op, i) UP4(op, i + 4) UP4(op, i + 8) UP4(op, i + 12) \
			UP4(op, i + 16) UP4(op, i + 20) UP4(op, i + 24) UP4(op, i + 28)
#define DN4(op, i)	op(i + 3) op(i + 2) op(i + 1) op(i)
#define DN32(op, i)	DN4(op, i + 28) DN4(op, i + 24) DN4(op, i + 20) DN4(op, i + 16) \
			DN4(op, i + 12) DN4(op, i + 8) DN4(op, i + 4) DN4(op, i)
#define SUM(i)	sum += p[i];
#define STORE(i)	p[i] = 1;
#define COPY(i)	d[i] = s[i];

NO_MEMCPY static uint64_t frd(void *arg, uint32_t n)
{
	const struct buf *b = arg;
	uint64_t t0;
	uint32_t sum = 0;

	MARK_BEGIN(MARK_BW_FRD, b->translated);
	t0 = probe_ticks();
	while (n--)
		for (const volatile uint32_t *p = b->src, *e = p + b->bytes / 4; p < e; p += BLOCK) {
			UP32(SUM, 0) UP32(SUM, 32) UP32(SUM, 64) UP32(SUM, 96)
		}
	t0 = probe_ticks() - t0;
	MARK_END(MARK_BW_FRD);
	sink = sum;
	return t0;
}

NO_MEMCPY static uint64_t fwr(void *arg, uint32_t n)
{
	const struct buf *b = arg;
	uint64_t t0;

	MARK_BEGIN(MARK_BW_FWR, b->translated);
	t0 = probe_ticks();
	while (n--)
		for (volatile uint32_t *p = b->dst, *e = p + b->bytes / 4; p < e; p += BLOCK) {
			DN32(STORE, 96) DN32(STORE, 64) DN32(STORE, 32) DN32(STORE, 0)
		}
	t0 = probe_ticks() - t0;
	MARK_END(MARK_BW_FWR);
	return t0;
}

NO_MEMCPY static uint64_t fcp(void *arg, uint32_t n)
{
	const struct buf *b = arg;
	uint64_t t0;

	MARK_BEGIN(MARK_BW_FCP, b->translated);
	t0 = probe_ticks();
	while (n--) {
		const volatile uint32_t *s = b->src, *e = s + b->bytes / 4;
		for (volatile uint32_t *d = b->dst; s < e; s += BLOCK, d += BLOCK) {
			UP32(COPY, 0) UP32(COPY, 32) UP32(COPY, 64) UP32(COPY, 96)
		}
	}
	t0 = probe_ticks() - t0;
	MARK_END(MARK_BW_FCP);
	return t0;
}

static const struct column {
	const char *name;
	uint64_t (*run)(void *arg, uint32_t n);
} columns[] = {
	{ "rd", rd }, { "wr", wr }, { "cp_libc", cp_libc }, { "cp_hand", cp_hand },
	{ "frd", frd }, { "fwr", fwr }, { "fcp", fcp },
};

/* MB/s x100 from ns x100 per pass of `bytes`. */
static int64_t mbs100(size_t bytes, int64_t ns100)
{
	return ns100 > 0 ? (int64_t)(((uint64_t)(bytes >> 10) * 10000000000000ull >> 10) /
				     (uint64_t)ns100) : -1;
}

static int bw_run(struct probe_ctx *ctx)
{
	uint32_t biggest = 0, l1 = probe_cache_bytes(1);
	size_t sizes[2], avail;
	struct buf b;
	char m[48];

	for (int level = 1; level <= 3; level++)
		if (probe_cache_bytes(level) > biggest)
			biggest = probe_cache_bytes(level);
	if (!l1 || !biggest)
		return probe_fail(ctx, "the CPU reports no data cache: no size to call in or beyond it");
	sizes[0] = l1 / 2;
	if (probe_mem_reached()) {		/* memory as measured: well inside its plateau */
		sizes[1] = (size_t)probe_mem_reached() * 4;
		biggest = probe_mem_reached() - 1;
	} else {
		sizes[1] = (size_t)biggest * (ctx->quick ? 2 : 8);	/* quick: just beyond ... */
		if (ctx->quick && sizes[1] > QUICK_MAX)
			sizes[1] = QUICK_MAX;				/* ... within reason */
	}
	probe_mem_reset();
	avail = (probe_mem_avail(4096, 0) - DST_SKEW - 4096) / 2 & ~(size_t)4095;
	if (sizes[1] > avail) {
		probe_diag(ctx, "bw_mem", "beyond-cache size %lu KiB bounded by free RAM to %lu KiB",
			   (unsigned long)sizes[1] >> 10, (unsigned long)avail >> 10);
		sizes[1] = avail;
	}
	sizes[1] &= ~(size_t)(BLOCK * 4 - 1);	/* whole blocks of LMbench's 512 bytes */
	if (sizes[0] < 1024 || sizes[1] < sizes[0])
		return probe_fail(ctx, "free RAM (%lu KiB) holds no two buffers of %lu KiB",
				  (unsigned long)avail >> 10, (unsigned long)sizes[0] >> 10);
	if (sizes[1] <= biggest)
		probe_diag(ctx, "bw_mem", "%s%lu KiB does not go beyond the %lu KiB cache%s: no "
			   "beyond-cache headline", ctx->quick ? "quick: " : "", (unsigned long)sizes[1] >> 10,
			   (unsigned long)biggest >> 10, ctx->quick ? " (run without quick)" :
			   " (free RAM is the limit)");
	/* The destination a page and some lines past the source's end, so that
	 * src[i] and dst[i] share no cache set or TLB set at a power-of-2
	 * distance (QEMU's software TLB too). */
	b.src = (uint32_t *)probe_mem_alloc(sizes[1], 4096, 0, "bw_mem: source");
	b.dst = (uint32_t *)probe_mem_alloc(sizes[1] + DST_SKEW, 4096, 0, "bw_mem: destination");
	if (b.dst)
		b.dst = (uint32_t *)((uintptr_t)b.dst + DST_SKEW);
	if (!b.src || !b.dst)
		return probe_fail(ctx, "no room for two %lu KiB buffers", (unsigned long)sizes[1] >> 10);
	b.translated = mmu_translated(ctx->mode);
	memset(b.src, 0x5a, sizes[1]);
	memset(b.dst, 0, sizes[1]);

	for (int s = 0; s < 2; s++) {
		b.bytes = sizes[s];
		for (unsigned c = 0; c < sizeof(columns) / sizeof(columns[0]); c++) {
			struct probe_time t;
			int64_t v;

			if (probe_measure(columns[c].run, &b, &t) < 0 || t.ns100 <= 0)
				return probe_fail(ctx, "the timer did not move over %s of %lu bytes",
						  columns[c].name, (unsigned long)b.bytes);
			v = mbs100(b.bytes, t.ns100);
			snprintf(m, sizeof(m), "%s_%lu_mbs", columns[c].name, (unsigned long)b.bytes);
			probe_sample(ctx, m, v, 2, "MB/s");
			if (s == 1 && b.bytes > biggest) {	/* beyond the caches: the headline */
				snprintf(m, sizeof(m), "%s_mbs", columns[c].name);
				probe_sample(ctx, m, v, 2, "MB/s");
				snprintf(m, sizeof(m), "%s_mbs_spread", columns[c].name);
				probe_sample(ctx, m, t.spread100, 2, "percent");
			}
		}
	}
	return RESULT_PASS;
}

const struct probe probe_bw_mem = {
	.name = "bw_mem",
	.what = "memory bandwidth, MB/s: read, write, copy (memcpy, hand-unrolled), LMbench's frd, fwr, fcp, in and beyond cache",
	.run = bw_run,
};
