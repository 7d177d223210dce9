/* A bump allocator over the RAM past the image, reset between probes.
 * Probe buffers are large and live for one probe: nothing finer is needed. */
#include <stdio.h>
#include "mem.h"
#include "report.h"

uintptr_t probe_mem_start, probe_mem_end;
static uintptr_t next;

void probe_mem_reset(void)
{
	next = probe_mem_start;
}

uintptr_t probe_mem_alloc(size_t len, size_t align, uintptr_t min_addr, const char *what)
{
	uintptr_t at = next > min_addr ? next : min_addr;

	if (!next)
		at = probe_mem_start > min_addr ? probe_mem_start : min_addr;
	at = (at + align - 1) & ~(uintptr_t)(align - 1);
	if (at < probe_mem_start || at + len > probe_mem_end || at + len < at) {
		report_diag("error: %s: %lu KiB at or above %#lx does not fit in free RAM "
			    "%#lx-%#lx", what, (unsigned long)(len >> 10), (unsigned long)min_addr,
			    (unsigned long)probe_mem_start, (unsigned long)probe_mem_end);
		return 0;
	}
	next = at + len;
	return at;
}
