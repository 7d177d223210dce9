/* From the arch's entry to mmubench_main(argc, argv) (not main: the sandbox is a
 * Linux program whose C library calls its own main), and the run itself: banner,
 * the probes in every mode, the summary, the exit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch.h"
#include "board.h"
#include "config.h"
#include "report.h"
#include "main.h"
#include "mmu_core.h"
#include "run.h"
#include "timing.h"
#include "version.h"
#include "watchdog.h"

struct boot_info boot_info;

int mmubench_main(int argc, char **argv);

/* Split a command line in place into argv; argv[0] is our own name, or the
 * line's first word where the loader put the image's path there. */
static int split_cmdline(char *line, char **argv, int has_argv0)
{
	static char self[] = "mmubench";
	int argc = 0;

	if (!has_argv0)
		argv[argc++] = self;
	for (char *p = line; *p;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			*p++ = 0;
		if (!*p)
			break;
		if (argc == BOOT_MAX_ARGS) {
			console_printf("mmubench: error: more than %d boot arguments\n", BOOT_MAX_ARGS - 1);
			return -1;
		}
		argv[argc++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
	}
	return argc;
}

/* Called by the arch's entry code on our own stack, BSS cleared. */
void boot_main(void)
{
	static char line[512];
	static char *argv[BOOT_MAX_ARGS + 1];
	struct boot_info *bi = &boot_info;
	int argc = bi->argc;

	boot_paint_stack();
	board_console_init(bi);
	console_printf("\n");		/* the firmware may have left a line open */
	arch_init(bi);
	board_init(bi);
	if (bi->cmdline) {
		if (strlen(bi->cmdline) >= sizeof(line)) {
			console_printf("mmubench: error: command line longer than %d bytes\n",
				       (int)sizeof(line) - 1);
			argc = -1;
		} else {
			strcpy(line, bi->cmdline);
			argc = split_cmdline(line, argv, bi->cmdline_has_argv0);
		}
	} else {
		if (argc > BOOT_MAX_ARGS) {
			console_printf("mmubench: error: more than %d boot arguments\n", BOOT_MAX_ARGS - 1);
			argc = -1;
		} else {
			memcpy(argv, bi->argv, argc * sizeof(char *));
		}
	}
	exit(argc < 0 ? report_abort("bad boot arguments") : mmubench_main(argc, argv));
}

static void banner(void)
{
	struct boot_info *bi = &boot_info;

	report_diag("mmubench %s on %s (%s), entered by %s", MMUBENCH_VERSION, board_name,
		    arch_name, bi->entry_name);
	arch_describe_cpu();
	if (bi->cpu_hz)
		report_diag("cpu clock: %lu Hz (%s)", (unsigned long)bi->cpu_hz, bi->cpu_hz_source);
	else
		report_diag("cpu clock: unknown (%s)", bi->cpu_hz_source);
	if (bi->tick_hz)
		report_diag("tick clock: %lu Hz (%s)", (unsigned long)bi->tick_hz, bi->tick_hz_source);
	else
		report_diag("tick clock: unknown (%s)", bi->tick_hz_source);
	report_diag("core clock: %lu Hz (measured: dependent adds against the tick clock)",
		    (unsigned long)bi->core_hz);
	report_diag("platform: %s", bi->platform);
	report_diag("timing: %s", bi->timing);
	report_diag("ram: %llu MiB (%s)", (unsigned long long)(bi->ram_bytes >> 20), bi->ram_source);
	report_diag("image: %#lx-%#lx, heap %#lx-%#lx, stack %#lx-%#lx",
		    (unsigned long)__image_start, (unsigned long)__image_end,
		    (unsigned long)__heap_start, (unsigned long)__heap_end,
		    (unsigned long)__stack_bottom, (unsigned long)__stack_top);
	const char *exit_how = config.exit == EXIT_QEMU ? "qemu" :
			       config.exit == EXIT_RETURN ? "return" : "halt";
	if (config.crash)
		report_diag("run: crash=%s only (no probes), exit=%s", config.crash, exit_how);
	else
		report_diag("run: %d probe(s) x %d mode(s), reps=%d%s, exit=%s, watchdog %lu ms",
			    config.nprobes, config.nmodes, config.reps, config.quick ? ", quick" : "",
			    exit_how, (unsigned long)watchdog_scaled_ms(WATCHDOG_DEFAULT_MS));
	linux_args_report();
}

int mmubench_main(int argc, char **argv)
{
	int args = parse_args(argc, argv);

	if (args < 0)
		return report_abort("bad boot arguments");
	if (args > 0)
		return 0;			/* --help: the usage only */
	mmu_init();			/* after mem=: the page tables off the top of what it leaves */

	arch_calibrate_ticks(&boot_info, config.icount_shift);
	timing_init();
	report_begin(config.crash ? 1 : run_planned(), run_planned_name);
	banner();
	if (config.crash) {
		report_diag("crash=%s: provoking the exception on purpose", config.crash);
		report_set_current("crash", config.crash);
		arch_crash(config.crash);
		report_diag("crash=%s: no exception was raised", config.crash);
		report_result("crash", config.crash, RESULT_FAIL, "the exception did not happen");
		return report_finish();
	}
	report_measurements_begin();
	run_probes();
	linux_args_report_end();
	report_measurements_end();
	report_tables();
	return report_finish();
}

/* Paint the stack below us so the boot probe can find its high-water mark. */
#define STACK_PAINT 0x5aa5c33cu

void boot_paint_stack(void)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	uint32_t *p = (uint32_t *)(((uintptr_t)__stack_bottom + 3) & ~3u);

	while ((uintptr_t)p < sp - 256)
		*p++ = STACK_PAINT;
}

uintptr_t boot_stack_high_water(void)
{
	uint32_t *p = (uint32_t *)(((uintptr_t)__stack_bottom + 3) & ~3u);

	while ((char *)p < __stack_top && *p == STACK_PAINT)
		p++;
	return (uintptr_t)p;
}
