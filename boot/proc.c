/* Processes on bare metal (include/proc.h), over include/mmu.h's spaces
 * and include/user.h's user mode; no arch code here.
 *
 * Translated modes: a process is an address space whose window holds
 *   [0, text)            its text: user_code copied, MMU_USER | READ | EXEC
 *   [text, +data)        its data (or exec's bss), user read-write
 *   [MMAP_FIRST, ...)    mmap's regions, first fit, around the stack
 *   STACK_PAGE           its stack; the job (struct proc_job) at its top
 * (page indexes of the window).  The stack ends the window's first 4 MiB,
 * one page table on every arch but PAE, so that a process that maps
 * little costs the kernel what it did when the window was 4 MiB; mmap's
 * larger regions (lat_mmap's 8 MiB) go above it, with their own tables
 * and their own frames array (frames_hi).  The kernel writes them only through the
 * window, in the process's space, so that what a process costs the kernel
 * part of the TLB is the same whatever lies where in RAM.  fork shares
 * every page but the stack copy-on-write: both read-only, the first write
 * fault in either copies the page (or, the last one to hold it, just makes
 * it writable again).  mmap's part holds mappings (struct map): fresh
 * pages mapped at once, or a RAM file's pages (struct proc_file, a page
 * cache the kernel owns) mapped lazily: the first user-mode touch of each
 * page faults, and the fault hook maps the file's page there, shared.
 * Untranslated modes (405 real): a process is one run of RAM at its
 * physical address, text, data and stack in a row; fork copies it at once;
 * a file is mapped as its own pages.
 *
 * Page frames come from proc_mem.c's pool, a reference count each; the
 * bookkeeping (frames of each window page) is on the heap. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mmu_arch.h"
#include "proc_mem.h"
#include "proc_sched.h"
#include "report.h"
#include "user.h"

#define PAGE		4096u
#define WIN_PAGES	(MMU_SPACE_SIZE / PAGE)
#define LOW_PAGES	1024u			/* the first 4 MiB: frames[] */
#define MMAP_FIRST	(LOW_PAGES / 2)		/* mmap's pages: from the first 4 MiB's upper half */
#define STACK_PAGE	(LOW_PAGES - 1)
#define MAX_PROCS	PROC_SLOTS
#define MAX_REGIONS	16			/* untranslated: runs of RAM per process */
#define MAX_MAPS	16			/* translated: mmap's mappings per process */
#define COW		0x1u			/* frames[]: shared read-only, copy on write */
#define SHARED		0x2u			/* frames[]: a file's page, mapped shared */
#define RDONLY		0x4u			/* frames[]: made read-only by proc_mprotect */

struct proc_file {
	uintptr_t base;			/* its pages, contiguous (untranslated maps them so) */
	uint32_t pages;
	uint32_t *cache;		/* the page cache: each page's frame, as a kernel looks it up */
};

/* untranslated: a run of RAM, the process's own or (file) a file's */
struct region { uintptr_t at; uint32_t pages; const struct proc_file *file; };

/* translated: window pages [first, first + pages) of an mmap */
struct map {
	uint32_t first, pages;
	const struct proc_file *file;	/* 0: fresh pages, mapped at once */
	unsigned attr;			/* a file page's, when it faults in */
};

struct proc {
	int used;
	struct mmu_space *space;	/* translated; 0 untranslated */
	uintptr_t base;			/* its own address of page 0 */
	uint32_t text_pages, data_pages;
	uint32_t *frames;		/* translated: each window page's frame | COW | SHARED, 0 none */
	uint32_t *frames_hi;		/* ... of pages LOW_PAGES and up, once a mapping reaches them */
	struct map maps[MAX_MAPS];	/* translated: mmap's, pages 0 where unused */
	struct region regions[MAX_REGIONS];	/* untranslated: [0] text+data+stack */
};

static struct proc procs[MAX_PROCS];
static struct map *map_of(struct proc *p, uint32_t i);

