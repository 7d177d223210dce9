/* A minimal kernel's scheduler, pipes and signals (include/proc.h) over
 * boot/proc.c's processes and the arch's system-call boundary
 * (include/user.h): no arch code here.
 *
 * Every process of a run enters the kernel on the one kernel stack, and
 * the arch saves its user context in the exception frame there.  A call
 * that blocks saves that frame in the process's task, picks the next
 * runnable process, switches to its address space (the mode's real
 * switch: PID, CR3) and puts its context in the frame: the common path's
 * way back to user mode returns into it.  A blocked call is restarted
 * (its PC set back onto the call) when its process runs again.
 *
 * Pipes: a page of ring buffer each, from proc_mem.c's frames (kernel
 * RAM).  A read with nothing to read blocks while a writer lives, else
 * reads 0 (EOF); a write with no room blocks while a reader lives, else
 * fails (-32, EPIPE).  Signals: kill(self) marks one pending; on the way
 * out of the kernel a pending signal with a handler is delivered: the
 * interrupted context saved in a struct proc_sigframe on the user stack,
 * the PC moved to the program's handler entry; sigreturn checks the frame
 * and restores it.  A pending signal without a handler ends its process
 * (the default action), and the run fails saying so. */
#include <string.h>
#include "proc_mem.h"
#include "proc_sched.h"
#include "report.h"
#include "user.h"

#define PAGE		4096u
#define MAX_PIPES	40
#define NSIG		32
#define EPIPE		32
#define EBADF		9
#define EFAULT		14
#define EINVAL		22
#define FRAME_GAP	256		/* below the interrupted SP: left alone */

enum { T_RUN = 1, T_BLOCKED, T_DONE };

struct pipe {
	uintptr_t buf;			/* one page; 0: not in use */
	uint32_t head, count;		/* bytes from head, wrapping */
	int ends[2];			/* processes holding its read, write end */
	int live[2];			/* of those, in this run and not exited */
};

struct task {
	struct proc *p;
	int state, started;
	int wait;			/* blocked: the pipe + 1 it waits on */
	struct user_ctx ctx;		/* saved while it is not running */
	uint8_t fd[PROC_FDS];		/* pipe + 1 << 1 | write end; 0 none */
	uint32_t pending, handled;	/* signal masks */
	uint32_t cookie, killed_by;
	uintptr_t prog_at;
};

static struct pipe pipes[MAX_PIPES];
static struct task tasks[PROC_SLOTS];
static struct {
	int active, n, cur;
	int order[PROC_SLOTS];		/* the run's tasks, in the order given */
	uint32_t switches;
	int failed;
} run;

uint32_t proc_switches(void) { return run.switches; }

/* ---- pipes ---- */

static int end_open(struct proc *p, int fd, int pipe, int write)
{
	struct task *t;

	if (!p)
		return 0;
	t = &tasks[proc_slot(p)];
	if (fd < 0 || fd >= PROC_FDS || t->fd[fd]) {
		report_diag("error: pipe: descriptor %d of a process: out of 0..%d or taken",
			    fd, PROC_FDS - 1);
		return -1;
	}
	t->p = p;
	t->fd[fd] = (uint8_t)((pipe + 1) << 1 | write);
	pipes[pipe].ends[write]++;
	return 0;
}

int proc_pipe(struct proc *w, int wfd, struct proc *r, int rfd)
{
	int i;

	for (i = 0; i < MAX_PIPES && pipes[i].buf; i++)
		;
	if (i == MAX_PIPES) {
		report_diag("error: pipe: more than %d at once", MAX_PIPES);
		return -1;
	}
	if (proc_pool_init() < 0 || !(pipes[i].buf = proc_frames_alloc(1)))
		return -1;
	if (end_open(w, wfd, i, 1) < 0 || end_open(r, rfd, i, 0) < 0) {
		sched_proc_gone(w);		/* (whatever was opened) */
		sched_proc_gone(r);
		return -1;
	}
	return 0;
}

static void pipe_close(int pipe, int write)
{
	struct pipe *q = &pipes[pipe];

	if (--q->ends[write] == 0 && q->ends[!write] == 0) {
		proc_frame_put(q->buf);
		memset(q, 0, sizeof(*q));
	}
}

void sched_proc_gone(const struct proc *p)
{
	struct task *t;

	if (!p)
		return;
	t = &tasks[proc_slot(p)];
	for (int fd = 0; fd < PROC_FDS; fd++)
		if (t->fd[fd])
			pipe_close((t->fd[fd] >> 1) - 1, t->fd[fd] & 1);
	memset(t, 0, sizeof(*t));
}

