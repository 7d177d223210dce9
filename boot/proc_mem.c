/* The processes' memory (boot/proc.c): the frame pool, RAM taken once off
 * the top of probe memory (boot/mem.c: below the page tables, above what
 * probes allocate, so probe_mem_reset never reaches it), a reference count
 * per frame; and the null call's kernel working set, on the heap: kernel
 * data in the image's low memory, as a kernel's task records and tables
 * lie in its own (pinned or large-page) mapping. */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include "mem.h"
#include "probe.h"
#include "proc_mem.h"
#include "report.h"
#include "user.h"

#define PAGE		4096u
#define POOL_MAX	(16u << 20)	/* lat_mmap's 8 MiB file and the processes */
#define KSET_MAX	(64u << 10)

static uintptr_t pool_base;
static uint32_t pool_pages;
static uint8_t *pool_ref;		/* references to each pool frame, 0 free */

/* ---- the frame pool ---- */

uint32_t proc_pool_bytes(void) { return pool_pages * PAGE; }

int proc_pool_init(void)
{
	if (pool_base)
		return 0;
	size_t avail = probe_mem_avail(PAGE, 0), bytes = POOL_MAX;
	if (avail / 2 < bytes)
		bytes = avail / 2 & ~(size_t)(PAGE - 1);
	pool_ref = bytes >= (1u << 20) ? calloc(bytes / PAGE, 1) : 0;
	pool_base = pool_ref ? mem_reserve_top(bytes) : 0;
	if (!pool_base) {
		report_diag("error: processes: no room for a %lu KiB page pool (probe memory "
			    "has %lu KiB free)", (unsigned long)bytes >> 10, (unsigned long)avail >> 10);
		free(pool_ref);
		pool_ref = 0;
		return -1;
	}
	pool_pages = bytes / PAGE;
	return 0;
}

/* n contiguous free frames (first fit), each with one reference; 0 after
 * saying so. */
uintptr_t proc_frames_alloc(uint32_t n)
{
	for (uint32_t i = 0, run = 0; i < pool_pages; i++) {
		run = pool_ref[i] ? 0 : run + 1;
		if (run == n) {
			memset(pool_ref + i + 1 - n, 1, n);
			return pool_base + (uintptr_t)(i + 1 - n) * PAGE;
		}
	}
	report_diag("error: processes: no %lu free pages left in the %lu KiB pool",
		    (unsigned long)n, (unsigned long)pool_pages * 4);
	return 0;
}

uint8_t *proc_frame_ref(uintptr_t frame) { return &pool_ref[(frame - pool_base) / PAGE]; }
void proc_frame_put(uintptr_t frame) { --*proc_frame_ref(frame); }

/* ---- the null call's kernel working set ---- */

static volatile uint32_t *kset;
static uint32_t kset_bytes, kset_sink;

static void kset_touch(void)
{
	uint32_t sum = 0;

	for (uint32_t off = 0; off < kset_bytes / 4; off += 32 / 4)	/* a word per 32 bytes */
		sum += kset[off];
	kset_sink += sum;
}

int proc_set_kernel_set(uint32_t bytes)
{
	uint32_t pages = (bytes + PAGE - 1) / PAGE;

	if (pages * PAGE > KSET_MAX) {
		report_diag("error: the null call's kernel set: %lu bytes, at most %u KiB",
			    (unsigned long)bytes, KSET_MAX >> 10);
		return -1;
	}
	if (pages && !kset && !(kset = memalign(PAGE, KSET_MAX))) {	/* kept: once per run */
		report_diag("error: no heap for the null call's %u KiB kernel set", KSET_MAX >> 10);
		return -1;
	}
	kset_bytes = pages * PAGE;
	user_set_null_call(pages ? kset_touch : 0);
	return 0;
}