/* Window page i's frames[] word: 0 where none (or no frames_hi yet).
 * Inlined, as the array indexing it replaced was: selftest derives the
 * kernel's code pages from the functions a path calls. */
#define INLINE static inline __attribute__((always_inline))
INLINE uint32_t frame_get(const struct proc *p, uint32_t i)
{
	return i < LOW_PAGES ? p->frames[i] : p->frames_hi ? p->frames_hi[i - LOW_PAGES] : 0;
}

/* Its word, to write: only pages mmap gave (map_new made frames_hi). */
INLINE uint32_t *frame_at(struct proc *p, uint32_t i)
{
	return i < LOW_PAGES ? &p->frames[i] : &p->frames_hi[i - LOW_PAGES];
}

/* The window pages p may hold: the loops' bound. */
INLINE uint32_t win_pages(const struct proc *p)
{
	return p->frames_hi ? WIN_PAGES : LOW_PAGES;
}

/* frames_hi for p, zeroed; -1 after saying why. */
static int frames_hi_new(struct proc *p)
{
	if (!p->frames_hi && (p->frames_hi = memalign(PAGE, (WIN_PAGES - LOW_PAGES) * 4)))
		memset(p->frames_hi, 0, (WIN_PAGES - LOW_PAGES) * 4);
	if (!p->frames_hi)
		report_diag("error: processes: no heap for a window's upper frames");
	return p->frames_hi ? 0 : -1;
}
static struct proc *running;		/* in user mode now: the fault hook's */
static char unhandled[80];		/* the last fault the hook did not take */
/* ---- slots, the current mode ---- */

static const struct mmu_mode *current_mode(void)
{
	if (mmu_current)
		return mmu_current;
	for (int i = 0; mmu_modes[i]; i++)	/* translation off: the untranslated one */
		if (!mmu_modes[i]->ops)
			return mmu_modes[i];
	return mmu_modes[0];
}

const char *proc_unavailable(void)
{
	return user_unavailable(current_mode());
}

/* An untranslated run of RAM given back: a file's pages stay the file's. */
static void region_free(struct region *r)
{
	for (uint32_t k = 0; !r->file && k < r->pages; k++)
		proc_frame_put(r->at + k * PAGE);
	r->pages = 0;
}

/* A process the watchdog cut short in user mode (the run loop longjmps
 * out of the PIT's exception, proc_run never returns): its probe ended,
 * and entering the next mode destroyed every space, so every process
 * still here is that probe's.  Their frames and bookkeeping go back. */
static void reclaim_cut_short(void)
{
	if (!running)
		return;
	report_diag("processes: a run was cut short (watchdog): its processes' memory freed");
	for (int i = 0; i < MAX_PROCS; i++) {
		struct proc *p = &procs[i];
		for (uint32_t k = 0; p->used && p->frames && k < win_pages(p); k++)
			if (frame_get(p, k))
				proc_frame_put(frame_get(p, k) & ~(PAGE - 1));
		for (int r = 0; p->used && r < MAX_REGIONS; r++)
			region_free(&p->regions[r]);
		free(p->frames);
		free(p->frames_hi);
		memset(p, 0, sizeof(*p));
	}
	running = 0;
	mmu_set_fault_hook(0);
	sched_forget();
}

static struct proc *proc_new(void)
{
	reclaim_cut_short();
	if (proc_unavailable() || proc_pool_init() < 0)
		return 0;
	for (int i = 0; i < MAX_PROCS; i++) {
		struct proc *p = &procs[i];
		if (p->used)
			continue;
		memset(p, 0, sizeof(*p));
		p->used = 1;
		if (!mmu_current)
			return p;
		p->base = MMU_SPACE_BASE;
		/* page-aligned: the entries of mmap's part lie in one page */
		p->frames = memalign(PAGE, LOW_PAGES * sizeof(*p->frames));
		if (p->frames)
			memset(p->frames, 0, LOW_PAGES * sizeof(*p->frames));
		p->space = p->frames ? mmu_space_create(0) : 0;
		if (p->space)
			return p;
		free(p->frames);
		p->used = 0;
		report_diag("error: processes: no address space for a new one");
		return 0;
	}
	report_diag("error: processes: more than %d at once", MAX_PROCS);
	return 0;
}

