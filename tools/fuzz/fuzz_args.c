/*
 * libFuzzer target: the image's boot-argument parser (boot/args.c,
 * boot/args_linux.c) with the real tables: the boot layer's, the run
 * loop's, the MMU core's, every probe's (tests/probe_table.c), and the
 * sandbox's arch arguments and modes.  The rest of the sandbox program is
 * linked in from its BOARD=sandbox objects, its main renamed (Makefile):
 * libFuzzer has the main.  The input is a command line (words split at
 * spaces, as a loader's).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "board.h"
#include "config.h"
#include "mem.h"
#include "sandbox.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int parse_args(int argc, char **argv);

/* The sandbox's RAM size, fixed (not a quarter of this machine's
 * MemAvailable): mem= is judged against it.  Never mapped: parsing only
 * sizes things. */
#define FUZZ_RAM (256u << 20)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	sandbox_ram_bytes = FUZZ_RAM;
	sandbox_ram_source = "fuzz_args";
	/* The parser's messages go to the console, stdout: not wanted here
	 * (libFuzzer and the sanitizers write to stderr). */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

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
	/* As at start: the board's RAM (board_init), the config's defaults. */
	memset(&config, 0, sizeof(config));
	config.reps = 1, config.icount_shift = -1;
	board_init(&boot_info);
	if (parse_args(argc, argv) == 0) {
		/* What the run loop relies on. */
		if (config.nprobes < 1 || config.nprobes > MAX_RUN_PROBES || config.nmodes < 1 ||
		    config.nmodes > MAX_RUN_MODES || config.reps < 1 || config.reps > 1000)
			abort();
		/* mem= left the image's area and 1 MiB of probe memory, never more RAM. */
		if (mem_ram_end() < mem_probe_start() + (1u << 20) || mem_ram_end() > RAM_END ||
		    mem_probe_start() != PROBE_START || boot_info.ram_bytes > FUZZ_RAM ||
		    config.nignored > BOOT_MAX_ARGS)
			abort();
	}
	free(line);
	return 0;
}
