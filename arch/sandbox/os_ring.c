/* LMbench lat_ctx's method in the sandbox: real processes in a ring of
 * pipes, so that a context switch is what Linux does (scheduler, the
 * address-space switch, its TLB and cache effects), not our remap.
 *
 * Process 0 is us, the others are children; pipe i goes from process i to
 * process i+1 (mod procs).  A token (a count) goes round; every process
 * sums its own `bytes` (every 8-byte word) and adds one before passing it
 * on, so after r rounds the token says r * procs hops.
 *
 * The children are clone()d, not fork()ed, onto a private stack: our heap
 * and stack lie in the memfd (sandbox.h), shared after a fork, so a child
 * must never write there.  A child touches only its own stack, its own
 * anonymous working set and its two pipe ends, and calls no malloc.  It
 * dies with us (PR_SET_PDEATHSIG), at EOF on its pipe, and is killed and
 * reaped by ring_close() or, past the watchdog or an error, by
 * sandbox_os_reap() at the end of the probe's run. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "os.h"
#include "report.h"

#define MAX_PROCS	16
#define CHILD_STACK	(64 << 10)

static struct ring {
	int open, broken;
	unsigned procs, bytes;
	int pipe[MAX_PROCS][2];		/* the ring */
	int alone[MAX_PROCS][2];	/* ring_alone's, no reader but us */
	pid_t pid[MAX_PROCS];		/* [0] unused: us */
	pid_t parent;
	uint64_t *data;			/* our working set */
	uint64_t token, rounds;
	long csw0;			/* our switches at open */
	struct sigaction pipe_action;	/* SIGPIPE's, restored at close */
} ring;

static uint64_t sum_words(const uint64_t *p, unsigned bytes)
{
	uint64_t s = 0;

	for (unsigned i = 0; i < bytes / 8; i++)
		s += p[i];
	return s;
}

static void *working_set(unsigned bytes)
{
	if (!bytes)
		return 0;
	void *p = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	memset(p, 1, bytes);		/* present before timing, as LMbench's bzero */
	return p;
}

static int child(void *arg)
{
	unsigned i = (unsigned)(uintptr_t)arg;
	volatile uint64_t sink;
	uint64_t tok, *data;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != ring.parent)
		_exit(2);			/* the parent went before we could ask */
	int rd = ring.pipe[i - 1][0], wr = ring.pipe[i][1];
	for (int fd = 3; fd < 1024; fd++)
		if (fd != rd && fd != wr)
			close(fd);
	data = working_set(ring.bytes);
	if (ring.bytes && !data)
		_exit(3);
	while (read(rd, &tok, sizeof(tok)) == sizeof(tok)) {
		sink = sum_words(data, ring.bytes);
		tok++;
		if (write(wr, &tok, sizeof(tok)) != sizeof(tok))
			break;
	}
	(void)sink;
	_exit(0);
}

static long own_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

static void close_fds(void)
{
	for (unsigned i = 0; i < MAX_PROCS; i++)
		for (int e = 0; e < 2; e++) {
			if (ring.pipe[i][e] >= 0)
				close(ring.pipe[i][e]);
			if (ring.alone[i][e] >= 0)
				close(ring.alone[i][e]);
			ring.pipe[i][e] = ring.alone[i][e] = -1;
		}
}

/* Kill and reap the children; their switches into *switches.  The number
 * of children that did not end. */
static unsigned end_children(uint64_t *switches)
{
	unsigned lost = 0;

	close_fds();
	for (unsigned i = 1; i < MAX_PROCS; i++) {
		struct rusage ru;
		if (ring.pid[i] <= 0)
			continue;
		kill(ring.pid[i], SIGKILL);
		if (wait4(ring.pid[i], 0, 0, &ru) == ring.pid[i])
			*switches += ru.ru_nvcsw + ru.ru_nivcsw;
		else
			lost++;
		ring.pid[i] = 0;
	}
	return lost;
}

static void ring_free(void)
{
	uint64_t ignored = 0;

	end_children(&ignored);
	if (ring.data)
		munmap(ring.data, ring.bytes);
	ring.data = 0;
	sigaction(SIGPIPE, &ring.pipe_action, 0);
	ring.open = 0;
}