/* Whole pages a word at a time, as a kernel's copy_page and clear_page
 * (newlib's -Os memcpy and memset go byte by byte). */
static void pages_copy(uintptr_t to, uintptr_t from, uint32_t n)
{
	uint32_t *d = (uint32_t *)to;
	const uint32_t *s = (const uint32_t *)from;

	for (uint32_t i = 0; i < n * (PAGE / 4); i++)
		d[i] = s[i];
}

static void pages_zero(uintptr_t to, uint32_t n)
{
	uint32_t *d = (uint32_t *)to;

	for (uint32_t i = 0; i < n * (PAGE / 4); i++)
		d[i] = 0;
}

uintptr_t proc_data(const struct proc *p) { return p->base + p->text_pages * PAGE; }

static uintptr_t va_of(const struct proc *p, uint32_t i) { return p->base + i * PAGE; }

/* ---- translated: window pages, in the process's space (current) ---- */

/* Window page i of p: a fresh frame mapped user read-write, zeroed. */
static int page_new(struct proc *p, uint32_t i)
{
	uintptr_t f = proc_frames_alloc(1);

	if (!f || mmu_map(va_of(p, i), f, PAGE, MMU_USER | MMU_READ | MMU_WRITE) < 0) {
		if (f)
			proc_frame_put(f);
		return -1;
	}
	*frame_at(p, i) = f;
	pages_zero(va_of(p, i), 1);
	return 0;
}

static void page_drop(struct proc *p, uint32_t i)
{
	if (!frame_get(p, i))
		return;
	mmu_unmap(va_of(p, i), PAGE);
	proc_frame_put(frame_get(p, i) & ~(PAGE - 1));
	*frame_at(p, i) = 0;
}

/* Text pages 0..n-1: written through a writable mapping (user_code, then
 * zero padding up to `bytes`), then made read-execute. */
static int text_new(struct proc *p, uint32_t bytes)
{
	uint32_t n = (bytes + PAGE - 1) / PAGE, code = user_code_end - user_code;

	for (uint32_t i = 0; i < n; i++)
		if (page_new(p, i) < 0)
			return -1;
	memcpy((void *)p->base, user_code, code < bytes ? code : bytes);
	p->text_pages = n;
	return mmu_protect(p->base, n * PAGE, MMU_USER | MMU_READ | MMU_EXEC);
}

/* text (`text_bytes`), `data` zeroed pages after it, the stack: in p's
 * space, which is current.  Untranslated: one run of RAM. */
static int layout(struct proc *p, uint32_t text_bytes, uint32_t data)
{
	uint32_t text = (text_bytes + PAGE - 1) / PAGE;

	if (text + data > MMAP_FIRST) {
		report_diag("error: processes: %lu text and data pages: the window holds %u",
			    (unsigned long)(text + data), MMAP_FIRST);
		return -1;
	}
	p->data_pages = data;
	if (!p->space) {
		uint32_t n = text + data + 1, code = user_code_end - user_code;
		uintptr_t at = proc_frames_alloc(n);
		if (!at)
			return -1;
		p->regions[0] = (struct region){ at, n, 0 };
		p->base = at, p->text_pages = text;
		pages_zero(at, n);
		memcpy((void *)at, user_code, code < text_bytes ? code : text_bytes);
		return 0;
	}
	if (text_new(p, text_bytes) < 0)
		return -1;
	for (uint32_t i = text; i < text + data; i++)
		if (page_new(p, i) < 0)
			return -1;
	return page_new(p, STACK_PAGE);
}

uintptr_t proc_stack_top(const struct proc *p)
{
	return p->space ? va_of(p, STACK_PAGE + 1) : p->regions[0].at + p->regions[0].pages * PAGE;
}

