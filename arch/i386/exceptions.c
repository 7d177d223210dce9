/* PLACEHOLDER (i386) until the vectors land: no vectors yet. */
#include <string.h>
#include "arch.h"
#include "config.h"

void arch_init(struct boot_info *bi) { (void)bi; }
const char *arch_crash_unsupported(const char *kind) { (void)kind; return "exceptions are not wired yet"; }
void arch_crash(const char *kind) { (void)kind; }
const struct boot_arg arch_args[] = { { 0 } };