void *sandbox_ring_open(unsigned procs, unsigned bytes, char *why, size_t len)
{
	char *stack;

	if (ring.open)
		ring_free();			/* left open: not ours to keep */
	if (procs < 2 || procs > MAX_PROCS || bytes % 8) {
		snprintf(why, len, "ring of %u processes of %u bytes: 2..%d processes, whole words",
			 procs, bytes, MAX_PROCS);
		return 0;
	}
	memset(&ring, 0, sizeof(ring));
	memset(ring.pipe, -1, sizeof(ring.pipe));
	memset(ring.alone, -1, sizeof(ring.alone));
	ring.procs = procs, ring.bytes = bytes, ring.parent = getpid(), ring.open = 1;
	/* A dead child makes our write an EPIPE, not our death. */
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigaction(SIGPIPE, &ign, &ring.pipe_action);
	for (unsigned i = 0; i < procs; i++)
		if (pipe2(ring.pipe[i], O_CLOEXEC) < 0 || pipe2(ring.alone[i], O_CLOEXEC) < 0)
			goto fail;
	ring.data = working_set(bytes);
	if (bytes && !ring.data)
		goto fail;
	/* One stack for all: each child has its own copy (no CLONE_VM). */
	stack = mmap(0, CHILD_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
		     -1, 0);
	if (stack == MAP_FAILED)
		goto fail;
	/* The watchdog's SIGALRM held off: no child made but not recorded. */
	sigset_t alrm, old;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alrm, &old);
	for (unsigned i = 1; i < procs; i++) {
		ring.pid[i] = clone(child, stack + CHILD_STACK, SIGCHLD, (void *)(uintptr_t)i);
		if (ring.pid[i] < 0)
			break;
	}
	int clone_errno = errno;
	sigprocmask(SIG_SETMASK, &old, 0);
	munmap(stack, CHILD_STACK);
	for (unsigned i = 1; i < procs; i++)
		if (ring.pid[i] < 0) {
			ring.pid[i] = 0;
			errno = clone_errno;
			goto fail;
		}
	/* Keep only our ends: a child's death is then EOF or EPIPE, no hang. */
	for (unsigned i = 0; i < procs; i++) {
		if (i != procs - 1)
			close(ring.pipe[i][0]), ring.pipe[i][0] = -1;
		if (i != 0)
			close(ring.pipe[i][1]), ring.pipe[i][1] = -1;
	}
	ring.csw0 = own_switches();
	return &ring;
fail:
	snprintf(why, len, "ring of %u processes: %s", procs, strerror(errno));
	ring_free();
	return 0;
}

uint64_t sandbox_ring_run(void *arg, uint32_t n)
{
	struct ring *r = arg;
	volatile uint64_t sink;
	uint64_t t0 = probe_ticks(), tok;

	for (uint32_t i = 0; i < n && !r->broken; i++) {
		sink = sum_words(r->data, r->bytes);
		tok = r->token + 1;
		if (write(r->pipe[0][1], &tok, sizeof(tok)) != sizeof(tok) ||
		    read(r->pipe[r->procs - 1][0], &tok, sizeof(tok)) != sizeof(tok))
			r->broken = 1;
		else
			r->token = tok, r->rounds++;
	}
	(void)sink;
	return probe_ticks() - t0;
}

/* The same pipe writes, reads and sums in one process: LMbench's overhead. */
uint64_t sandbox_ring_alone(void *arg, uint32_t n)
{
	struct ring *r = arg;
	volatile uint64_t sink;
	uint64_t t0 = probe_ticks(), tok = 0;

	for (uint32_t i = 0; i < n && !r->broken; i++)
		for (unsigned p = 0; p < r->procs; p++) {
			if (write(r->alone[p][1], &tok, sizeof(tok)) != sizeof(tok) ||
			    read(r->alone[p][0], &tok, sizeof(tok)) != sizeof(tok))
				r->broken = 1;
			sink = sum_words(r->data, r->bytes);
		}
	(void)sink;
	return probe_ticks() - t0;
}

int sandbox_ring_close(void *arg, struct probe_ring_counts *c)
{
	struct ring *r = arg;
	uint64_t switches = own_switches() - r->csw0;
	unsigned lost = end_children(&switches);

	c->rounds = r->rounds;
	c->hops = r->token;
	c->switches = switches;
	c->children = r->procs - 1 - lost;
	int bad = r->broken || lost;
	ring_free();
	return bad ? -1 : 0;
}

/* The end of a probe's run, however it ended (the watchdog's longjmp, an
 * error path that forgot): no child outlives it. */
void sandbox_ring_reap(void)
{
	unsigned alive = 0;

	if (!ring.open)
		return;
	for (unsigned i = 1; i < MAX_PROCS; i++)
		alive += ring.pid[i] > 0;
	ring_free();
	report_diag("os: a ring of %u processes outlived its probe's run: %u children killed and reaped",
		    ring.procs, alive);
}