/* ---- the interface ---- */

static struct proc *made(struct proc *p, int ok)
{
	if (p && p->space)
		mmu_space_switch(0);
	if (p && !ok) {
		proc_destroy(p);
		return 0;
	}
	return p;
}

uint32_t proc_max_data_pages(void)
{
	return MMAP_FIRST - (uint32_t)(user_code_end - user_code + PAGE - 1) / PAGE;
}

struct proc *proc_create(uint32_t data_pages)
{
	struct proc *p = proc_new();

	if (!p)
		return 0;
	if (p->space)
		mmu_space_switch(p->space);
	return made(p, layout(p, user_code_end - user_code, data_pages) == 0);
}

struct proc *proc_exec(uint32_t text_bytes, uint32_t bss_bytes)
{
	struct proc *p;

	if ((size_t)text_bytes < (size_t)(user_code_end - user_code)) {
		report_diag("error: exec: a %lu-byte image cannot hold the %lu-byte user routine",
			    (unsigned long)text_bytes, (unsigned long)(user_code_end - user_code));
		return 0;
	}
	if (!(p = proc_new()))
		return 0;
	if (p->space)
		mmu_space_switch(p->space);
	return made(p, layout(p, text_bytes, (bss_bytes + PAGE - 1) / PAGE) == 0);
}

/* fork, translated: every page of p but the stack shared copy-on-write
 * (text stays read-execute and shared; writable pages become read-only in
 * both), the stack copied through a kernel buffer. */
static int fork_space(struct proc *p, struct proc *c)
{
	static uint32_t stack_copy[PAGE / 4];
	uintptr_t sf;

	if (p->frames_hi && frames_hi_new(c) < 0)
		return -1;
	mmu_space_switch(p->space);
	for (uint32_t i = 0; i < win_pages(p); i++) {
		uint32_t f = frame_get(p, i);
		if (!f || i == STACK_PAGE)
			continue;
		if (i >= p->text_pages && !(f & (COW | SHARED | RDONLY))) {
			if (mmu_protect(va_of(p, i), PAGE, MMU_USER | MMU_READ) < 0)
				return -1;
			*frame_at(p, i) = f | COW;
		}
	}
	pages_copy((uintptr_t)stack_copy, va_of(p, STACK_PAGE), 1);
	mmu_space_switch(c->space);
	memcpy(c->maps, p->maps, sizeof(c->maps));
	for (uint32_t i = 0; i < win_pages(p); i++) {
		uint32_t f = frame_get(p, i);
		unsigned attr = MMU_USER | MMU_READ | (i < p->text_pages ? MMU_EXEC : 0);
		if (f & SHARED)				/* a file's page: shared, as it is */
			attr = map_of(p, i)->attr;
		if (!f || i == STACK_PAGE)
			continue;
		if (mmu_map(va_of(c, i), f & ~(PAGE - 1), PAGE, attr) < 0)
			return -1;
		++*proc_frame_ref(f & ~(PAGE - 1));
		*frame_at(c, i) = f;
	}
	if (!(sf = proc_frames_alloc(1)) || mmu_map(va_of(c, STACK_PAGE), sf, PAGE,
					       MMU_USER | MMU_READ | MMU_WRITE) < 0)
		return -1;
	c->frames[STACK_PAGE] = sf;
	pages_copy(va_of(c, STACK_PAGE), (uintptr_t)stack_copy, 1);
	return 0;
}

struct proc *proc_fork(struct proc *p)
{
	struct proc *c = proc_new();

	if (!c)
		return 0;
	c->text_pages = p->text_pages, c->data_pages = p->data_pages;
	if (c->space)
		return made(c, fork_space(p, c) == 0);
	/* Untranslated: no MMU, so the whole run is copied now. */
	uint32_t n = p->regions[0].pages;
	uintptr_t at = proc_frames_alloc(n);
	if (!at)
		return made(c, 0);
	c->regions[0] = (struct region){ at, n, 0 };
	c->base = at;
	pages_copy(at, p->regions[0].at, n);
	return c;
}

