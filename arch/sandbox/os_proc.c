/* LMbench's process figures in the sandbox (include/probe.h, struct
 * probe_os): lat_syscall null (getppid), lat_proc fork (fork, the child
 * exits, wait), exec (fork, execve of a tiny program, wait) and shell
 * (the same through /bin/sh -c: sh proc), lat_mmap
 * (a file mapped, written, unmapped).  These are Linux's own paths: the
 * probes trap, fork, exec and mmap print them under the names their bare
 * metal figures have.
 *
 * A child is clone(SIGCHLD)d: fork() itself, but on a stack of its own
 * (our stack and heap lie in the memfd, sandbox.h, shared after a fork:
 * a child must never write there).  The child writes only that stack and
 * the parent's private working set (copy-on-write), then _exit()s or
 * execve()s.  The program executed is build/sandbox/hello (hello/hello.c,
 * static), next to our own executable. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "os.h"

#define PAGE		4096u
#define CHILD_STACK	(64 << 10)
#define HELLO_STATUS	42		/* hello/hello.c: its write to stdout worked */
#define SHELL		"/bin/sh"

static struct {
	char *set;			/* a private working set */
	size_t bytes;
	uint32_t pages, writes;
	char *stack;			/* the children's (each its own copy) */
	int devnull, map_fd, failed;
	char hello[PATH_MAX];
	uint64_t execs, ran;
} os = { .map_fd = -1 };

static void *private_pages(size_t bytes)
{
	void *p = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 0;
	memset(p, 1, bytes);		/* present, as LMbench's working sets */
	return p;
}

/* The end of every probe run: what we mapped and opened, and any child of
 * ours a watchdog's longjmp left unreaped (the ring's are reaped first). */
void sandbox_proc_reap(void)
{
	if (os.set)
		munmap(os.set, os.bytes);
	if (os.stack)
		munmap(os.stack, CHILD_STACK);
	if (os.devnull > 0)
		close(os.devnull);
	if (os.map_fd >= 0)
		close(os.map_fd);
	os.set = os.stack = 0;
	os.devnull = 0, os.map_fd = -1;
	while (waitpid(-1, 0, WNOHANG) > 0)
		;
}

/* ---- lat_syscall null ---- */

static uint64_t calls_run(void *arg, uint32_t n)
{
	volatile uint32_t sink = 0;
	int touch = arg != 0, call = arg == 0 || *(int *)arg;
	uint64_t t0 = probe_ticks();

	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t p = 0; touch && p < os.pages; p++)
			sink += *(volatile uint32_t *)(os.set + (size_t)p * PAGE);
		if (call)
			getppid();
	}
	(void)sink;
	return probe_ticks() - t0;
}

int sandbox_null_call(uint32_t pages, struct probe_time *t, char *why, size_t len)
{
	struct probe_time alone;
	int with = 1, without = 0;

	sandbox_proc_reap();
	if (!pages) {
		if (probe_measure(calls_run, 0, t) < 0)
			return snprintf(why, len, "lat_syscall null: no time"), -1;
		return 0;
	}
	os.bytes = (size_t)pages * PAGE, os.pages = pages;
	if (!(os.set = private_pages(os.bytes)))
		return snprintf(why, len, "null call: %u pages: %s", pages, strerror(errno)), -1;
	int r = probe_measure(calls_run, &with, t) < 0 || probe_measure(calls_run, &without, &alone) < 0;
	sandbox_proc_reap();
	if (r)
		return snprintf(why, len, "null call after %u pages: no time", pages), -1;
	return sandbox_os_net(t, alone.ticks1000, 1, "null call after the touches", why, len);
}

/* ---- lat_proc fork ---- */

static int fork_child(void *arg)
{
	(void)arg;
	for (uint32_t w = 0; w < os.writes; w++)
		os.set[(size_t)w * PAGE] = 2;
	_exit(0);
}

/* One child made and waited for; its rusage in *ru.  -1 if it failed. */
static int one_child(int (*fn)(void *), void *arg, int *status, struct rusage *ru)
{
	pid_t pid = clone(fn, os.stack + CHILD_STACK, SIGCHLD, arg);

	if (pid < 0 || wait4(pid, status, 0, ru) != pid)
		return -1;
	return 0;
}

