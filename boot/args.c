/* Boot arguments: key=value words, the same on every entry path.  Anything
 * not understood is an error that names the valid choices: no argument is
 * ever silently ignored or defaulted. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "arch.h"
#include "board.h"
#include "config.h"
#include "report.h"

struct config config = { .reps = 1, .icount_shift = -1 };

void arg_error(const char *key, const char *value, const char *why)
{
	console_printf("mmubench: error: boot argument '%s%s%s': %s\n",
		       key, value ? "=" : "", value ? value : "", why);
}

int arg_uint(const char *key, const char *value, unsigned long min, unsigned long max,
	     unsigned long *out)
{
	char *end;
	unsigned long long v;

	if (!value || !*value || *value == '-') {
		arg_error(key, value, "needs a number");
		return -1;
	}
	int shift = 0;

	errno = 0;
	v = strtoull(value, &end, 0);
	if (end == value) {
		arg_error(key, value, "not a number");
		return -1;
	}
	if (*end == 'k' || *end == 'K')
		shift = 10, end++;
	else if (*end == 'm' || *end == 'M')
		shift = 20, end++;
	if (*end) {
		arg_error(key, value, "not a number");
		return -1;
	}
	/* The range is checked before the shift, which could wrap. */
	if (errno == ERANGE || v > (max >> shift) || v << shift < min) {
		console_printf("mmubench: error: boot argument '%s=%s': out of range %lu..%lu\n",
			       key, value, min, max);
		return -1;
	}
	*out = v << shift;
	return 0;
}

int arg_choice(const char *key, const char *value, const char *const choices[], int *out)
{
	for (int i = 0; value && choices[i]; i++)
		if (!strcmp(value, choices[i])) {
			*out = i;
			return 0;
		}
	arg_error(key, value, "not a valid choice; valid:");
	for (int i = 0; choices[i]; i++)
		console_printf("  %s\n", choices[i]);
	return -1;
}

int arg_flag(const char *key, const char *value, int *out)
{
	unsigned long v;

	if (arg_uint(key, value, 0, 1, &v) < 0)
		return -1;
	*out = v;
	return 0;
}

/* Split a comma list and call `add` for each word; "all" means every one. */
static int set_list(const char *key, const char *value, int (*add)(const char *),
		    void (*add_all)(void))
{
	char word[32];

	if (!value || !*value) {
		arg_error(key, value, "needs a comma-separated list, or all");
		return -1;
	}
	if (!strcmp(value, "all")) {
		add_all();
		return 0;
	}
	for (const char *p = value; *p;) {
		size_t n = strcspn(p, ",");
		if (n == 0 || n >= sizeof(word)) {
			arg_error(key, value, "empty or overlong name in the list");
			return -1;
		}
		memcpy(word, p, n);
		word[n] = 0;
		if (add(word) < 0)
			return -1;
		p += n + (p[n] == ',');
	}
	return 0;
}

static int add_probe(const char *name)
{
	for (int i = 0; i < probe_count; i++)
		if (!strcmp(name, probe_table[i]->name)) {
			for (int j = 0; j < config.nprobes; j++)
				if (config.probes[j] == probe_table[i])
					return 0;
			config.probes[config.nprobes++] = probe_table[i];
			return 0;
		}
	console_printf("mmubench: error: unknown probe '%s'; valid probes (or all):\n", name);
	for (int i = 0; i < probe_count; i++)
		console_printf("  %-10s %s\n", probe_table[i]->name, probe_table[i]->what);
	return -1;
}

static void add_all_probes(void)
{
	config.nprobes = 0;
	for (int i = 0; i < probe_count; i++)
		config.probes[config.nprobes++] = probe_table[i];
}

static int add_mode(const char *name)
{
	for (int i = 0; mmu_modes[i]; i++)
		if (!strcmp(name, mmu_modes[i]->name)) {
			for (int j = 0; j < config.nmodes; j++)
				if (config.modes[j] == mmu_modes[i])
					return 0;
			if (config.nmodes == MAX_RUN_MODES) {
				console_printf("mmubench: error: more than %d modes\n", MAX_RUN_MODES);
				return -1;
			}
			config.modes[config.nmodes++] = mmu_modes[i];
			return 0;
		}
	console_printf("mmubench: error: unknown mode '%s' on %s; valid modes (or all):\n",
		       name, arch_name);
	for (int i = 0; mmu_modes[i]; i++)
		console_printf("  %-10s %s\n", mmu_modes[i]->name, mmu_modes[i]->what);
	return -1;
}

static void add_all_modes(void)
{
	config.nmodes = 0;
	for (int i = 0; mmu_modes[i] && i < MAX_RUN_MODES; i++)
		config.modes[config.nmodes++] = mmu_modes[i];
}

static int set_probes(const char *key, const char *value)
{
	config.nprobes = 0;
	return set_list(key, value, add_probe, add_all_probes);
}

static int set_modes(const char *key, const char *value)
{
	config.nmodes = 0;
	return set_list(key, value, add_mode, add_all_modes);
}

static int set_reps(const char *key, const char *value)
{
	unsigned long v;

	if (arg_uint(key, value, 1, MAX_REPS, &v) < 0)
		return -1;
	config.reps = v;
	return 0;
}

static int set_quick(const char *key, const char *value)
{
	if (value) {
		arg_error(key, value, "takes no value (write just 'quick')");
		return -1;
	}
	config.quick = 1;
	return 0;
}