/* The mapping window page i of p belongs to, or 0. */
static struct map *map_of(struct proc *p, uint32_t i)
{
	for (int m = 0; m < MAX_MAPS; m++)
		if (p->maps[m].pages && i - p->maps[m].first < p->maps[m].pages)
			return &p->maps[m];
	return 0;
}

/* A write to a copy-on-write page (translation as the exception left it:
 * frames are RAM, mapped 1:1 in every mode). */
static int cow_fault(struct proc *p, uint32_t i)
{
	uintptr_t f = frame_get(p, i) & ~(PAGE - 1), nf = f;

	if (*proc_frame_ref(f) > 1) {		/* still shared: copy */
		if (!(nf = proc_frames_alloc(1)))
			return 0;
		pages_copy(nf, f, 1);
		proc_frame_put(f);
	}			/* else the last holder: writable again, no copy */
	if (mmu_map(va_of(p, i), nf, PAGE, MMU_USER | MMU_READ | MMU_WRITE) < 0)
		return 0;
	*frame_at(p, i) = nf;
	return MMU_FAULT_RETRY;
}

/* A first touch of a file-mapped page: the file's page from its page
 * cache, mapped shared (no copy), one reference more.  Run with the
 * kernel's translation (user_kernel_call), as a kernel's fault path. */
struct fault_at { struct proc *p; uint32_t i; };

static int file_fault(void *arg)
{
	struct proc *p = ((struct fault_at *)arg)->p;
	uint32_t i = ((struct fault_at *)arg)->i;
	const struct map *m = map_of(p, i);
	uintptr_t f = m->file->cache[i - m->first];

	if (mmu_map(va_of(p, i), f, PAGE, m->attr) < 0)
		return 0;
	++*proc_frame_ref(f);
	*frame_at(p, i) = f | SHARED;
	return MMU_FAULT_RETRY;
}

/* The fault hook while a process runs: copy-on-write, a file page's first
 * touch; anything else is a fault outside what the process may do. */
static int proc_fault(uintptr_t addr, int write, int protection)
{
	struct proc *p = running;
	uint32_t i = (addr - MMU_SPACE_BASE) / PAGE;
	const struct map *m;

	if (!p || !p->space)
		return 0;
	if (addr - MMU_SPACE_BASE < MMU_SPACE_SIZE) {
		if (write && protection && (frame_get(p, i) & COW))
			return cow_fault(p, i);
		if (!protection && !frame_get(p, i) && (m = map_of(p, i)) && m->file) {
			struct fault_at at = { p, i };
			return user_kernel_call(file_fault, &at);
		}
	}
	/* Not ours: a SIGSEGV handler may take it (user_fault), else user
	 * mode ends and proc_run says which fault it was. */
	snprintf(unhandled, sizeof(unhandled), "a %s%s at %#lx outside its mappings' rights",
		 protection ? "protection fault on a " : "page fault on a ",
		 write ? "write" : "read or fetch", (unsigned long)addr);
	return 0;
}

/* User mode in p (its space current) with the fault hook on. */
static int enter(struct proc *p, uintptr_t entry, uintptr_t sp, uintptr_t arg)
{
	int rc;

	running = p;
	unhandled[0] = 0;
	mmu_set_fault_hook(proc_fault);
	rc = user_enter(entry, sp, arg);
	mmu_set_fault_hook(0);
	running = 0;
	return rc;
}

int proc_enter(struct proc *p, uintptr_t entry, uintptr_t sp, uintptr_t arg)
{
	int rc;

	if (p->space && mmu_space_switch(p->space) < 0)
		return -1;
	rc = enter(p, entry, sp, arg);
	if (mmu_current)
		mmu_space_switch(0);
	return rc;		/* -1: the reason printed where user mode ended */
}