uintptr_t proc_pipe_page(const struct proc *p, int fd)
{
	uint8_t e = fd >= 0 && fd < PROC_FDS ? tasks[proc_slot(p)].fd[fd] : 0;

	return e ? pipes[(e >> 1) - 1].buf : 0;
}

/* ---- the run queue ---- */

static struct task *current(void) { return &tasks[run.order[run.cur]]; }

/* The next runnable task after the current one, round robin; -1 none. */
static int next_runnable(void)
{
	for (int k = 1; k <= run.n; k++) {
		int i = (run.cur + k) % run.n;
		if (tasks[run.order[i]].state == T_RUN)
			return i;
	}
	return -1;
}

/* The current task stopped running (blocked or done): save it and put
 * the next one's context in r.  1 with *rc when nothing can run. */
static int schedule(struct user_regs *r, int *rc)
{
	struct task *t = current();
	int i = next_runnable();

	if (i < 0) {
		int blocked = 0;
		for (int k = 0; k < run.n; k++)
			blocked += tasks[run.order[k]].state == T_BLOCKED;
		if (blocked)
			report_diag("error: scheduler: deadlock: %d of %d processes blocked in a pipe, "
				    "none runnable", blocked, run.n);
		*rc = blocked || run.failed ? -1 : 0;
		return 1;
	}
	if (t->state != T_DONE)
		user_regs_save(r, &t->ctx);
	if (i == run.cur && t->state == T_RUN)
		return 0;
	run.cur = i, t = current();
	run.switches++;
	proc_switch(t->p);
	if (t->started) {
		user_regs_load(r, &t->ctx);
	} else {
		t->started = 1;
		user_regs_start(r, proc_user_addr(t->p, user_prog_main), t->prog_at - 64, t->prog_at);
	}
	return 0;
}

static void wake(int pipe)
{
	for (int k = 0; k < run.n; k++) {
		struct task *t = &tasks[run.order[k]];
		if (t->state == T_BLOCKED && t->wait == pipe + 1)
			t->state = T_RUN, t->wait = 0;
	}
}

/* Block the current task on `pipe` and restart its call when it runs. */
static int block(struct user_regs *r, int pipe, int *rc)
{
	struct task *t = current();

	user_regs_restart(r);
	t->state = T_BLOCKED;
	t->wait = pipe + 1;
	return schedule(r, rc);
}

static void task_exit(struct task *t)
{
	t->state = T_DONE;
	for (int fd = 0; fd < PROC_FDS; fd++)
		if (t->fd[fd]) {
			int pipe = (t->fd[fd] >> 1) - 1;
			pipes[pipe].live[t->fd[fd] & 1]--;
			wake(pipe);		/* its readers see EOF, its writers EPIPE */
		}
}

/* ---- the calls ---- */

/* A pipe end of the current task: the pipe's index, or -1. */
static int end_of(uint32_t fd, int write)
{
	struct task *t = current();

	if (fd >= PROC_FDS || !t->fd[fd] || (t->fd[fd] & 1) != write)
		return -1;
	return (t->fd[fd] >> 1) - 1;
}

/* read and write: 1 when the call blocked (r is another context now). */
static int pipe_io(struct user_regs *r, int write, int *leave, int *rc)
{
	uint32_t fd = user_regs_arg(r, 0), n = user_regs_arg(r, 2);
	uintptr_t buf = user_regs_arg(r, 1);
	int pi = end_of(fd, write);
	uint8_t *b = (uint8_t *)buf;

	if (pi < 0)
		return user_regs_set_result(r, -EBADF), 0;
	struct pipe *q = &pipes[pi];
	if (!proc_user_range(current()->p, buf, n, !write))
		return user_regs_set_result(r, -EFAULT), 0;
	if (n > PAGE)
		n = PAGE;
	if (write ? q->count == PAGE : q->count == 0) {
		if (!q->live[!write])		/* nobody at the other end */
			return user_regs_set_result(r, write ? -EPIPE : 0), 0;
		*leave = block(r, pi, rc);
		return 1;
	}
	uint8_t *ring = (uint8_t *)q->buf;
	uint32_t done = 0;
	for (; done < n && (write ? q->count < PAGE : q->count > 0); done++) {
		if (write)
			ring[(q->head + q->count++) % PAGE] = b[done];
		else
			b[done] = ring[q->head], q->head = (q->head + 1) % PAGE, q->count--;
	}
	wake(pi);
	user_regs_set_result(r, done);
	return 0;
}

/* A word at a time (newlib's -Os memcpy goes byte by byte). */
static void words(void *to, const void *from, size_t bytes)
{
	for (size_t i = 0; i < bytes / 4; i++)
		((uint32_t *)to)[i] = ((const uint32_t *)from)[i];
}

