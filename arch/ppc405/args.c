/* The 405's boot arguments: how its MMU modes are set up (mmu.c reads
 * ppc405_opt). */
#include <string.h>
#include "args.h"
#include "ppc405.h"
#include "report.h"

struct ppc405_opts ppc405_opt = { .pins = 2, .lpsize = 7 /* 16M */ };

static int set_pins(const char *key, const char *value)
{
	return arg_uint(key, value, 0, 8, &ppc405_opt.pins);
}

static int set_lpsize(const char *key, const char *value)
{
	static const char *const sizes[] = { "1k", "4k", "16k", "64k", "256k", "1m", "4m", "16m", 0 };
	int i;

	if (value && (!strcmp(value, "1k") || !strcmp(value, "1K"))) {
		console_printf("mmubench: error: boot argument 'lpsize=%s': 1K pages are not "
			       "used (QEMU aborts on a 1K TLB entry); 4k..16m\n", value);
		return -1;
	}
	if (arg_choice(key, value, sizes + 1, &i) < 0)
		return -1;
	ppc405_opt.lpsize = i + 1;
	return 0;
}

static int set_tlbrepl(const char *key, const char *value)
{
	static const char *const how[] = { "rr", "random", 0 };
	return arg_choice(key, value, how, &ppc405_opt.random);
}

static int set_tlbdump(const char *key, const char *value) { return arg_flag(key, value, &ppc405_opt.tlbdump); }

const struct boot_arg arch_args[] = {
	{ "pins", "0..8 16M TLB entries pinned in mode pinned (default 2)", set_pins },
	{ "lpsize", "4k..16m: page size of mode largepte (default 16m)", set_lpsize },
	{ "tlbrepl", "rr (round robin, default) or random: TLB victim policy", set_tlbrepl },
	{ "tlbdump", "0 or 1: print the 64 TLB entries when each mode is first left", set_tlbdump },
	{ 0 }
};

/* Banner line (cpu.c): the replacement policy. */
const char *ppc405_tlbrepl_name(void)
{
	return ppc405_opt.random ? "random (xorshift32 over the unpinned slots)"
			  : "round robin over the unpinned slots";
}