static uint64_t forks_run(void *arg, uint32_t n)
{
	struct rusage ru;
	uint64_t t0 = probe_ticks();
	int st;

	(void)arg;
	for (uint32_t i = 0; i < n && !os.failed; i++)
		if (one_child(fork_child, 0, &st, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			os.failed = 1;
	return probe_ticks() - t0;
}

static int open_children(size_t set_bytes, char *why, size_t len)
{
	sandbox_proc_reap();
	os.failed = 0;
	os.bytes = set_bytes;
	os.stack = mmap(0, CHILD_STACK, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (os.stack == MAP_FAILED)
		os.stack = 0;
	if (set_bytes && os.stack)
		os.set = private_pages(set_bytes);
	if (!os.stack || (set_bytes && !os.set)) {
		snprintf(why, len, "a stack and %zu bytes for children: %s", set_bytes, strerror(errno));
		sandbox_proc_reap();
		return -1;
	}
	return 0;
}

int sandbox_fork_proc(uint32_t bytes, uint32_t writes, struct probe_time *t,
		     uint64_t *child_faults, char *why, size_t len)
{
	struct rusage ru = { 0 };
	int st = 0;

	if (open_children(bytes, why, len) < 0)
		return -1;
	os.writes = writes;
	int r = one_child(fork_child, 0, &st, &ru);	/* the one counted */
	*child_faults = (uint64_t)ru.ru_minflt;
	if (r < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		os.failed = 1;
	if (!os.failed && probe_measure(forks_run, 0, t) < 0)
		os.failed = 1;
	sandbox_proc_reap();
	if (os.failed)
		return snprintf(why, len, "lat_proc fork: a child did not fork or exit 0: %s",
				strerror(errno)), -1;
	return 0;
}

/* ---- lat_proc exec ---- */

/* hello itself, or (LMbench's sh proc) a shell told to run it. */
static int exec_child(void *arg)
{
	char *argv[] = { os.hello, 0 }, *sh_argv[] = { "sh", "-c", os.hello, 0 }, *envp[] = { 0 };

	if (dup2(os.devnull, 1) < 0)
		_exit(126);
	if (arg)
		execve(SHELL, sh_argv, envp);
	else
		execve(os.hello, argv, envp);
	_exit(127);
}

static uint64_t execs_run(void *arg, uint32_t n)
{
	struct rusage ru;
	uint64_t t0 = probe_ticks();
	int st;

	for (uint32_t i = 0; i < n && !os.failed; i++) {
		if (one_child(exec_child, arg, &st, &ru) < 0)
			os.failed = 1;
		os.execs++;
		os.ran += WIFEXITED(st) && WEXITSTATUS(st) == HELLO_STATUS;
	}
	return probe_ticks() - t0;
}

/* hello, next to our executable. */
static int find_hello(char *why, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", os.hello, sizeof(os.hello) - 8);
	char *slash;

	if (n <= 0 || !(slash = memrchr(os.hello, '/', n)))
		return snprintf(why, len, "lat_proc exec: our own path: %s", strerror(errno)), -1;
	strcpy(slash + 1, "hello");
	if (access(os.hello, X_OK) < 0)
		return snprintf(why, len, "lat_proc exec: hello beside mmubench: %s (make sandbox "
				"builds it)", strerror(errno)), -1;
	return 0;
}

int sandbox_exec_proc(int shell, struct probe_time *t, uint64_t *execs, uint64_t *ran,
		      char *why, size_t len)
{
	if (find_hello(why, len) < 0 || open_children(0, why, len) < 0)
		return -1;
	if (shell && access(SHELL, X_OK) < 0) {
		snprintf(why, len, "lat_proc shell: " SHELL ": %s", strerror(errno));
		sandbox_proc_reap();
		return -1;
	}
	os.devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (os.devnull < 0) {
		snprintf(why, len, "lat_proc exec: /dev/null: %s", strerror(errno));
		sandbox_proc_reap();
		return -1;
	}
	os.execs = os.ran = 0;
	int r = probe_measure(execs_run, shell ? &os : 0, t);
	*execs = os.execs, *ran = os.ran;
	sandbox_proc_reap();
	if (r < 0 || os.failed)
		return snprintf(why, len, "lat_proc exec: %s", os.failed ? "clone or wait failed"
										: "no time"), -1;
	return 0;
}

/* ---- lat_mmap ---- */

static uint64_t maps_run(void *arg, uint32_t n)
{
	uint64_t t0 = probe_ticks();

	(void)arg;
	for (uint32_t i = 0; i < n && !os.failed; i++) {
		char *p = mmap(0, os.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, os.map_fd, 0);
		if (p == MAP_FAILED) {
			os.failed = 1;
			break;
		}
		for (size_t off = 0; off < os.bytes; off += PAGE)
			p[off] = (char)off;
		munmap(p, os.bytes);
	}
	return probe_ticks() - t0;
}

static long own_minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

int sandbox_mmap_file(uint32_t bytes, struct probe_time *t, uint64_t *faults, char *why, size_t len)
{
	sandbox_proc_reap();
	os.failed = 0, os.bytes = bytes;
	os.map_fd = sandbox_temp_file(bytes);
	if (os.map_fd < 0)
		return snprintf(why, len, "lat_mmap: a %u-byte file: %s", bytes, strerror(errno)), -1;
	maps_run(0, 1);				/* warm */
	long f0 = own_minflt();
	maps_run(0, 1);				/* the mapping counted */
	*faults = (uint64_t)(own_minflt() - f0);
	int r = os.failed || probe_measure(maps_run, 0, t) < 0 || os.failed;
	sandbox_proc_reap();
	if (r)
		return snprintf(why, len, "lat_mmap: %s", os.failed ? strerror(errno) : "no time"), -1;
	return 0;
}
