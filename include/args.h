/* Boot arguments: a table per layer (boot/, the MMU core, each arch/, each
 * probe), each entry a key, what values it takes (for errors and the
 * docs in doc/) and a setter that returns 0 or prints what is wrong and -1. */
#ifndef ARGS_H
#define ARGS_H
#include <stdint.h>

struct boot_arg {
	const char *key;
	const char *choices;
	int (*set)(const char *key, const char *value);
};
extern const struct boot_arg arch_args[], mmu_args[], run_args[];

/* Helpers for setters: an unsigned in [min, max] (decimal, 0x hex, k/m
 * suffixes for sizes), one of a list of words, or a 0/1 switch. */
/* A size as Linux's memparse() reads it ("32M", "1G", "0x400000", "786432K"):
 * 0 with *out in bytes, -1 if it is not one (or 1 TiB or more). */
int arg_parse_size(const char *s, uint64_t *out);
int arg_uint(const char *key, const char *value, unsigned long min, unsigned long max,
	     unsigned long *out);
int arg_choice(const char *key, const char *value, const char *const choices[], int *out);
int arg_flag(const char *key, const char *value, int *out);
/* "mmubench: error: boot argument 'key=value': why" on the console. */
void arg_error(const char *key, const char *value, const char *why);

#endif
