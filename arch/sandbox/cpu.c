/* The sandbox's CPU: pinned to one CPU, the TSC as the timer where it is
 * invariant (else clock_gettime), what CPUID says of the caches and TLBs,
 * and the banner: kernel, CPU, caches, THP, huge pages. */
#define _GNU_SOURCE
#include <cpuid.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <x86intrin.h>
#include "arch.h"
#include "args.h"
#include "report.h"
#include "sandbox.h"

const char arch_name[] = "sandbox";

void arch_init(struct boot_info *bi)
{
	(void)bi;
	sandbox_cpu_init();
	sandbox_faults_init();
}

void sandbox_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

static uint32_t max_leaf, max_ext;

/* ---- one CPU ---- */

static int pinned = -1, allowed;
static const char *pin_error;

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return -1;
	pinned = cpu;
	return 0;
}

int sandbox_cpu(void)
{
	return pinned;
}

/* The CPU we started on, among those we may use (the cpu= argument may
 * choose another before anything is measured). */
void sandbox_cpu_init(void)
{
	cpu_set_t set;
	uint32_t r[4];

	sandbox_cpuid(0, 0, r);
	max_leaf = r[0];
	sandbox_cpuid(0x80000000, 0, r);
	max_ext = r[0] >= 0x80000000 && r[0] < 0x80000100 ? r[0] : 0;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		allowed = CPU_COUNT(&set);
	int cpu = sched_getcpu();
	if (cpu < 0 || pin(cpu) < 0)
		pin_error = "sched_setaffinity failed: the scheduler may move us";
}

static unsigned long opt_cpu;

static int set_cpu(const char *key, const char *value)
{
	if (arg_uint(key, value, 0, CPU_SETSIZE - 1, &opt_cpu) < 0)
		return -1;
	if (pin((int)opt_cpu) < 0) {
		arg_error(key, value, "a CPU this process may run on (sched_setaffinity refused it)");
		return -1;
	}
	return 0;
}

const struct boot_arg arch_args[] = {
	{ "cpu", "the CPU to pin to (default: the one the program started on)", set_cpu },
	{ 0 }
};

/* ---- the timer ---- */

static int use_tsc;
static char tsc_note[160];

