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
#include "sort.h"
#include "arch.h"
#include "args.h"
#include "report.h"
#include "sandbox.h"
#include "../x86/cpuid.h"

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
	{ "ram", "the sandbox's RAM in bytes, K, M or G, a 2 MiB multiple (default: a quarter of "
		 "MemAvailable, at most 2812M)", sandbox_set_ram },
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

/* main()'s first act, before we know which clock arch_ticks() will be:
 * both are read, and arch_calibrate_ticks keeps the one it chooses, so
 * that boot time is one clock's difference. */
static uint64_t entry_tsc, entry_ns;

void sandbox_entry_clocks(struct boot_info *bi)
{
	entry_tsc = __rdtsc();
	entry_ns = raw_ns();
	bi->entry_ticks = entry_ns;
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
		bi->entry_ticks = entry_ns;
		bi->tick_hz = 1000000000u;
		bi->tick_hz_source = "clock_gettime(CLOCK_MONOTONIC_RAW) in ns: the TSC is not "
				     "invariant (CPUID 0x80000007 EDX bit 8 clear)";
		return;
	}
	use_tsc = 1;
	bi->entry_ticks = entry_tsc;
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
	bi->tick_hz = median_u64(hz, 5);
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

/* ---- caches and TLBs: arch/x86/cpuid.c ---- */

static struct x86_cpu_desc info;

static void read_caches(void)
{
	static int done;

	if (!done)
		x86_cpuid_decode(sandbox_cpuid, &info);
	done = 1;
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
	return info.dtlb[X86_TLB_L1][large ? X86_PG_LARGE : X86_PG_4K].entries;
}

/* ---- the banner ---- */

const char *arch_platform(void)
{
	static char where[80];
	const char *hv = x86_hypervisor(sandbox_cpuid);

	if (!hv)
		return "Linux (sandbox) on bare hardware (CPUID: no hypervisor)";
	if (!strcmp(hv, "QEMU TCG"))
		return "Linux (sandbox) under QEMU TCG (emulated: no caches, no cycle timing)";
	snprintf(where, sizeof(where), "Linux (sandbox) under %s", hv);
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
	uint32_t r[4], brand[12] = { 0 };
	struct utsname u;
	char a[32], b[32], c[32], *s = (char *)brand;

	if (uname(&u) == 0)
		report_diag("kernel: %s %s %s (%s)", u.sysname, u.release, u.version, u.machine);
	read_caches();
	for (int i = 0; i < 3 && max_ext >= 0x80000004; i++)
		sandbox_cpuid(0x80000002 + i, 0, &brand[4 * i]);
	s[47] = 0;
	while (*s == ' ')
		s++;
	sandbox_cpuid(1, 0, r);
	report_diag("cpu: %s family %u model %u stepping %u (CPUID 1 EAX %#010lx): %s", info.vendor,
		    info.family, info.model, info.stepping, (unsigned long)r[0],
		    *s ? s : "(no brand string)");
	x86_describe_cpuid(&info);
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
	read_caches();
	x86_report_cpuid(&info, "4k");
}