int proc_run(struct proc *p, struct proc_job *job)
{
	uintptr_t top = proc_stack_top(p), at = top - 32, sp = top - 64;
	int rc;

	if (p->space && mmu_space_switch(p->space) < 0)
		return -1;
	*(struct proc_job *)at = *job;
	rc = enter(p, p->base, sp, at);
	if (rc == 0)
		*job = *(struct proc_job *)at;
	if (p->space)
		mmu_space_switch(0);
	if (rc < 0)
		report_diag("error: a process's user mode ended by a fault nobody handled%s%s "
			    "(register dump above)", unhandled[0] ? ": " : "", unhandled);
	return rc;
}

uint32_t proc_mmap_room(void) { return (WIN_PAGES - LOW_PAGES) * PAGE; }
uint32_t proc_mmap_room_first(void) { return (STACK_PAGE - MMAP_FIRST) * PAGE; }
uint32_t proc_file_room(void) { return proc_pool_init() < 0 ? 0 : proc_pool_bytes() / 2; }

/* First fit: n window pages of mmap's part no mapping holds, and a free
 * slot for it; 0 after saying why. */
static struct map *map_new(struct proc *p, uint32_t n)
{
	struct map *slot = 0;
	uint32_t first = MMAP_FIRST;

	for (int m = 0; m < MAX_MAPS; m++)
		slot = !slot && !p->maps[m].pages ? &p->maps[m] : slot;
	for (uint32_t i = MMAP_FIRST; i < WIN_PAGES && i - first < n; i++)
		if (i == STACK_PAGE || map_of(p, i))
			first = i + 1;
	if (!slot || WIN_PAGES - first < n) {
		report_diag("error: mmap: %s", slot ? "no room in the window's mmap part"
						    : "a process's mappings all in use");
		return 0;
	}
	if (first + n > LOW_PAGES && frames_hi_new(p) < 0)
		return 0;
	*slot = (struct map){ first, n, 0, 0 };
	return slot;
}

/* Untranslated: a run of RAM, fresh (zeroed) or a file's own pages. */
static uintptr_t region_new(struct proc *p, uint32_t n, const struct proc_file *file)
{
	int i;

	for (i = 1; i < MAX_REGIONS && p->regions[i].pages; i++)
		;
	uintptr_t at = i == MAX_REGIONS ? 0 : file ? file->base : proc_frames_alloc(n);
	if (!at) {
		if (i == MAX_REGIONS)
			report_diag("error: mmap: a process's regions all in use");
		return 0;
	}
	p->regions[i] = (struct region){ at, n, file };
	if (!file)
		pages_zero(at, n);
	return at;
}

/* ---- for the scheduler (proc_sched.h) ---- */

int proc_slot(const struct proc *p) { return p - procs; }
uintptr_t proc_frames_at(const struct proc *p) { return (uintptr_t)p->frames; }
uintptr_t proc_table_at(const struct proc *p) { return proc_table_n(p, 0); }

uintptr_t proc_table_n(const struct proc *p, unsigned i)
{
	return p->space && i < sizeof(p->space->window) / sizeof(p->space->window[0]) ?
	       p->space->window[i] : 0;
}

uintptr_t proc_user_addr(const struct proc *p, const char *sym)
{
	return p->base + (sym - user_code);
}

void proc_copy(struct proc *p, uintptr_t at, void *buf, size_t bytes, int to_user)
{
	if (p->space)
		mmu_space_switch(p->space);
	if (to_user)
		memcpy((void *)at, buf, bytes);
	else
		memcpy(buf, (const void *)at, bytes);
	if (p->space)
		mmu_space_switch(0);
}

void proc_switch(struct proc *p)
{
	if (p->space)
		mmu_space_switch(p->space);
	running = p;
}

