/* Processes, as the trap, fork, exec and mmap probes need them (issue 20's
 * user/kernel split).  On bare metal the image is the kernel and a process
 * is an address space of the current mode whose window [MMU_SPACE_BASE,
 * +MMU_SPACE_SIZE) holds user pages (MMU_USER): its text (the arch's user
 * routine, copied), its data and a stack; its code runs in user mode (405
 * problem state, MSR[PR] = 1; i386 ring 3) and enters the kernel by the
 * system-call trap (sc; int $0x80).  Where the mode has no translation
 * (405 real, i386 flat) a process's pages are plain RAM at their physical
 * addresses, still run in user mode, and fork copies at once (no MMU, no
 * copy-on-write).  The sandbox implements the same calls with Linux's
 * processes by LMbench's methods (getppid, fork+exit+wait, fork+execve,
 * mmap/munmap of a file): there proc_run's null calls are getppid(). */
#ifndef PROC_H
#define PROC_H
#include <stddef.h>
#include <stdint.h>

struct probe_ctx;

/* What the user routine does, given its job (on a user page):
 * `rounds` times: touch `touch_pages` addresses from touch_base, `stride`
 * bytes apart (one word each: a load, or a store of the round number where
 * `write`), then make `calls` null system calls; then the exit call.
 * stride 0 means 4096 (a word per 4K page); a negative one goes down, as
 * lat_pagefault's touches do.  Addresses are the process's own (window
 * addresses, or physical where untranslated). */
struct proc_job {
	uint32_t rounds;
	uint32_t touch_base;
	uint32_t touch_pages;
	uint32_t write;
	uint32_t calls;
	uint32_t sum;		/* out: the sum of the words loaded (keeps loads real) */
	int32_t stride;		/* bytes from one touch to the next; 0: 4096 */
};

struct proc;

/* Why the current mode (or arch) has no processes, or 0. */
const char *proc_unavailable(void);

/* The kernel working set every null call touches: `bytes` (rounded up to
 * 4K pages, at most 64 KiB) of kernel data apart from the kernel stack, one
 * word per cache line, as a real system call's task record, tables and
 * stack; 0: the trap alone.  Bare metal; the sandbox's kernel has its own. */
int proc_set_kernel_set(uint32_t bytes);

/* A new process with `data_pages` 4K pages of zeroed data at
 * proc_data(p), its text and stack; 0 after printing why. */
struct proc *proc_create(uint32_t data_pages);
uint32_t proc_max_data_pages(void);		/* the most proc_create takes */
uintptr_t proc_data(const struct proc *p);	/* its data, in its own addresses */
/* fork: a child sharing p's data pages copy-on-write (both read-only; a
 * write fault in either copies the page), text shared, stack copied. */
struct proc *proc_fork(struct proc *p);
/* exec: a fresh process from a `text_bytes` image: text copied from the
 * kernel's copy of the user routine and padding, `bss_bytes` zeroed, a
 * stack; LMbench's exec proc is fork+execve, this is the execve half. */
struct proc *proc_exec(uint32_t text_bytes, uint32_t bss_bytes);
/* Run p's user routine with *job (copied onto p's data, results copied
 * back): switch to p's space, enter user mode, back in the kernel space
 * when it exits.  0, or -1 after printing why (a fault nobody handled). */
int proc_run(struct proc *p, struct proc_job *job);
/* mmap: `bytes` of fresh pages (whole pages) mapped user read-write in p
 * at the returned address (its own); munmap unmaps and frees them. 0 after
 * printing why. */
uintptr_t proc_mmap(struct proc *p, uint32_t bytes);
int proc_munmap(struct proc *p, uintptr_t addr, uint32_t bytes);
/* Data pages of p made read-only (0) or read-write (1) again: lat_sig
 * prot's page.  0, or -1 after printing why (untranslated: no protection). */
int proc_mprotect(struct proc *p, uintptr_t addr, uint32_t bytes, int writable);
void proc_destroy(struct proc *p);

/* A RAM "file": `bytes` (whole pages) of page-cache pages the kernel owns,
 * each 32-bit word the pattern proc_file_word(its byte offset); 0 after
 * printing why.  Its pages stay until proc_file_destroy, mapped or not. */
struct proc_file;
struct proc_file *proc_file_create(uint32_t bytes);
void proc_file_destroy(struct proc_file *f);
uint32_t proc_file_word(uint32_t offset);
/* mmap of the first `bytes` of f, shared (read-only, or read-write where
 * `writable`), into p's mmap part: no entry made (lazily); a user-mode
 * fault in it maps the file's page there (no copy).  Untranslated (no MMU)
 * the file's own pages, at hand.  proc_munmap takes exactly what an mmap
 * gave, removes its entries (and their TLB entries) and keeps the file's
 * pages; anything else is an error.  0 after printing why. */
uintptr_t proc_mmap_file(struct proc *p, struct proc_file *f, uint32_t bytes, int writable);
uint32_t proc_mmap_room(void);		/* bytes the largest mapping may have (above the stack) */
uint32_t proc_mmap_room_first(void);	/* ... in the window's first 4 MiB: no new page table */
uint32_t proc_file_room(void);		/* bytes a RAM file may have: half the frame pool; 0 none */

