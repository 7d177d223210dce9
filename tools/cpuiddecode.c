/* cpuiddecode: the image's CPUID decoder (arch/x86/cpuid*.c) on the host,
 * for the tests (selftest/test_cpuid.py) and for a look at a machine.
 *
 *   cpuiddecode FILE     decode recorded registers: lines
 *                        "CPUID 8000001D: EAX-EBX-ECX-EDX [SL 02] ..." (hex;
 *                        without [SL nn], repeated lines of one leaf are
 *                        sub-leaves 0, 1, ...); '#' lines are comments
 *   cpuiddecode --live   decode this CPU
 *   cpuiddecode --dump   print this CPU's leaves in FILE's format
 *
 * Prints what the image prints: the banner lines and the cpuid.dump.*
 * measurements.  A leaf not recorded reads as zeros. */
#include <cpuid.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../arch/x86/cpuid.h"
#include "report.h"

#define MAX_REGS 512
static struct { uint32_t leaf, sub, r[4]; } regs[MAX_REGS];
static int nregs;

void report_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

void report_measurement(const char *probe, const char *mode, const char *metric,
			int64_t value, int decimals, const char *unit)
{
	(void)decimals;
	printf("# measurement %s.%s.%s %lld %s\n", probe, mode, metric, (long long)value, unit);
}

static void recorded(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	for (int i = 0; i < nregs; i++)
		if (regs[i].leaf == leaf && regs[i].sub == sub) {
			memcpy(r, regs[i].r, 16);
			return;
		}
	memset(r, 0, 16);
}

static void live(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

static int load(const char *path)
{
	char line[256];
	FILE *f = fopen(path, "r");
	int lineno = 0;

	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned leaf, sub = ~0u, r[4];
		const char *sl;
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "CPUID %x: %x-%x-%x-%x", &leaf, &r[0], &r[1], &r[2], &r[3]) != 5 ||
		    nregs == MAX_REGS) {
			fprintf(stderr, "%s:%d: not a CPUID line (or too many): %s", path, lineno, line);
			fclose(f);
			return -1;
		}
		if ((sl = strstr(line, "[SL ")) && sscanf(sl, "[SL %x]", &sub) != 1)
			sub = ~0u;
		if (sub == ~0u) {		/* the next sub-leaf of this leaf */
			sub = 0;
			for (int i = 0; i < nregs; i++)
				sub += regs[i].leaf == leaf;
		}
		regs[nregs].leaf = leaf, regs[nregs].sub = sub;
		memcpy(regs[nregs].r, r, 16);
		nregs++;
	}
	fclose(f);
	return 0;
}

static void dump(void)
{
	static const uint32_t subleaved[] = { 4, 0x18, 0x8000001d };
	uint32_t r[4], max, ext;

	live(0, 0, r);
	max = r[0];
	live(0x80000000, 0, r);
	ext = r[0] >= 0x80000000 && r[0] < 0x80000100 ? r[0] : 0x80000000;
	for (int half = 0; half < 2; half++) {
		uint32_t base = half ? 0x80000000 : 0, last = half ? ext : max;
		for (uint32_t leaf = base; leaf <= last && leaf - base <= 0x40; leaf++) {
			int sub_of = 0;
			for (unsigned k = 0; k < 3; k++)
				sub_of |= subleaved[k] == leaf;
			for (uint32_t sub = 0; sub < (sub_of ? 32u : 1u); sub++) {
				live(leaf, sub, r);
				if (sub && !(r[0] | r[1] | r[2] | r[3]))
					break;
				printf("CPUID %08X: %08X-%08X-%08X-%08X", leaf, r[0], r[1], r[2], r[3]);
				printf(sub_of ? " [SL %02X]\n" : "\n", sub);
			}
		}
	}
	live(1, 0, r);
	if (r[2] & (1u << 31)) {		/* a hypervisor's signature */
		live(0x40000000, 0, r);
		printf("CPUID 40000000: %08X-%08X-%08X-%08X\n", r[0], r[1], r[2], r[3]);
	}
}

int main(int argc, char **argv)
{
	struct x86_cpu_desc d;
	x86_cpuid_fn fn = recorded;
	const char *hv;

	int help = argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
	/* An option it does not know, not a file of that name (./-x reads one). */
	int unknown = argc == 2 && !help && argv[1][0] == '-' && argv[1][1] &&
		      strcmp(argv[1], "--live") && strcmp(argv[1], "--dump");

	if (unknown)
		fprintf(stderr, "cpuiddecode: unknown option '%s'\n", argv[1]);
	if (help || unknown || argc != 2) {
		fprintf(help ? stdout : stderr, "usage: cpuiddecode FILE | --live | --dump\n");
		return help ? 0 : 2;
	}
	if (!strcmp(argv[1], "--dump")) {
		dump();
		return 0;
	}
	if (!strcmp(argv[1], "--live"))
		fn = live;
	else if (load(argv[1]) < 0)
		return 2;
	x86_cpuid_decode(fn, &d);
	hv = x86_hypervisor(fn);
	printf("# cpu: %s family %#x model %#x stepping %u\n", d.vendor, d.family, d.model,
	       d.stepping);
	printf("# platform: %s\n", hv ? hv : "bare hardware (CPUID: no hypervisor)");
	x86_describe_cpuid(&d);
	x86_report_cpuid(&d, "dump");
	return 0;
}
