/* The sandbox's CPU: pinned to one CPU, what CPUID says of the caches and
 * TLBs, and the banner: kernel, CPU, caches, THP, huge pages.  The timer
 * is timer.c's. */
#define _GNU_SOURCE
#include <cpuid.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "arch.h"
#include "args.h"
#include "probe.h"
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

uint32_t sandbox_max_leaf, sandbox_max_ext;	/* CPUID's highest leaves */

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
	sandbox_max_leaf = r[0];
	sandbox_cpuid(0x80000000, 0, r);
	sandbox_max_ext = r[0] >= 0x80000000 && r[0] < 0x80000100 ? r[0] : 0;
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

uint32_t arch_cache_ways(int level)
{
	read_caches();
	return level == 1 ? info.l1d_ways : level == 2 ? info.l2_ways : level == 3 ? info.l3_ways : 0;
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

/* include/probe.h: CPUID's data TLB entries, level 1 or 2, 4K, 2M/4M or
 * 1G pages; 0 unknown. */
uint32_t probe_tlb_entries(int level, uint32_t page)
{
	int kind = page == 4096 ? X86_PG_4K : page == 2u << 20 || page == 4u << 20 ? X86_PG_LARGE :
		   page == 1u << 30 ? X86_PG_1G : -1;

	read_caches();
	return level >= 1 && level <= X86_TLB_LEVELS && kind >= 0 ?
	       info.dtlb[level - 1][kind].entries : 0;
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
	for (int i = 0; i < 3 && sandbox_max_ext >= 0x80000004; i++)
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
	sandbox_load_report();
	if (sandbox_tsc_note[0])
		report_diag("%s", sandbox_tsc_note);
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