uint64_t arch_ticks(void)
{
	struct timespec ts;

	if (use_tsc)
		return __rdtsc();
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static uint64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The TSC where CPUID says it is invariant (0x80000007 EDX bit 8: the same
 * rate in every P- and C-state); its rate from CPUID 0x15 where that gives
 * the crystal, else measured against CLOCK_MONOTONIC_RAW (5 x 20 ms, the
 * median).  Otherwise clock_gettime itself, in ns. */
void arch_calibrate_ticks(struct boot_info *bi, int icount_shift)
{
	static char source[200];
	uint32_t r[4] = { 0 };

	(void)icount_shift;
	if (max_ext >= 0x80000007)
		sandbox_cpuid(0x80000007, 0, r);
	if (!(r[3] & (1u << 8))) {
		use_tsc = 0;
		bi->tick_hz = 1000000000u;
		bi->tick_hz_source = "clock_gettime(CLOCK_MONOTONIC_RAW) in ns: the TSC is not "
				     "invariant (CPUID 0x80000007 EDX bit 8 clear)";
		return;
	}
	use_tsc = 1;
	if (max_leaf >= 0x15) {
		sandbox_cpuid(0x15, 0, r);
		if (r[0] && r[1] && r[2]) {
			bi->tick_hz = (uint64_t)r[2] * r[1] / r[0];
			snprintf(source, sizeof(source), "invariant TSC; CPUID 0x15: crystal %lu Hz x "
				 "%lu/%lu", (unsigned long)r[2], (unsigned long)r[1], (unsigned long)r[0]);
			bi->tick_hz_source = source;
			return;
		}
	}
	uint64_t hz[5];
	for (int i = 0; i < 5; i++) {
		uint64_t n0 = raw_ns(), t0 = __rdtsc(), n1, t1;
		do
			n1 = raw_ns();
		while (n1 - n0 < 20000000u);
		t1 = __rdtsc();
		hz[i] = (t1 - t0) * 1000000000u / (n1 - n0);
	}
	qsort(hz, 5, sizeof(hz[0]), cmp_u64);
	bi->tick_hz = hz[2];
	snprintf(source, sizeof(source), "invariant TSC (CPUID 0x80000007 EDX bit 8), measured "
		 "against CLOCK_MONOTONIC_RAW: median of 5 x 20 ms, spread %llu Hz",
		 (unsigned long long)(hz[4] - hz[0]));
	bi->tick_hz_source = source;
	if (max_leaf >= 0x16) {
		sandbox_cpuid(0x16, 0, r);
		if (r[0] & 0xffff)
			snprintf(tsc_note, sizeof(tsc_note), "tsc cross-check: CPUID 0x16 base %lu MHz",
				 (unsigned long)(r[0] & 0xffff));
	}
}

/* ---- caches and TLBs ---- */

static struct {
	uint32_t l1d, l2, l3, line;		/* bytes */
	uint32_t dtlb, dtlb_2m, stlb, stlb_2m;	/* entries */
	const char *cache_src, *tlb_src;
	int done;
} info;

/* Leaf 4 (Intel) and 0x8000001D (AMD, with TOPOEXT) have one layout. */
static int deterministic(uint32_t leaf)
{
	uint32_t r[4];
	int found = 0;

	for (uint32_t sub = 0; sub < 16; sub++) {
		sandbox_cpuid(leaf, sub, r);
		unsigned type = r[0] & 0x1f, level = (r[0] >> 5) & 7;
		if (!type)
			break;
		uint32_t bytes = ((r[1] >> 22) + 1) * (((r[1] >> 12) & 0x3ff) + 1) *
				 ((r[1] & 0xfff) + 1) * (r[2] + 1);
		found++;
		if (level == 1 && type == 1)
			info.l1d = bytes, info.line = (r[1] & 0xfff) + 1;
		else if (level == 2)
			info.l2 = bytes;
		else if (level == 3)
			info.l3 = bytes;
	}
	return found;
}

static void read_caches(void)
{
	uint32_t r[4], v[4];
	int amd;

	if (info.done)
		return;
	info.done = 1;
	sandbox_cpuid(0, 0, v);
	amd = v[1] == 0x68747541 || v[1] == 0x6f677948;		/* "Auth", "Hygo" */
	sandbox_cpuid(0x80000001, 0, r);
	if (amd && (r[2] & (1u << 22)) && max_ext >= 0x8000001d && deterministic(0x8000001d))
		info.cache_src = "CPUID 0x8000001D";
	else if (!amd && max_leaf >= 4 && deterministic(4))
		info.cache_src = "CPUID 4";
	if (amd && max_ext >= 0x80000006) {
		sandbox_cpuid(0x80000005, 0, r);
		info.dtlb = (r[1] >> 16) & 0xff, info.dtlb_2m = (r[0] >> 16) & 0xff;
		if (!info.cache_src) {
			info.l1d = (r[2] >> 24) << 10, info.line = r[2] & 0xff;
			sandbox_cpuid(0x80000006, 0, r);
			info.l2 = (r[2] >> 16) << 10, info.l3 = (r[3] >> 18) * (512u << 10);
			info.cache_src = "CPUID 0x80000005/6";
		}
		sandbox_cpuid(0x80000006, 0, r);
		info.stlb = (r[1] >> 16) & 0xfff, info.stlb_2m = (r[0] >> 16) & 0xfff;
		info.tlb_src = "CPUID 0x80000005/6";
	}
}

uint32_t arch_cache_bytes(int level)
{
	read_caches();
	return level == 1 ? info.l1d : level == 2 ? info.l2 : level == 3 ? info.l3 : 0;
}

uint32_t arch_cache_line(void)
{
	read_caches();
	return info.line;
}

/* The first-level data TLB's entries for 4K or 2M pages, 0 unknown. */
unsigned sandbox_dtlb_entries(int large)
{
	read_caches();
	return large ? info.dtlb_2m : info.dtlb;
}

/* ---- the banner ---- */

const char *arch_platform(void)
{
	static char where[80];
	uint32_t r[4];
	char sig[13];

	sandbox_cpuid(1, 0, r);
	if (!(r[2] & (1u << 31)))
		return "Linux (sandbox) on bare hardware (CPUID: no hypervisor)";
	sandbox_cpuid(0x40000000, 0, r);
	memcpy(sig, &r[1], 4), memcpy(sig + 4, &r[2], 4), memcpy(sig + 8, &r[3], 4);
	sig[12] = 0;
	if (!strcmp(sig, "TCGTCGTCGTCG"))
		return "Linux (sandbox) under QEMU TCG (emulated: no caches, no cycle timing)";
	snprintf(where, sizeof(where), "Linux (sandbox) under %s",
		 !strcmp(sig, "KVMKVMKVM") ? "KVM" : sig);
	return where;
}

/* The bracketed word of a /sys/kernel/mm/transparent_hugepage file. */
const char *sandbox_thp_setting(char *buf, int size, const char *file)
{
	char path[96], line[128], *a, *b;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/%s", file);
	if (!(f = fopen(path, "r")))
		return 0;
	a = fgets(line, sizeof(line), f) ? strchr(line, '[') : 0;
	fclose(f);
	if (!a || !(b = strchr(a, ']')))
		return 0;
	*b = 0;
	snprintf(buf, size, "%s", a + 1);
	return buf;
}

static long meminfo(const char *key)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':')
			v = atol(line + strlen(key) + 1);
	if (f)
		fclose(f);
	return v;
}