int proc_user_range(const struct proc *p, uintptr_t addr, uint32_t bytes, int write)
{
	uintptr_t end = addr + bytes;

	if (end < addr)
		return 0;
	if (!p->space) {
		for (int r = 0; r < MAX_REGIONS; r++) {
			uintptr_t at = p->regions[r].at, to = at + p->regions[r].pages * PAGE;
			if (p->regions[r].pages && addr >= at && end <= to)
				return !write || r > 0 || addr >= at + p->text_pages * PAGE;
		}
		return 0;
	}
	if (addr < p->base || end > p->base + MMU_SPACE_SIZE)
		return 0;
	for (uint32_t i = (addr - p->base) / PAGE; i <= (end - 1 - p->base) / PAGE; i++)
		if (!frame_get(p, i) || (write && (i < p->text_pages ||
						 (frame_get(p, i) & (COW | RDONLY)) ||
						 ((frame_get(p, i) & SHARED) &&
						  !(map_of((struct proc *)p, i)->attr & MMU_WRITE)))))
			return 0;
	return 1;
}

uintptr_t proc_mmap(struct proc *p, uint32_t bytes)
{
	uint32_t n = (bytes + PAGE - 1) / PAGE, i;
	struct map *m;

	if (!n)
		return 0;
	if (!p->space)
		return region_new(p, n, 0);
	if (!(m = map_new(p, n)))
		return 0;
	mmu_space_switch(p->space);
	for (i = m->first; i < m->first + n; i++)
		if (page_new(p, i) < 0) {
			while (i-- > m->first)
				page_drop(p, i);
			m->pages = 0;
			mmu_space_switch(0);
			return 0;
		}
	mmu_space_switch(0);
	return va_of(p, m->first);
}

uintptr_t proc_mmap_file(struct proc *p, struct proc_file *f, uint32_t bytes, int writable)
{
	uint32_t n = (bytes + PAGE - 1) / PAGE;
	struct map *m;

	if (!n || n > f->pages) {
		report_diag("error: mmap: %lu bytes of a %lu-page file", (unsigned long)bytes,
			    (unsigned long)f->pages);
		return 0;
	}
	if (!p->space)
		return region_new(p, n, f);
	if (!(m = map_new(p, n)))
		return 0;
	m->file = f;
	m->attr = MMU_USER | MMU_READ | (writable ? MMU_WRITE : 0);
	return va_of(p, m->first);	/* no entry yet: each page faults in */
}

int proc_munmap(struct proc *p, uintptr_t addr, uint32_t bytes)
{
	uint32_t n = (bytes + PAGE - 1) / PAGE, i0 = (addr - p->base) / PAGE;
	struct map *m = p->space && !(addr & (PAGE - 1)) && addr - p->base < MMU_SPACE_SIZE ?
			map_of(p, i0) : 0;

	if (!p->space) {
		for (int r = 1; r < MAX_REGIONS; r++)
			if (p->regions[r].pages && p->regions[r].at == addr) {
				region_free(&p->regions[r]);
				return 0;
			}
		report_diag("error: munmap %#lx: not a region mmap gave", (unsigned long)addr);
		return -1;
	}
	if (!m || m->first != i0 || m->pages != n) {
		report_diag("error: munmap %#lx+%#lx: not a mapping mmap gave", (unsigned long)addr,
			    (unsigned long)bytes);
		return -1;
	}
	/* The entries that exist (a file's untouched pages have none), each
	 * unmapped and its TLB entry dropped; a file's pages stay its own. */
	mmu_space_switch(p->space);
	for (uint32_t i = i0; i < i0 + n; i++)
		page_drop(p, i);
	mmu_space_switch(0);
	m->pages = 0;
	return 0;
}

