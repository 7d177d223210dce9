/* The run's settings, from the boot arguments (boot/args.c). */
#ifndef CONFIG_H
#define CONFIG_H
#include "args.h"
#include "boot_info.h"
#include "mmu_arch.h"
#include "probe.h"

#define MAX_RUN_PROBES PROBE_TABLE_MAX
#define MAX_RUN_MODES  PROBE_MAX_MODES
#define MAX_REPS       1000

struct config {
	const struct probe *probes[MAX_RUN_PROBES];
	int nprobes;
	const struct mmu_mode *modes[MAX_RUN_MODES];
	int nmodes;
	int reps;
	int quick;
	enum exit_how exit;
	const char *crash;		/* 0, or the kind to provoke */
	int icount_shift;		/* -1: not under QEMU -icount */
	int qemu;			/* qemu=tcg|kvm from tools/run-qemu: 1 tcg, 2 kvm */
	const char *ignored[BOOT_MAX_ARGS];	/* Linux's words, for the banner */
	int nignored;
};

extern struct config config;

/* 0: run; 1: --help was printed (end with a pass, run nothing); -1: error. */
int parse_args(int argc, char **argv);

/* Linux's words on the line (boot/args_linux.c): known ones ignored,
 * mem= honoured; the banner's and the run's end's lines about them. */
int linux_arg(const char *word);
void linux_args_list(void);
int linux_set_mem(const char *key, const char *value);
void linux_args_report(void);
void linux_args_report_end(void);

#endif