long sandbox_meminfo(const char *key)
{
	return meminfo(key);
}

void arch_describe_cpu(void)
{
	uint32_t r[4], v[4], brand[12];
	char vendor[13];
	struct utsname u;
	char a[32], b[32], c[32];

	if (uname(&u) == 0)
		report_diag("kernel: %s %s %s (%s)", u.sysname, u.release, u.version, u.machine);
	if (max_ext >= 0x80000004) {
		for (int i = 0; i < 3; i++)
			sandbox_cpuid(0x80000002 + i, 0, &brand[4 * i]);
		char *s = (char *)brand;
		s[47] = 0;
		while (*s == ' ')
			s++;
		sandbox_cpuid(1, 0, r);
		unsigned family = (r[0] >> 8) & 0xf, model = (r[0] >> 4) & 0xf;
		if (family == 0xf)
			family += (r[0] >> 20) & 0xff;
		if (family >= 6)
			model |= ((r[0] >> 16) & 0xf) << 4;
		sandbox_cpuid(0, 0, v);
		memcpy(vendor, &v[1], 4), memcpy(vendor + 4, &v[3], 4), memcpy(vendor + 8, &v[2], 4);
		vendor[12] = 0;
		report_diag("cpu: %s family %u model %u stepping %u (CPUID 1 EAX %#010lx): %s",
			    vendor, family, model, r[0] & 0xf, (unsigned long)r[0], s);
	}
	read_caches();
	report_diag("cpu caches (%s): L1d %lu KiB, L2 %lu KiB, L3 %lu KiB, line %lu B",
		    info.cache_src ? info.cache_src : "not reported by CPUID",
		    (unsigned long)info.l1d >> 10, (unsigned long)info.l2 >> 10,
		    (unsigned long)info.l3 >> 10, (unsigned long)info.line);
	if (info.tlb_src)
		report_diag("cpu TLBs (%s): L1 dTLB %lu (4K) %lu (2M), L2 TLB %lu (4K) %lu (2M) "
			    "entries", info.tlb_src, (unsigned long)info.dtlb,
			    (unsigned long)info.dtlb_2m, (unsigned long)info.stlb,
			    (unsigned long)info.stlb_2m);
	else
		report_diag("cpu TLBs: not decoded here (AMD's CPUID 0x80000005/6 only): the tlb "
			    "probe sweeps without a size to expect");
	if (pinned >= 0)
		report_diag("cpu: pinned to CPU %d of %d allowed (sched_setaffinity)", pinned, allowed);
	else
		report_diag("cpu: not pinned: %s", pin_error);
	if (tsc_note[0])
		report_diag("%s", tsc_note);
	if (sandbox_thp_setting(a, sizeof(a), "enabled"))
		report_diag("thp: enabled %s, defrag %s, shmem %s (/sys/kernel/mm/transparent_hugepage)",
			    a, sandbox_thp_setting(b, sizeof(b), "defrag") ? b : "?",
			    sandbox_thp_setting(c, sizeof(c), "shmem_enabled") ? c : "?");
	else
		report_diag("thp: none (no /sys/kernel/mm/transparent_hugepage/enabled)");
	report_diag("hugetlb: %ld free of %ld huge pages of %ld KiB (/proc/meminfo)",
		    meminfo("HugePages_Free"), meminfo("HugePages_Total"), meminfo("Hugepagesize"));
}

/* CPUID's figures, as cpuid.flat.* on pc: here cpuid.4k.* (the first mode). */
void arch_report_measurements(void)
{
	const struct { const char *name; uint32_t v; const char *unit; } m[] = {
		{ "l1d_bytes", info.l1d, "bytes" }, { "l2_bytes", info.l2, "bytes" },
		{ "l3_bytes", info.l3, "bytes" }, { "line_bytes", info.line, "bytes" },
		{ "dtlb_entries", info.dtlb, "count" }, { "dtlb_large_entries", info.dtlb_2m, "count" },
		{ "stlb_entries", info.stlb, "count" },
	};
	read_caches();
	for (unsigned i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (m[i].v)
			report_measurement("cpuid", "4k", m[i].name, m[i].v, 0, m[i].unit);
}
