/* The sandbox's entry: a Linux program's main().  It maps the sandbox's
 * RAM, then runs boot_main() on the stack in the image's area (so the
 * boot probe and the self-check see it as on the boards), as the boards'
 * start-up code does on theirs. */
#define _GNU_SOURCE			/* fopencookie */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>
#include "arch.h"
#include "args.h"
#include "sandbox.h"

/* ---- the sandbox's RAM: sized before anything is mapped ---- */

uintptr_t sandbox_ram_bytes;
const char *sandbox_ram_source;
static char ram_source[160], ram_error[160];
static uint64_t avail_at_start;		/* MemAvailable as the size was chosen, bytes */

/* ram=SIZE against the layout and MemAvailable; "" when it will do. */
static const char *check_ram(const char *value, uint64_t avail, uint64_t *bytes)
{
	if (arg_parse_size(value, bytes) < 0)
		return "not a size (bytes, or with a K, M or G suffix)";
	if (*bytes % LARGE)
		snprintf(ram_error, sizeof(ram_error), "not a multiple of 2 MiB (thp and hugetlb map "
			 "RAM in 2 MiB pages)");
	else if (*bytes < RAM_MIN_BYTES)
		snprintf(ram_error, sizeof(ram_error), "below the sandbox's minimum of %u MiB (4 MiB "
			 "heap and stack, the rest probe memory)", RAM_MIN_BYTES >> 20);
	else if (*bytes > RAM_MAX_BYTES)
		snprintf(ram_error, sizeof(ram_error), "more than the %u MiB the sandbox's layout "
			 "holds (RAM at 0x%x, below 0x%x)", RAM_MAX_BYTES >> 20, RAM_BASE, RAM_LAYOUT_END);
	else if (*bytes > avail)
		snprintf(ram_error, sizeof(ram_error), "more than MemAvailable (%llu MiB, /proc/meminfo)",
			 (unsigned long long)avail >> 20);
	else
		return "";
	return ram_error;
}

/* A whole small /proc file, with read(): the heap (heap.c) lies in the
 * RAM being sized, so no stdio (its buffers are malloc's) before it is. */
static int read_file(const char *path, char *buf, int size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0, r;

	if (fd < 0)
		return -1;
	while (n < size - 1 && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += r;
	close(fd);
	buf[n] = 0;
	return n;
}

/* MemAvailable in KiB, -1 when /proc/meminfo has none. */
static long mem_available(void)
{
	static char buf[8192];
	char *p;

	if (read_file("/proc/meminfo", buf, sizeof(buf)) < 0 || !(p = strstr(buf, "\nMemAvailable:")))
		return -1;
	return strtol(p + 14, 0, 10);
}

/* A quarter of MemAvailable (the machine is shared: what a run touches
 * stays well inside what is free), at most the layout's, in 2 MiB steps;
 * or the last ram= argument (from /proc/self/cmdline: glibc may allocate,
 * so map RAM, before main).  A bad ram= is reported by parse_args (the
 * setter below); no usable size at all ends the program here. */
void sandbox_ram_choose(void)
{
	static char cmdline[8192];
	long kib = mem_available();
	uint64_t avail = kib > 0 ? (uint64_t)kib << 10 : 0, quarter = avail / 4 & ~(uint64_t)(LARGE - 1);
	const char *ram = 0;
	int n;

	if (sandbox_ram_bytes)
		return;
	avail_at_start = avail;
	n = read_file("/proc/self/cmdline", cmdline, sizeof(cmdline));
	for (int i = 0; i < n; i += strlen(cmdline + i) + 1)
		if (i && !strncmp(cmdline + i, "ram=", 4))
			ram = cmdline + i + 4;
	if (ram) {
		uint64_t bytes;
		if (!*check_ram(ram, avail, &bytes)) {
			sandbox_ram_bytes = bytes;
			snprintf(ram_source, sizeof(ram_source), "ram=%s (MemAvailable %llu MiB)", ram,
				 (unsigned long long)avail >> 20);
			sandbox_ram_source = ram_source;
			return;
		}
		sandbox_ram_bytes = RAM_MIN_BYTES;	/* the run ends at the arguments */
		sandbox_ram_source = "the minimum, for a run that stops at its arguments";
		return;
	}
	if (quarter < RAM_MIN_BYTES) {		/* write(): stdio would allocate */
		char msg[160];
		int len = snprintf(msg, sizeof(msg), "mmubench: error: sandbox RAM: %s; give ram=SIZE "
				   "(at least %u MiB)\n", kib < 0 ? "no MemAvailable in /proc/meminfo" :
				   "a quarter of MemAvailable is below the minimum", RAM_MIN_BYTES >> 20);
		ssize_t w = write(2, msg, len);
		(void)w;
		_exit(2);
	}
	sandbox_ram_bytes = quarter < RAM_MAX_BYTES ? quarter : RAM_MAX_BYTES;
	snprintf(ram_source, sizeof(ram_source), "a quarter of MemAvailable (%llu MiB, /proc/meminfo)%s",
		 (unsigned long long)avail >> 20, quarter > RAM_MAX_BYTES ? ", at most what the "
		 "sandbox's layout holds" : "");
	sandbox_ram_source = ram_source;
}

/* The ram= boot argument: sandbox_ram_choose() already applied it; the
 * verdict here is the same (the same MemAvailable). */
int sandbox_set_ram(const char *key, const char *value)
{
	uint64_t bytes;
	const char *why = check_ram(value, avail_at_start, &bytes);

	if (*why) {
		arg_error(key, value, why);
		return -1;
	}
	return 0;
}

/* ---- errors in the boot arguments on stderr too ---- */

/* The console is stdout: the report, which a caller keeps as the log, as
 * on the boards.  What the image prints before "KTAP version 1" is errors
 * in the boot arguments (doc/result-format.md), and a caller of a Linux
 * program looks for those on stderr (doc/building.md).  So until the
 * header every line goes to stderr as well (empty ones aside), unless both
 * are one file (a terminal, 2>&1); from the header on stdout is stdio's
 * own again.  --help's usage is not an error: stdout alone. */
static FILE *real_stdout;
static int at_line_start = 1;

static void write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;		/* the console never stops the run */
		buf += w, n -= (size_t)w;
	}
}