/* ---- pipes, the scheduler and signals (boot/sched.c) ----
 * The processes of a scheduled run execute the user program
 * (boot/user_prog.c) with a struct proc_prog (copied onto each one's
 * stack, copied back at the end).  A process blocks in a pipe read with
 * nothing to read (or a write with no room) and the next runnable one
 * runs: a context switch at the system-call boundary, with the mode's
 * address-space switch.  Signals: a handler per signal, delivered on the
 * way out of the kernel in a frame on the user stack, ended by sigreturn;
 * a write to a read-only page with a SIGSEGV handler is delivered to it. */
#define PROC_FDS	34		/* descriptors per process */
#define PROC_SIGUSR1	10
#define PROC_SIGSEGV	11
#define PROC_SIG_MAGIC	0x5349474eu	/* "SIGN": struct proc_sigframe's */

enum proc_op {
	PROC_OP_RING = 1,	/* ring member (lat_ctx, lat_pipe) */
	PROC_OP_ALONE,		/* lat_ctx's overhead: `pipes` pipes to itself */
	PROC_OP_KILL,		/* lat_sig catch: kill(self, sig) `rounds` times */
	PROC_OP_PROT,		/* lat_sig prot: one store to a read-only page, retried */
	PROC_OP_SIGRETURN,	/* bad input: a sigreturn with no signal frame */
	PROC_OP_READ,		/* bad input: one read of fd 0 */
	PROC_OP_SPIN,		/* bad input: loops for ever, no call */
};

/* PROC_OP_RING: `rounds` times read fd 0 (one word), sum `bytes` at
 * `data`, write the word + 1 to fd 1; with `first` it writes 1 first and
 * leaves out its last write.  PROC_OP_ALONE: `rounds` times, for each of
 * `pipes` pipes, write fd 2i+1, read fd 2i and sum.  PROC_OP_KILL and
 * PROC_OP_PROT install the handler first where `handler` is set. */
struct proc_prog {
	uint32_t op, rounds;
	uint32_t first, pipes;
	uint32_t data, bytes;
	uint32_t sig, handler, prot_addr;
	uint32_t token;			/* out: the last word read */
	uint32_t sum;			/* out: of the words summed */
	uint32_t caught;		/* out: signals the handler took */
	uint32_t status;		/* out: 0, or the step that failed (PROC_ERR_*) */
	int32_t err;			/* out: that call's result */
};
enum { PROC_ERR_READ = 1, PROC_ERR_WRITE, PROC_ERR_SIGACTION, PROC_ERR_KILL,
       PROC_ERR_SIGRETURN, PROC_ERR_TOKEN };

/* The signal frame on the user stack; the arch's saved context follows
 * (include/user.h).  The handler may move `pc`, where the interrupted code
 * resumes (lat_sig prot's last catch resumes past the store). */
struct proc_sigframe {
	uint32_t magic, sig, pc, pad;
};

/* A pipe from w's descriptor wfd to r's rfd (either process may be 0: that
 * end is held by nobody).  0, or -1 after printing why.  Pipes live until
 * both ends' processes are destroyed. */
int proc_pipe(struct proc *w, int wfd, struct proc *r, int rfd);
/* Run ps[0..n) with progs[i] until every one has exited (each pipe
 * emptied first; ps[0] runs first; results copied back).  0, or -1 after
 * printing why: a deadlock (every process blocked), a process ended by a
 * signal's default action, a fault nobody handled, a bad sigreturn frame. */
int proc_run_all(struct proc **ps, struct proc_prog *progs, int n);
/* Context switches of the last proc_run_all. */
uint32_t proc_switches(void);

/* For the ctx and pipe probes (tests/proc_common.c): a ring of n
 * processes, each with `bytes` of data to sum, pipe i from process i to
 * i + 1 (mod n), and one more process with n pipes to itself for
 * lat_ctx's overhead.  probe_ring_run: `rounds` rounds of the ring (alone:
 * of that process), the ticks they took; 0 with r->failed and r->why set
 * when a process failed or the token came back wrong. */
#define PROBE_RING_MAX	16
struct probe_ring {
	struct proc *p[PROBE_RING_MAX + 1];	/* the ring, then the one alone */
	struct proc_prog prog[PROBE_RING_MAX + 1];
	unsigned n, bytes;
	int failed;
	char why[96];
};
int probe_ring_open(struct probe_ring *r, unsigned n, unsigned bytes);	/* 0, or -1 */
uint64_t probe_ring_run(struct probe_ring *r, uint32_t rounds, int alone);
void probe_ring_close(struct probe_ring *r);
/* One round's counts (probe_sample_op_counts as `<prefix>_round_*`) and
 * its context switches, exactly: see proc_common.c.  0 switches after a
 * diagnostic where the runs failed. */
uint32_t probe_ring_round_counts(struct probe_ctx *ctx, struct probe_ring *r, const char *probe,
				 const char *prefix);
/* The ring's kernel pages off the image, as diagnostics (translated
 * modes): each ring process's frames array and the pipe it writes, as
 * page numbers, for the tests' TLB models (set-associative TLBs need
 * where they lie). */
struct probe_ctx;
void probe_ring_pages(struct probe_ctx *ctx, const char *probe, const char *name,
		      const struct probe_ring *r);
/* Where those lie: p's frames array (translated; 0 untranslated), the
 * page of the pipe p's descriptor fd holds (0: none). */
uintptr_t proc_frames_at(const struct proc *p);
uintptr_t proc_table_at(const struct proc *p);	/* its window's page table; 0 none */
uintptr_t proc_table_n(const struct proc *p, unsigned i);	/* ... its i-th; 0 none */
uintptr_t proc_pipe_page(const struct proc *p, int fd);

#endif
