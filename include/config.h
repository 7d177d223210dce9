/* The run's settings, from the boot arguments (boot/args.c). */
#ifndef CONFIG_H
#define CONFIG_H
#include "boot_info.h"
#include "mmu.h"
#include "probe.h"

#define MAX_RUN_PROBES 16
#define MAX_RUN_MODES  8

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
};

extern struct config config;

/* A boot argument: key, what values it takes (for errors and README), and
 * the setter, which returns 0 or prints what is wrong and returns -1.
 * boot/, each arch/ and the probes each have a 0-terminated table. */
struct boot_arg {
	const char *key;
	const char *choices;
	int (*set)(const char *key, const char *value);
};
extern const struct boot_arg arch_args[];
extern const struct boot_arg probe_args[];

int parse_args(int argc, char **argv);

/* Helpers for setters: parse an unsigned in [min, max] (decimal, 0x hex,
 * k/m suffixes for sizes), one of a list of words, or a 0/1 switch. */
int arg_uint(const char *key, const char *value, unsigned long min, unsigned long max,
	     unsigned long *out);
int arg_choice(const char *key, const char *value, const char *const choices[], int *out);
int arg_flag(const char *key, const char *value, int *out);	/* 0 or 1 */

#endif