static ssize_t console_tee(void *cookie, const char *buf, size_t n)
{
	static const char header[] = "KTAP version 1\n";

	(void)cookie;
	for (size_t i = 0, len; i < n && stdout != real_stdout; i += len) {
		const char *nl = memchr(buf + i, '\n', n - i);
		len = nl ? (size_t)(nl + 1 - (buf + i)) : n - i;
		if (at_line_start && len == sizeof(header) - 1 && !memcmp(buf + i, header, len))
			stdout = real_stdout;	/* nothing buffered there yet */
		else if (!(at_line_start && nl == buf + i))
			write_all(2, buf + i, len);
		at_line_start = nl != 0;
	}
	write_all(1, buf, n);
	return (ssize_t)n;
}

static void errors_to_stderr(int argc, char **argv)
{
	cookie_io_functions_t io = { .write = console_tee };
	struct stat out, err;
	FILE *tee;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return;
	if (fstat(1, &out) || fstat(2, &err) ||
	    (out.st_dev == err.st_dev && out.st_ino == err.st_ino))
		return;
	if (!(tee = fopencookie(0, "w", io)))
		return;
	real_stdout = stdout;
	stdout = tee;
}

int main(int argc, char **argv)
{
	static ucontext_t run, back;
	struct boot_info *bi = &boot_info;

	sandbox_entry_clocks(bi);	/* bi->entry_ticks, in the clock chosen later */
	bi->entry = ENTRY_PROGRAM;
	bi->entry_name = "Linux exec (main's argc/argv)";
	bi->argc = argc;
	bi->argv = argv;
	sandbox_ram_init();
	errors_to_stderr(argc, argv);	/* after the RAM: stdio allocates */
	if (getcontext(&run) < 0) {
		perror("mmubench: getcontext");
		return 3;
	}
	run.uc_stack.ss_sp = (void *)STACK_BOTTOM;
	run.uc_stack.ss_size = STACK_TOP - STACK_BOTTOM;
	run.uc_link = &back;
	makecontext(&run, boot_main, 0);
	swapcontext(&back, &run);	/* boot_main ends with exit() */
	return 3;
}

/* Nothing to return to but the shell, which exit() does. */
int arch_can_return(void)
{
	return 0;
}

void arch_return_to_loader(int status)
{
	exit(status);
}

void arch_halt(void)
{
	fflush(stdout);
	exit(1);
}
