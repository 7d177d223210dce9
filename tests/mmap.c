/* Probe `mmap`: a mapping made, used and broken down, the shape of
 * LMbench's lat_mmap (mmap, stores, munmap; its summary's "Mmap Latency").
 *
 * On bare metal a process maps mmap_kb= of fresh pages (proc_mmap), runs
 * and writes one word in every page, and unmaps them (proc_munmap).
 * mmap_us per iteration; one iteration's faults and TLB misses where
 * counted.  Under an OS (probe_os(): the sandbox) a file of mmap_kb in the
 * page cache mapped shared read-write, every page written once, unmapped;
 * one mapping's minor faults as the OS counts them.  LMbench 2's lat_mmap
 * writes one byte every 16 KiB of the first tenth; here every page is
 * written, so that each page's mapping is used (doc/mmureport.md).
 *
 * lat_mmap by LMbench 2.0's method, on bare metal: a RAM file (include/
 * proc.h) mapped shared read-write, lazily, a word written every 16 KiB
 * over its first tenth (each write a fault that maps the file's page),
 * unmapped; less the same process run with nothing mapped.  Sizes: those
 * of LMbench's sweep (its 320 KiB minimum up) that a process's mmap part
 * holds, lat_mmap_<kb>k_us; the largest of them also as lat_mmap_us, with
 * one such mapping's faults and TLB misses (lat_mmap_*).  LMbench's summary
 * takes the sweep's largest size, 8 MiB by default: more than the window. */
#include <stdio.h>
#include "probe.h"
#include "proc.h"
#include "mark.h"

#define PAGE		4096u
#define DEFAULT_KB	1024

static unsigned long mmap_kb = DEFAULT_KB;

static int set_mmap_kb(const char *key, const char *value)
{
	return arg_uint(key, value, 4, 2040, &mmap_kb);
}

struct mapper {
	struct proc *p;
	int failed;
};

static int map_once(struct mapper *m)
{
	uint32_t bytes = mmap_kb << 10;
	uintptr_t at = proc_mmap(m->p, bytes);

	if (!at)
		return -1;
	struct proc_job job = { .rounds = 1, .touch_base = at, .touch_pages = bytes / PAGE,
				.write = 1 };
	int r = proc_run(m->p, &job);
	return proc_munmap(m->p, at, bytes) < 0 ? -1 : r;
}

static uint64_t maps_run(void *arg, uint32_t n)
{
	struct mapper *m = arg;
	uint64_t t0 = probe_ticks();

	for (uint32_t i = 0; i < n && !m->failed; i++)
		if (map_once(m) < 0)
			m->failed = 1;
	return probe_ticks() - t0;
}

#define LAT_STRIDE	(16u << 10)

static const uint32_t lat_kb[] = { 512, 1024, 2048, 4096, 8192 };	/* LMbench's, from 320 KiB */

struct lat {
	struct proc *p;
	struct proc_file *file;
	uint32_t bytes;
	int failed, marked;		/* marked: the largest size, the seed's column (mark.h) */
};

/* One lat_mmap: mapped, a write every 16 KiB of the first tenth, unmapped. */
static int lat_once(struct lat *l)
{
	uintptr_t at = proc_mmap_file(l->p, l->file, l->bytes, 1);
	struct proc_job job = { .rounds = 1, .touch_base = at, .write = 1, .stride = LAT_STRIDE,
				.touch_pages = (l->bytes / 10 + LAT_STRIDE - 1) / LAT_STRIDE };

	if (!at)
		return -1;
	int r = proc_run(l->p, &job);
	return proc_munmap(l->p, at, l->bytes) < 0 ? -1 : r;
}

static uint64_t lat_run(void *arg, uint32_t n)
{
	struct lat *l = arg;
	struct proc_job none = { 0 };
	uint64_t with = 0, without = 0, t0;

	for (uint32_t i = 0; i < n && !l->failed; i++) {
		if (l->marked)		/* the markers outside the timed span */
			MARK_BEGIN(MARK_LAT_MMAP, 1);
		t0 = probe_ticks();
		l->failed |= lat_once(l) < 0;
		with += probe_ticks() - t0;
		if (l->marked)
			MARK_END(MARK_LAT_MMAP);
		t0 = probe_ticks();
		l->failed |= proc_run(l->p, &none) < 0;	/* the process's way in and out */
		without += probe_ticks() - t0;
	}
	return with > without ? with - without : 0;
}

/* One lat_mmap's counts in the steady state of lat_run's loop (each
 * followed by the empty run): after LAT_WARM, the mean of LAT_COUNTED, to
 * the nearest.  One of them alone read what earlier probes left in the
 * TLB (405 normal, 8 MiB: 17 or 24 kernel DTLB misses by the probes run
 * before), as the rings' did (proc_common.c). */
#define LAT_WARM	32
#define LAT_COUNTED	64