/* The way out: the lowest pending signal with a handler, delivered. */
static void deliver(struct user_regs *r)
{
	struct task *t = current();
	uint32_t ready = t->pending & t->handled;
	struct proc_sigframe f;
	int sig;

	if (!ready)
		return;
	sig = __builtin_ctz(ready);
	t->pending &= ~(1u << sig);
	uintptr_t at = (user_regs_sp(r) - FRAME_GAP - sizeof(f) - sizeof(struct user_ctx)) & ~15u;
	if (!proc_user_range(t->p, at - 16, 16 + sizeof(f) + sizeof(struct user_ctx), 1)) {
		report_diag("error: signal %d: no room for its frame on the user stack (SP 0x%08lx): "
			    "the process ends", sig, (unsigned long)user_regs_sp(r));
		t->killed_by = sig, run.failed = 1;
		return;
	}
	f = (struct proc_sigframe){ PROC_SIG_MAGIC, sig, user_regs_pc(r), 0 };
	words((void *)at, &f, sizeof(f));
	user_regs_save(r, (struct user_ctx *)(at + sizeof(f)));
	user_regs_upcall(r, proc_user_addr(t->p, user_prog_signal), at - 16, sig, at, t->cookie);
}

static int sigreturn(struct user_regs *r, int *rc)
{
	uintptr_t at = user_regs_arg(r, 0);
	struct proc_sigframe f;
	struct user_ctx c;
	const char *why = 0;

	if (!proc_user_range(current()->p, at, sizeof(f) + sizeof(c), 0)) {
		why = "not in the process's memory";
	} else {
		words(&f, (const void *)at, sizeof(f));
		words(&c, (const void *)(at + sizeof(f)), sizeof(c));
		if (f.magic != PROC_SIG_MAGIC || !f.sig || f.sig >= NSIG)
			why = "no signal frame there (magic, signal number)";
		else
			why = user_ctx_invalid(&c, r);
	}
	if (why) {
		user_regs_dump(r);
		report_diag("error: sigreturn: a bad signal frame at 0x%08lx: %s: the run fails",
			    (unsigned long)at, why);
		*rc = -1;
		return 1;
	}
	user_regs_load(r, &c);
	user_regs_set_pc(r, f.pc);
	return 0;
}

static int kill_self(struct user_regs *r, int *rc)
{
	struct task *t = current();
	uint32_t sig = user_regs_arg(r, 0);

	if (sig >= NSIG)
		return user_regs_set_result(r, -EINVAL), 0;
	user_regs_set_result(r, 0);
	if (!sig)
		return 0;			/* the check alone */
	if (t->handled & (1u << sig)) {
		t->pending |= 1u << sig;
		return 0;
	}
	report_diag("error: signal %lu to a process with no handler: the default action ends it",
		    (unsigned long)sig);
	t->killed_by = sig, run.failed = 1;
	task_exit(t);
	return schedule(r, rc);
}

static int sigaction(struct user_regs *r)
{
	struct task *t = current();
	uint32_t sig = user_regs_arg(r, 0);

	if (!sig || sig >= NSIG)
		return -EINVAL;
	if (user_regs_arg(r, 1))
		t->handled |= 1u << sig;
	else
		t->handled &= ~(1u << sig);
	t->cookie = user_regs_arg(r, 2);
	return 0;
}

int user_syscall(struct user_regs *r, int *rc)
{
	uint32_t call = user_regs_call(r);
	int leave = 0;

	if (!run.active && call == USER_CALL_EXIT) {
		*rc = 0;			/* proc_run's job is done */
		return 1;
	}
	if (!run.active || call > USER_CALL_SIGRETURN) {
		user_regs_dump(r);
		report_diag("error: user mode: unknown system call %lu%s: user_enter returns -1",
			    (unsigned long)call, run.active ? "" : " (no scheduled run)");
		*rc = -1;
		return 1;
	}
	switch (call) {
	case USER_CALL_EXIT:
		task_exit(current());
		return schedule(r, rc);
	case USER_CALL_READ:
	case USER_CALL_WRITE:
		if (pipe_io(r, call == USER_CALL_WRITE, &leave, rc) && leave)
			return 1;
		break;
	case USER_CALL_SIGACTION:
		user_regs_set_result(r, sigaction(r));
		break;
	case USER_CALL_KILL:
		if (kill_self(r, rc))
			return 1;
		break;
	case USER_CALL_SIGRETURN:
		if (sigreturn(r, rc))
			return 1;
		break;
	}
	deliver(r);
	if (current()->killed_by && current()->state != T_DONE) {
		task_exit(current());
		return schedule(r, rc);
	}
	return 0;
}

