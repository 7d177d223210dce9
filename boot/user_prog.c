/* The user program of the scheduled runs (include/proc.h struct
 * proc_prog, boot/sched.c): C that runs in user mode on every arch with a
 * user mode, copied onto a process's text page with the user routine.
 * So it must run wherever it lands: built -fPIC, no global data, no jump
 * tables, no library calls, only static functions in its one section
 * (.user_code.prog, inside [user_code, user_code_end) by the linker
 * scripts); the Makefile rejects an object with any relocation.  The
 * kernel enters it at user_prog_main and user_prog_signal (their offsets
 * from user_code), the system calls are the arch's user_sys.h. */
#define USER_PROG_SOURCE
#include "proc.h"
#include "user.h"
#include "user_sys.h"

#define PROG	__attribute__((section(".user_code.prog")))

USER_UPCALL void user_prog_main(struct proc_prog *g) __attribute__((noreturn));
USER_UPCALL void user_prog_signal(uint32_t sig, uint32_t frame, uint32_t cookie)
	__attribute__((noreturn));

static PROG uint32_t sum_words(uint32_t at, uint32_t bytes)
{
	const volatile uint32_t *w = (const volatile uint32_t *)at;
	uint32_t s = 0;

	for (uint32_t i = 0; i < bytes / 4; i++)
		s += w[i];
	return s;
}

static PROG int fail(struct proc_prog *g, uint32_t step, int32_t r)
{
	g->status = step, g->err = r;
	return -1;
}

static PROG int put(struct proc_prog *g, uint32_t fd, uint32_t word)
{
	int32_t r = user_sys(USER_CALL_WRITE, fd, (uint32_t)&word, 4);

	return r == 4 ? 0 : fail(g, PROC_ERR_WRITE, r);
}

static PROG int get(struct proc_prog *g, uint32_t fd, uint32_t *word)
{
	int32_t r = user_sys(USER_CALL_READ, fd, (uint32_t)word, 4);

	return r == 4 ? 0 : fail(g, PROC_ERR_READ, r);
}

/* lat_ctx's ring member (and lat_pipe's two): read, sum, write on. */
static PROG void ring(struct proc_prog *g)
{
	uint32_t tok = 0;

	if (g->first && put(g, 1, 1) < 0)
		return;
	for (uint32_t i = 0; i < g->rounds; i++) {
		if (get(g, 0, &tok) < 0)
			return;
		g->sum += sum_words(g->data, g->bytes);
		if (g->first && i + 1 == g->rounds)
			break;
		if (put(g, 1, tok + 1) < 0)
			return;
	}
	g->token = tok;
}

/* lat_ctx's overhead: the same writes, reads and sums, no other process. */
static PROG void alone(struct proc_prog *g)
{
	uint32_t tok = 0;

	for (uint32_t i = 0; i < g->rounds; i++)
		for (uint32_t j = 0; j < g->pipes; j++) {
			if (put(g, 2 * j + 1, tok + 1) < 0 || get(g, 2 * j, &tok) < 0)
				return;
			g->sum += sum_words(g->data, g->bytes);
		}
	g->token = tok;
}

static PROG int handler(struct proc_prog *g, uint32_t sig)
{
	int32_t r = user_sys(USER_CALL_SIGACTION, sig, 1, (uint32_t)g);

	return r == 0 ? 0 : fail(g, PROC_ERR_SIGACTION, r);
}

static PROG void kill_rounds(struct proc_prog *g)
{
	if (g->handler && handler(g, g->sig) < 0)
		return;
	for (uint32_t i = 0; i < g->rounds; i++) {
		int32_t r = user_sys(USER_CALL_KILL, g->sig, 0, 0);
		if (r != 0) {
			fail(g, PROC_ERR_KILL, r);
			return;
		}
	}
}

/* The handler's entry (sig, its frame, the cookie sigaction gave: the
 * prog): count, and return by sigreturn; lat_sig prot's last catch
 * resumes past the store, every other retries it. */
PROG USER_UPCALL __attribute__((noreturn)) void user_prog_signal(uint32_t sig, uint32_t frame,
								 uint32_t cookie)
{
	struct proc_prog *g = (struct proc_prog *)cookie;
	struct proc_sigframe *f = (struct proc_sigframe *)frame;

	(void)sig;
	if (++g->caught >= g->rounds && g->op == PROC_OP_PROT)
		f->pc += USER_STORE_BYTES;
	int32_t r = user_sys(USER_CALL_SIGRETURN, frame, 0, 0);
	fail(g, PROC_ERR_SIGRETURN, r);		/* sigreturn came back: a bad frame */
	for (;;)
		user_sys(USER_CALL_EXIT, 0, 0, 0);
}

PROG USER_UPCALL __attribute__((noreturn)) void user_prog_main(struct proc_prog *g)
{
	uint32_t tok;

	switch (g->op) {
	case PROC_OP_RING:
		ring(g);
		break;
	case PROC_OP_ALONE:
		alone(g);
		break;
	case PROC_OP_KILL:
		kill_rounds(g);
		break;
	case PROC_OP_PROT:
		if (handler(g, PROC_SIGSEGV) == 0 && g->rounds)
			user_store(g->prot_addr, 1);	/* faults `rounds` times */
		break;
	case PROC_OP_SIGRETURN:
		fail(g, PROC_ERR_SIGRETURN, user_sys(USER_CALL_SIGRETURN, (uint32_t)g, 0, 0));
		break;
	case PROC_OP_READ:
		if (get(g, 0, &tok) == 0)
			g->token = tok;
		break;
	case PROC_OP_SPIN:
		for (volatile uint32_t *n = &g->sum;; (*n)++)
			;
	}
	for (;;)
		user_sys(USER_CALL_EXIT, 0, 0, 0);
}
