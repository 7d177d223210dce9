/* What probes call (include/probe.h) besides samples (samples.c), the
 * budget (watchdog.c), timing (timing.c) and memory (mem.c): where they
 * run, their results' reasons, diagnostics.  Thin wrappers over the boot
 * layer, kept apart from the run loop that calls the probes. */
#include <stdarg.h>
#include <stdio.h>
#include "arch.h"
#include "config.h"
#include "main.h"
#include "probe.h"
#include "report.h"
#include "watchdog.h"

uint64_t probe_ticks(void) { return arch_ticks(); }
uint32_t probe_tick_hz(void) { return boot_info.tick_hz; }
uint64_t probe_ram_bytes(void) { return boot_info.ram_bytes; }
const char *probe_arch_name(void) { return arch_name; }

static uint64_t mem_reached;
void probe_set_mem_reached(uint64_t bytes) { mem_reached = bytes; }
uint64_t probe_mem_reached(void) { return mem_reached; }
const char *probe_mode_name(int index)
{
	return index >= 0 && index < config.nmodes ? config.modes[index]->name : "?";
}

int64_t ticks_to_ns100(uint64_t ticks)
{
	return boot_info.tick_hz ? (int64_t)muldiv64(ticks, 100000000000ull, boot_info.tick_hz) : -1;
}

void probe_get_bounds(struct probe_bounds *b)
{
	b->heap_start = (uintptr_t)__heap_start, b->heap_end = (uintptr_t)__heap_end;
	b->stack_bottom = (uintptr_t)__stack_bottom, b->stack_top = (uintptr_t)__stack_top;
	b->stack_high_water = boot_stack_high_water();
}

void probe_shuffle(uint32_t *order, uint32_t n, uint32_t *state)
{
	uint32_t x = *state;

	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	for (uint32_t i = n - 1; i > 0 && n > 1; i--) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		uint32_t j = x % (i + 1), k = order[i];
		order[i] = order[j], order[j] = k;
	}
	*state = x;
}

int probe_fail(struct probe_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->fail_reason, sizeof(ctx->fail_reason), fmt, ap);
	va_end(ap);
	return RESULT_FAIL;
}

int probe_skip(struct probe_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->skip_reason, sizeof(ctx->skip_reason), fmt, ap);
	va_end(ap);
	return RESULT_SKIP;
}

void probe_diag(struct probe_ctx *ctx, const char *probe, const char *fmt, ...)
{
	char text[180];			/* a line is at most 200 (boot/report.c) */
	va_list ap;

	watchdog_hold();
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	report_diag("%s.%s: %s", probe, ctx->mode_name, text);
	watchdog_release();
}
