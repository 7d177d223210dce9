/*
 * libFuzzer target: the image's boot-argument parser, boot/args.c, built
 * for the host.  The input is a command line (words split at spaces, as a
 * loader's); the stubs below stand in for the probe table, the MMU modes,
 * the arch's and the board's hooks, with setters built on arg_uint,
 * arg_choice and arg_flag as the real ones are.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "board.h"
#include "config.h"
#include "mem.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

const char arch_name[] = "fuzz";
const int board_has_qemu_exit = 1;
static int can_return;

int arch_can_return(void)
{
	return can_return;
}

const char *arch_crash_unsupported(const char *kind)
{
	return strcmp(kind, "divide") ? 0 : "this arch does not trap on divide";
}

void console_printf(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
}

void report_diag(const char *fmt, ...)
{
	(void)fmt;
}

/* RAM for mem= (boot/args_linux.c): 128 MiB, the image's area below 6 MiB. */
struct boot_info boot_info;
static uintptr_t ram_end, probe_start;

void mem_set_free_ram(uintptr_t start, uintptr_t end)
{
	if (start != probe_start || end > (128u << 20) || end <= start)
		abort();		/* mem= may only lower the board's end (the last one wins) */
	ram_end = end;
}

uintptr_t mem_ram_end(void) { return ram_end; }
uintptr_t mem_probe_start(void) { return probe_start; }
uintptr_t mem_probe_end(void) { return ram_end; }
uintptr_t mem_probe_high(void) { return 0; }
uint32_t mmu_arch_pool_bytes(uintptr_t end) { return ((end >> 22) + 40) * 4096; }

static unsigned long some_number;
static int some_choice, some_flag;

static int set_number(const char *key, const char *value)
{
	return arg_uint(key, value, 1, 1UL << 30, &some_number);
}

static int set_choice(const char *key, const char *value)
{
	static const char *const words[] = { "low", "high", 0 };
	return arg_choice(key, value, words, &some_choice);
}

static int set_flag(const char *key, const char *value)
{
	return arg_flag(key, value, &some_flag);
}

const struct boot_arg run_args[] = { { "watchdog", "ms", set_number }, { 0 } };
const struct boot_arg mmu_args[] = { { "mmu_break", "0|1", set_flag }, { 0 } };
const struct boot_arg arch_args[] = { { "lpsize", "low|high", set_choice },
				      { "pins", "n", set_number }, { 0 } };
static const struct boot_arg probe_args[] = { { "maxsize", "bytes", set_number },
					      { "walk_region", "low|high", set_choice }, { 0 } };

static const struct probe probes[] = {
	{ .name = "boot", .what = "b" }, { .name = "cpu", .what = "c" },
	{ .name = "demand", .what = "d", .args = probe_args },
	{ .name = "tlb", .what = "t" }, { .name = "lat_mem", .what = "l", .args = probe_args },
};
const struct probe *const probe_table[] = { &probes[0], &probes[1], &probes[2], &probes[3],
					     &probes[4] };
const int probe_count = 5;

static const struct mmu_mode modes[] = { { "real", "r", 0, 0 }, { "normal", "n", 0, 0 },
					 { "pinned", "p", 0, 0 }, { "largepte", "l", 0, 0 } };
const struct mmu_mode *const mmu_modes[] = { &modes[0], &modes[1], &modes[2], &modes[3], 0 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1), *argv[64];
	int argc = 0;

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = 0;
	argv[argc++] = "mmubench";
	for (char *w = strtok(line, " "); w && argc < 64; w = strtok(0, " "))
		argv[argc++] = w;
	memset(&config, 0, sizeof(config));
	config.reps = 1, config.icount_shift = -1;
	can_return = size & 1;
	boot_info.ram_bytes = 128u << 20, boot_info.ram_source = "fuzz";
	ram_end = 128u << 20, probe_start = 6u << 20;
	if (parse_args(argc, argv) == 0) {
		/* What the run loop relies on. */
		if (config.nprobes < 1 || config.nprobes > MAX_RUN_PROBES || config.nmodes < 1 ||
		    config.nmodes > MAX_RUN_MODES || config.reps < 1 || config.reps > 1000)
			abort();
		/* mem= left the image's area and 1 MiB of probe memory, never more RAM. */
		if (ram_end < probe_start + (1u << 20) || boot_info.ram_bytes > (128u << 20) ||
		    config.nignored > BOOT_MAX_ARGS)
			abort();
	}
	free(line);
	return 0;
}