int proc_mprotect(struct proc *p, uintptr_t addr, uint32_t bytes, int writable)
{
	uint32_t i0 = (addr - p->base) / PAGE, n = (bytes + PAGE - 1) / PAGE;
	int r = 0;

	if (!p->space) {
		report_diag("error: mprotect: no translation in this mode, so no protection");
		return -1;
	}
	if (addr & (PAGE - 1) || addr < p->base || i0 < p->text_pages || i0 + n > WIN_PAGES ||
	    (i0 <= STACK_PAGE && i0 + n > STACK_PAGE)) {
		report_diag("error: mprotect %#lx+%#lx: not the process's data or mmap pages",
			    (unsigned long)addr, (unsigned long)bytes);
		return -1;
	}
	mmu_space_switch(p->space);
	for (uint32_t i = i0; i < i0 + n && r == 0; i++)
		if (!frame_get(p, i) || frame_get(p, i) & COW)
			r = -1;
		else if (!(r = mmu_protect(va_of(p, i), PAGE, MMU_USER | MMU_READ |
					   (writable ? MMU_WRITE : 0))))
			*frame_at(p, i) = (frame_get(p, i) & ~RDONLY) | (writable ? 0 : RDONLY);
	mmu_space_switch(0);
	if (r < 0)
		report_diag("error: mprotect %#lx+%#lx: a page unmapped or shared copy-on-write",
			    (unsigned long)addr, (unsigned long)bytes);
	return r;
}

void proc_destroy(struct proc *p)
{
	if (!p || !p->used)
		return;
	sched_proc_gone(p);
	if (p->space) {
		mmu_space_switch(p->space);
		for (uint32_t i = 0; i < win_pages(p); i++)
			page_drop(p, i);
		mmu_space_switch(0);
		mmu_space_destroy(p->space);
	}
	for (int r = 0; r < MAX_REGIONS; r++)
		region_free(&p->regions[r]);
	free(p->frames);
	free(p->frames_hi);
	memset(p, 0, sizeof(*p));
}

/* ---- the RAM file ---- */

uint32_t proc_file_word(uint32_t offset) { return 0x5a5a0000u ^ offset; }

struct proc_file *proc_file_create(uint32_t bytes)
{
	uint32_t n = (bytes + PAGE - 1) / PAGE;
	struct proc_file *f;

	reclaim_cut_short();
	if (!n || proc_pool_init() < 0)
		return 0;
	if (!(f = calloc(1, sizeof(*f))) || !(f->cache = malloc(n * sizeof(*f->cache)))) {
		report_diag("error: a %lu-page file: no heap for its page cache", (unsigned long)n);
		free(f);
		return 0;
	}
	if (!(f->base = proc_frames_alloc(n))) {	/* contiguous: untranslated maps it so */
		free(f->cache);
		free(f);
		return 0;
	}
	f->pages = n;
	/* where its kernel structures lie (selftest derives a fault's kernel
	 * pages from it) */
	report_diag("processes: a %lu-page file: frames %#lx, page cache %#lx, their reference "
		    "counts %#lx, its record %#lx", (unsigned long)n, (unsigned long)f->base,
		    (unsigned long)f->cache, (unsigned long)proc_frame_ref(f->base), (unsigned long)f);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t *w = (uint32_t *)(f->base + k * PAGE);
		f->cache[k] = f->base + k * PAGE;
		for (uint32_t o = 0; o < PAGE / 4; o++)
			w[o] = proc_file_word(k * PAGE + o * 4);
	}
	return f;
}

/* Its pages' own references dropped; a page still mapped somewhere is
 * freed by its last unmap. */
void proc_file_destroy(struct proc_file *f)
{
	if (!f)
		return;
	for (uint32_t k = 0; k < f->pages; k++)
		proc_frame_put(f->cache[k]);
	free(f->cache);
	free(f);
}

/* Arches without a user mode yet (include/user.h): proc_unavailable()
 * says so, and no process is made. */
__attribute__((weak)) const char *user_unavailable(const struct mmu_mode *m)
{
	(void)m;
	return "this arch has no user mode yet (include/user.h)";
}
__attribute__((weak)) int user_enter(uintptr_t entry, uintptr_t sp, uintptr_t arg)
{
	(void)entry, (void)sp, (void)arg;
	return -1;
}
__attribute__((weak)) void user_set_null_call(void (*fn)(void)) { (void)fn; }
__attribute__((weak)) int user_kernel_call(int (*fn)(void *), void *arg) { return fn(arg); }
__attribute__((weak)) const char user_code[1], user_code_end[1];