static int set_exit(const char *key, const char *value)
{
	static const char *const how[] = { "qemu", "return", "halt", 0 };
	int i;

	if (arg_choice(key, value, how, &i) < 0)
		return -1;
	if (i == EXIT_QEMU && !board_has_qemu_exit) {
		arg_error(key, value, "this board is not a QEMU machine");
		return -1;
	}
	if (i == EXIT_RETURN && !arch_can_return()) {
		arg_error(key, value, "no loader to return to (only after U-Boot 'go')");
		return -1;
	}
	config.exit = i;
	return 0;
}

static int set_crash(const char *key, const char *value)
{
	static const char *const kinds[] = { "data", "fetch", "illegal", "align", "divide", "user", 0 };
	const char *why;
	int i;

	if (arg_choice(key, value, kinds, &i) < 0)
		return -1;
	why = arch_crash_unsupported(kinds[i]);
	if (why) {
		arg_error(key, value, why);
		return -1;
	}
	config.crash = kinds[i];
	return 0;
}

static int set_icount(const char *key, const char *value)
{
	unsigned long v;

	if (arg_uint(key, value, 0, 10, &v) < 0)
		return -1;
	config.icount_shift = v;
	return 0;
}

static int set_qemu(const char *key, const char *value)
{
	static const char *const accel[] = { "tcg", "kvm", 0 };
	int i;

	if (arg_choice(key, value, accel, &i) < 0)
		return -1;
	config.qemu = i + 1;
	return 0;
}

static const struct boot_arg boot_args[] = {
	{ "probes", "comma list of probes, or all", set_probes },
	{ "modes", "comma list of MMU modes, or all", set_modes },
	{ "reps", "1..1000 repetitions per probe and mode", set_reps },
	{ "quick", "(no value) small sizes, for CI", set_quick },
	{ "exit", "qemu, return or halt", set_exit },
	{ "crash", "data, fetch, illegal, align, divide or user", set_crash },
	{ "icount", "0..10: QEMU -icount shift, set by tools/run-qemu", set_icount },
	{ "qemu", "tcg or kvm: the accelerator, set by tools/run-qemu", set_qemu },
	{ "mem", "RAM the run may use, as Linux's mem=: bytes, K, M or G (mem=32M)", linux_set_mem },
	{ 0 }
};

static const struct boot_arg *const arg_tables[] = { boot_args, run_args, mmu_args, arch_args };
#define NTABLES (int)(sizeof(arg_tables) / sizeof(arg_tables[0]))

/* Table t: boot's, the MMU core's, the arch's, then each probe's; 0 past the end. */
static const struct boot_arg *arg_table(int t)
{
	static const struct boot_arg none[] = { { 0 } };

	if (t < NTABLES)
		return arg_tables[t];
	t -= NTABLES;
	if (t >= probe_count)
		return 0;
	return probe_table[t]->args ? probe_table[t]->args : none;
}

static const struct boot_arg *find_arg(const char *key, size_t len)
{
	for (int t = 0; arg_table(t); t++)
		for (const struct boot_arg *a = arg_table(t); a->key; a++)
			if (strlen(a->key) == len && !strncmp(a->key, key, len))
				return a;
	return 0;
}

static void list_args(void)
{
	for (int t = 0; arg_table(t); t++)
		for (const struct boot_arg *a = arg_table(t); a->key; a++)
			console_printf("  %-12s %s\n", a->key, a->choices);
	linux_args_list();
}

static void usage(void)
{
	console_printf("usage: mmubench [key=value | key]...\n"
		       "The boot arguments, the same on every entry path (doc/boot-arguments.md);\n"
		       "an unknown one is an error. Keys:\n");
	list_args();
}

/* argv[0] is the loader's (U-Boot's load address, or our own name).  mem=
 * first, wherever it stands: other arguments are checked against RAM. */
int parse_args(int argc, char **argv)
{
	char key[32];

	add_all_probes();
	add_all_modes();
	config.exit = board_has_qemu_exit ? EXIT_QEMU : arch_can_return() ? EXIT_RETURN : EXIT_HALT;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage();
			return 1;
		}
	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "mem", 3) && (argv[i][3] == '=' || !argv[i][3]) &&
		    linux_set_mem("mem", argv[i][3] ? argv[i] + 4 : 0) < 0)
			return -1;
	for (int i = 1; i < argc; i++) {
		const char *word = argv[i], *eq = strchr(word, '=');
		size_t len = eq ? (size_t)(eq - word) : strlen(word);
		const struct boot_arg *a = find_arg(word, len);

		if (!a && linux_arg(word)) {		/* ours first: a key of ours wins */
			if (config.nignored == BOOT_MAX_ARGS) {
				console_printf("mmubench: error: more than %d boot arguments\n",
					       BOOT_MAX_ARGS);
				return -1;
			}
			config.ignored[config.nignored++] = word;
			continue;
		}
		if (!a || len >= sizeof(key)) {
			console_printf("mmubench: error: unknown boot argument '%s'; valid keys:\n", word);
			list_args();
			return -1;
		}
		if (a->set == linux_set_mem)
			continue;			/* done above */
		memcpy(key, word, len);
		key[len] = 0;
		if (a->set(key, eq ? eq + 1 : 0) < 0)
			return -1;
	}
	return 0;
}
