/* Free RAM: a bump allocator for probe buffers, reset between probes, and
 * the page-table pool taken off the top once.  Probe buffers are large and
 * live for one probe: nothing finer is needed. */
#include <errno.h>
#include <stdio.h>
#include "arch.h"
#include "mem.h"
#include "probe.h"
#include "report.h"

static uintptr_t ram_end, probe_start, probe_end, next, high;

void mem_set_free_ram(uintptr_t start, uintptr_t end)
{
	probe_start = next = start;
	ram_end = probe_end = end;
}

uintptr_t mem_reserve_top(size_t bytes)
{
	if (probe_end < bytes || probe_end - bytes < probe_start + (1u << 20))
		return 0;
	probe_end -= bytes;
	return probe_end;
}

uintptr_t mem_ram_end(void) { return ram_end; }
uintptr_t mem_probe_start(void) { return probe_start; }
uintptr_t mem_probe_end(void) { return probe_end; }
uintptr_t mem_probe_high(void) { return high; }

/* Running out is ENOMEM, which malloc turns into NULL, never into an
 * overlap with the stack. */
void *heap_sbrk(intptr_t incr)
{
	static char *brk = __heap_start;
	char *old = brk;

	if (incr > __heap_end - brk || incr < __heap_start - brk) {
		errno = ENOMEM;
		return (void *)-1;
	}
	brk += incr;
	return old;
}

void probe_mem_reset(void)
{
	next = probe_start;
}

size_t probe_mem_avail(size_t align, uintptr_t min_addr)
{
	uintptr_t at = next > min_addr ? next : min_addr;

	at = (at + align - 1) & ~(uintptr_t)(align - 1);
	return at >= probe_start && at < probe_end ? probe_end - at : 0;
}

uintptr_t probe_mem_alloc(size_t len, size_t align, uintptr_t min_addr, const char *what)
{
	uintptr_t at = next > min_addr ? next : min_addr;

	at = (at + align - 1) & ~(uintptr_t)(align - 1);
	if (at < probe_start || at + len > probe_end || at + len < at) {
		report_diag("error: %s: %lu KiB at or above %#lx does not fit in free RAM "
			    "%#lx-%#lx", what, (unsigned long)(len >> 10), (unsigned long)min_addr,
			    (unsigned long)probe_start, (unsigned long)probe_end);
		return 0;
	}
	next = at + len;
	if (next > high)
		high = next;
	return at;
}
