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
 * written, so that each page's mapping is used (doc/mmureport.md). */
#include "probe.h"
#include "proc.h"

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
	return RESULT_PASS;
}

const struct probe probe_mmap = {
	.name = "mmap",
	.what = "a mapping of mmap_kb made, every page written, unmapped (LMbench's lat_mmap); "
		"under an OS, of a file",
	.run = mmap_run,
	.args = (const struct boot_arg[]){
		{ "mmap_kb", "4..2040 KiB the mmap probe maps (default 1024; below 2 MiB: a process's "
		  "window holds its mappings in 2 MiB)", set_mmap_kb },
		{ 0 } },
};
