/* What a Linux boot line carries besides our own words: U-Boot's bootargs
 * (a saved environment, a lab's template such as LAVA's base-uboot) are
 * written for a kernel.  Linux's keys are accepted and ignored, each with
 * a diagnostic in the banner; mem= is honoured as Linux does: the RAM the
 * run may use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "mem.h"
#include "report.h"

/* Spelled as Linux's __setup() strings: "key=" takes a value, "key" stands
 * alone; a word of the other form is not Linux's (an unknown argument).
 * The ones U-Boot environments and LAVA's device templates put in bootargs,
 * from Documentation/admin-guide/kernel-parameters.txt; fsck.repair= is
 * systemd's, found in the same lines. */
static const char *const linux_keys[] = {
	"console=", "earlycon", "earlycon=", "earlyprintk", "earlyprintk=",
	"root=", "rootfstype=", "rootwait", "rootdelay=", "rw", "ro", "nfsroot=",
	"ip=", "init=", "initrd=", "noinitrd", "loglevel=", "quiet", "debug",
	"panic=", "mtdparts=", "fsck.repair=", 0
};

int linux_arg(const char *word)
{
	for (int i = 0; linux_keys[i]; i++) {
		size_t n = strlen(linux_keys[i]);
		if (linux_keys[i][n - 1] == '=' ? !strncmp(word, linux_keys[i], n)
						: !strcmp(word, linux_keys[i]))
			return 1;
	}
	return 0;
}

void linux_args_list(void)
{
	console_printf("  (Linux's, accepted and ignored:");
	for (int i = 0; linux_keys[i]; i++)
		console_printf(" %s", linux_keys[i]);
	console_printf(")\n");
}

/* ---- mem= ---- */

static const char *mem_value;		/* as given, for the banner */
static uint64_t board_ram;		/* what board_init found, before mem= */
static uintptr_t board_end;
static const char *board_source;
static char ram_source[64];

/* Linux's memparse(): a number (0x for hex) with K, M or G; -1 if not
 * (include/args.h: the sandbox's ram= reads sizes so too). */
int arg_parse_size(const char *s, uint64_t *out)
{
	unsigned shift = 0;
	char *end;
	uint64_t v;

	if (!s || !*s || *s == '-')		/* no value: "ram" alone */
		return -1;
	v = strtoull(s, &end, 0);
	switch (*end) {
	case 'k': case 'K': shift = 10, end++; break;
	case 'm': case 'M': shift = 20, end++; break;
	case 'g': case 'G': shift = 30, end++; break;
	}
	if (*end || v >> (40 - shift))		/* 1 TiB is beyond every board */
		return -1;
	*out = v << shift;
	return 0;
}

/* mem=SIZE: the run uses only the first SIZE bytes of RAM (on the boards
 * RAM starts at 0: the addresses below SIZE, as Linux's mem= on x86; the
 * 405's one bank from 0 makes it Linux ppc's amount too).  Applied before
 * the MMU core takes its page tables off the top and before any other
 * argument is parsed, so everything sized by RAM sees the limit. */
int linux_set_mem(const char *key, const char *value)
{
	struct boot_info *bi = &boot_info;
	char why[160];
	uint64_t bytes, reported;
	uintptr_t end, need;

	if (!board_source) {			/* a later mem= starts from the board's */
		board_ram = bi->ram_bytes, board_end = mem_ram_end();
		board_source = bi->ram_source;
	}
	if (!value || arg_parse_size(value, &bytes) < 0) {
		arg_error(key, value, "needs a size: bytes, or with a K, M or G suffix (mem=32M)");
		return -1;
	}
	if (!bytes || bytes % 4096) {
		arg_error(key, value, bytes ? "not a whole number of 4 KiB pages" : "no RAM at all");
		return -1;
	}
	/* Where RAM has holes (a PC's map), its end is past its sum. */
	reported = board_end - bi->ram_base > board_ram ? board_end - bi->ram_base : board_ram;
	if (bytes > reported) {
		snprintf(why, sizeof(why), "more than the %llu %s of RAM the board reports (%s)",
			 (unsigned long long)(reported % (1u << 20) ? reported >> 10 : reported >> 20),
			 reported % (1u << 20) ? "KiB" : "MiB", board_source);
		arg_error(key, value, why);
		return -1;
	}
	end = bi->ram_base + bytes < board_end ? bi->ram_base + bytes : board_end;
	need = mem_probe_start() + mmu_arch_pool_bytes(end) + (1u << 20);
	if (end < need) {
		snprintf(why, sizeof(why), "too small: the image's area ends at %#lx, then %lu KiB of "
			 "page tables and 1 MiB of probe memory: at least %lu KiB",
			 (unsigned long)mem_probe_start(), (unsigned long)mmu_arch_pool_bytes(end) >> 10,
			 (unsigned long)(need - bi->ram_base + 1023) >> 10);
		arg_error(key, value, why);
		return -1;
	}
	mem_set_free_ram(mem_probe_start(), end);
	bi->ram_bytes = bytes < board_ram ? bytes : board_ram;
	snprintf(ram_source, sizeof(ram_source), "mem=%s of the board's %llu MiB", value,
		 (unsigned long long)board_ram >> 20);
	bi->ram_source = ram_source;
	mem_value = value;
	return 0;
}

/* The banner's lines: what was ignored, and where mem= put the end. */
void linux_args_report(void)
{
	for (int i = 0; i < config.nignored; i++)
		report_diag("ignored boot argument '%s': Linux's, not mmubench's", config.ignored[i]);
	char source[128];		/* a line holds 200: the sandbox's source is long */

	if (!mem_value)
		return;
	snprintf(source, sizeof(source), "%s", board_source);
	if (strlen(board_source) >= sizeof(source))
		source[sizeof(source) - 2] = '~';	/* cut visibly */
	report_diag("mem=%s: the board reports %llu MiB (%s)", mem_value,
		    (unsigned long long)board_ram >> 20, source);
	report_diag("mem=%s: RAM below %#lx only: probe memory %#lx-%#lx%s%#lx", mem_value,
		    (unsigned long)mem_ram_end(), (unsigned long)mem_probe_start(),
		    (unsigned long)mem_probe_end(), mem_probe_end() < mem_ram_end() ?
		    ", then page tables to " : ", no page tables, end ", (unsigned long)mem_ram_end());
}

/* After the probes: the highest address they were given, against the limit. */
void linux_args_report_end(void)
{
	if (mem_value && mem_probe_high())
		report_diag("mem=%s: the highest address a probe was given %#lx, below %#lx", mem_value,
			    (unsigned long)mem_probe_high() - 1, (unsigned long)mem_probe_end());
	else if (mem_value)
		report_diag("mem=%s: no probe took memory", mem_value);
}