static int lat_counts(struct probe_ctx *ctx, struct lat *l)
{
	struct mmu_counters a, b, sum = { 0 }, zero = { 0 };
	uint32_t *ps = (uint32_t *)&sum, *pa = (uint32_t *)&a, *pb = (uint32_t *)&b;
	struct proc_job none = { 0 };

	lat_run(l, LAT_WARM);
	for (uint32_t i = 0; i < LAT_COUNTED && !l->failed; i++) {
		a = mmu_count;
		l->failed |= lat_once(l) < 0;
		b = mmu_count;
		for (unsigned f = 0; f < sizeof(sum) / sizeof(uint32_t); f++)
			ps[f] += pb[f] - pa[f];
		l->failed |= proc_run(l->p, &none) < 0;
	}
	for (unsigned f = 0; f < sizeof(sum) / sizeof(uint32_t); f++)
		ps[f] = (ps[f] + LAT_COUNTED / 2) / LAT_COUNTED;
	if (!l->failed)
		probe_sample_op_counts(ctx, "lat_mmap", &zero, &sum);
	for (unsigned i = 0; i < 16; i++)	/* where they lie, for selftest */
		if (proc_table_n(l->p, i))
			probe_diag(ctx, "mmap", "lat_mmap: the process's window table %u at %#lx", i,
				   (unsigned long)proc_table_n(l->p, i));
	return l->failed ? -1 : 0;
}

/* The sweep; the largest size that fits, counted and as lat_mmap_us. */
static int lat_mmap(struct probe_ctx *ctx)
{
	struct lat l = { 0 };
	struct probe_time t;
	char name[24];
	int err = 0;
	size_t n = 0;

	if (!mmu_translated(ctx->mode)) {	/* the file's own pages: nothing maps or faults */
		probe_diag(ctx, "mmap", "lat_mmap absent: mode %s has no translation", ctx->mode_name);
		return RESULT_PASS;
	}
	while (n < sizeof(lat_kb) / sizeof(lat_kb[0]) && lat_kb[n] << 10 <= proc_mmap_room() &&
	       lat_kb[n] << 10 <= proc_file_room())
		n++;
	l.p = n ? proc_create(1) : 0;
	l.file = l.p ? proc_file_create(lat_kb[n - 1] << 10) : 0;
	err = !l.file;
	for (size_t i = 0; i < n && !err; i++) {
		l.bytes = lat_kb[i] << 10;
		l.marked = i == n - 1;		/* translated: lat_mmap runs in those alone */
		err = lat_once(&l) < 0 || probe_measure(lat_run, &l, &t) < 0 || l.failed;
		snprintf(name, sizeof(name), "lat_mmap_%luk", (unsigned long)lat_kb[i]);
		if (!err)
			probe_sample_us(ctx, "mmap", name, &t);
	}
	if (!err) {
		probe_sample_us(ctx, "mmap", "lat_mmap", &t);
		err = lat_counts(ctx, &l) < 0;
		probe_diag(ctx, "mmap", "lat_mmap: %lu KiB, the largest of LMbench's sizes a process's "
			   "mapping (%lu KiB at most) and the RAM file (%lu KiB) take; its summary's is "
			   "8 MiB", (unsigned long)l.bytes >> 10, (unsigned long)proc_mmap_room() >> 10,
			   (unsigned long)proc_file_room() >> 10);
	}
	proc_destroy(l.p);
	proc_file_destroy(l.file);
	return err ? probe_fail(ctx, "lat_mmap: a file could not be mapped, written and unmapped "
				"(or no time)") : RESULT_PASS;
}

static int os_mmap(struct probe_ctx *ctx, const struct probe_os *os)
{
	struct probe_time t;
	uint64_t faults = 0;
	char why[96] = "";

	if (os->mmap_file(mmap_kb << 10, &t, &faults, why, sizeof(why)) != 0)
		return probe_fail(ctx, "%s", why);
	probe_sample_us(ctx, "mmap", "mmap", &t);
	probe_sample(ctx, "mmap_minflt", faults, 0, "count");
	return RESULT_PASS;
}

static int mmap_run(struct probe_ctx *ctx)
{
	const struct probe_os *os = probe_os();
	struct mapper m = { 0 };
	struct probe_time t;
	const char *why;

	if (os && os->mmap_file)
		return os_mmap(ctx, os);
	if ((why = proc_unavailable()))
		return probe_skip(ctx, "%s", why);
	m.p = proc_create(1);			/* its one data page: the job */
	if (!m.p)
		return probe_fail(ctx, "no process");
	int err = map_once(&m) < 0;		/* warm */
	struct mmu_counters a = mmu_count, b;
	err = err || map_once(&m) < 0;		/* the one counted */
	b = mmu_count;
	err = err || probe_measure(maps_run, &m, &t) < 0 || m.failed;
	proc_destroy(m.p);
	if (err)
		return probe_fail(ctx, "a mapping of %lu KiB could not be made, used and unmapped "
				  "(or no time)", mmap_kb);
	probe_diag(ctx, "mmap", "%lu KiB mapped, every page written, unmapped", mmap_kb);
	probe_sample_us(ctx, "mmap", "mmap", &t);
	probe_sample_op_counts(ctx, "mmap", &a, &b);
	return lat_mmap(ctx);
}

const struct probe probe_mmap = {
	.name = "mmap",
	.what = "a mapping of mmap_kb made, every page written, unmapped; and LMbench 2.0's "
		"lat_mmap: a file mapped shared, a write every 16 KiB of its first tenth, unmapped; "
		"under an OS, a file's every page written",
	.run = mmap_run,
	.args = (const struct boot_arg[]){
		{ "mmap_kb", "4..2040 KiB the mmap probe maps (default 1024; below 2 MiB: a process's "
		  "window holds its mappings in 2 MiB)", set_mmap_kb },
		{ 0 } },
};