int user_fault(struct user_regs *r, uintptr_t addr)
{
	struct task *t;

	if (!run.active)
		return 0;
	t = current();
	if (!(t->handled & (1u << PROC_SIGSEGV)) || t->state != T_RUN)
		return 0;
	(void)addr;
	t->pending |= 1u << PROC_SIGSEGV;
	deliver(r);
	return !t->killed_by;
}

/* ---- a run ---- */

void sched_forget(void)
{
	run.active = 0;
}

static int run_start(struct proc **ps, struct proc_prog *progs, int n)
{
	if (n < 1 || n > PROC_SLOTS) {
		report_diag("error: scheduler: %d processes in a run (1..%d)", n, PROC_SLOTS);
		return -1;
	}
	memset(&run, 0, sizeof(run));
	for (int i = 0; i < n; i++) {
		struct task *t = &tasks[proc_slot(ps[i])];
		t->p = ps[i];
		t->state = T_RUN, t->started = 0, t->wait = 0;
		t->pending = t->handled = t->killed_by = 0;
		t->prog_at = proc_stack_top(ps[i]) - 64;
		proc_copy(ps[i], t->prog_at, &progs[i], sizeof(progs[i]), 1);
		run.order[i] = proc_slot(ps[i]);
	}
	run.n = n;
	for (int i = 0; i < MAX_PIPES; i++)	/* emptied; the ends this run holds live */
		pipes[i].head = pipes[i].count = pipes[i].live[0] = pipes[i].live[1] = 0;
	for (int i = 0; i < n; i++)
		for (int fd = 0; fd < PROC_FDS; fd++) {
			uint8_t e = tasks[run.order[i]].fd[fd];
			if (e)
				pipes[(e >> 1) - 1].live[e & 1]++;
		}
	return 0;
}

int proc_run_all(struct proc **ps, struct proc_prog *progs, int n)
{
	struct task *t;
	int rc;

	if (run_start(ps, progs, n) < 0)
		return -1;
	t = &tasks[run.order[0]];
	t->started = 1;
	run.active = 1;
	rc = proc_enter(ps[0], proc_user_addr(ps[0], user_prog_main), t->prog_at - 64, t->prog_at);
	run.active = 0;
	for (int i = 0; i < n; i++) {
		t = &tasks[run.order[i]];
		proc_copy(ps[i], t->prog_at, &progs[i], sizeof(progs[i]), 0);
		if (t->killed_by)
			report_diag("error: process %d of the run ended by signal %lu", i,
				    (unsigned long)t->killed_by);
	}
	return rc < 0 || run.failed ? -1 : 0;
}

/* Arches without a user mode (the sandbox): nothing runs, nothing here
 * is called; these keep the link whole. */
#define WEAK __attribute__((weak))
WEAK uint32_t user_regs_call(const struct user_regs *r) { (void)r; return 0; }
WEAK uint32_t user_regs_arg(const struct user_regs *r, int i) { (void)r, (void)i; return 0; }
WEAK void user_regs_set_result(struct user_regs *r, uint32_t v) { (void)r, (void)v; }
WEAK uintptr_t user_regs_pc(const struct user_regs *r) { (void)r; return 0; }
WEAK uintptr_t user_regs_sp(const struct user_regs *r) { (void)r; return 0; }
WEAK void user_regs_set_pc(struct user_regs *r, uintptr_t pc) { (void)r, (void)pc; }
WEAK void user_regs_restart(struct user_regs *r) { (void)r; }
WEAK void user_regs_start(struct user_regs *r, uintptr_t pc, uintptr_t sp, uint32_t arg)
{
	(void)r, (void)pc, (void)sp, (void)arg;
}
WEAK void user_regs_upcall(struct user_regs *r, uintptr_t pc, uintptr_t sp, uint32_t a0,
			   uint32_t a1, uint32_t a2)
{
	(void)r, (void)pc, (void)sp, (void)a0, (void)a1, (void)a2;
}
WEAK void user_regs_save(const struct user_regs *r, struct user_ctx *c) { (void)r, (void)c; }
WEAK void user_regs_load(struct user_regs *r, const struct user_ctx *c) { (void)r, (void)c; }
WEAK const char *user_ctx_invalid(const struct user_ctx *c, const struct user_regs *r)
{
	(void)c, (void)r;
	return "no user mode";
}
WEAK void user_regs_dump(const struct user_regs *r) { (void)r; }
WEAK const char user_prog_main[1], user_prog_signal[1];
