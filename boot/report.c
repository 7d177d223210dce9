/* The result format: KTAP, measurement lines, integrity suffixes, Totals
 * and the status line.  See doc/result-format.md for the contract. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "report.h"

#define LINE_MAX_LEN	RL_TEXT_MAX

static unsigned seq;			/* last sequence number used */
static int planned, numbered;		/* plan, results printed so far */
static int passed, failed, skipped;
static int begun, finished, in_measurements;
static void (*name_of)(int index, char *buf, int size);
static const char *cur_probe, *cur_mode;
uint64_t report_first_result_ticks;

static void console_write(const char *s, size_t n)
{
	fwrite(s, 1, n, stdout);
	fflush(stdout);
}

void console_printf(const char *fmt, ...)
{
	char buf[LINE_MAX_LEN + 40];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	console_write(buf, n);
}

/* One protected line: "<text>  @<seq>:<crc32 of everything before ':'>". */
static void emit(const char *text)
{
	char line[LINE_MAX_LEN + RL_SEAL_MAX];
	int n = snprintf(line, LINE_MAX_LEN, "%s", text);

	if (n >= LINE_MAX_LEN)		/* never split a line: cut it visibly */
		n = LINE_MAX_LEN - 1, line[n - 1] = '~';
	console_write(line, rl_seal(line, n, ++seq));
}

static void emitf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emitf(const char *fmt, ...)
{
	char text[LINE_MAX_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	emit(text);
}

void report_begin(int plan, void (*planned_name)(int index, char *buf, int size))
{
	planned = plan;
	name_of = planned_name;
	begun = 1;
	console_write("KTAP version 1\n", 15);	/* start marker: no suffix */
	emitf("1..%d", plan);
}

void report_diag(const char *fmt, ...)
{
	char text[LINE_MAX_LEN];
	va_list ap;

	text[0] = '#', text[1] = ' ';
	va_start(ap, fmt);
	vsnprintf(text + 2, sizeof(text) - 2, fmt, ap);
	va_end(ap);
	emit(text);
}

/* Kept for the tables and for report_lookup (curves' points are not). */
#define MAX_MEASUREMENTS 2048
static struct measurement {
	char probe[16], mode[12], metric[40];
	int64_t value;
	int decimals;
} measurements[MAX_MEASUREMENTS];
static int nmeasurements, measurements_dropped;

void report_measurement(const char *probe, const char *mode, const char *metric,
			int64_t value, int decimals, const char *unit)
{
	char text[LINE_MAX_LEN];

	rl_measurement(text, sizeof(text), probe, mode, metric, value, decimals, unit);
	emit(text);
	if (rl_curve_point(metric, 0))
		return;
	if (nmeasurements == MAX_MEASUREMENTS) {
		measurements_dropped++;
		return;
	}
	struct measurement *m = &measurements[nmeasurements++];
	strncpy(m->probe, probe, sizeof(m->probe) - 1);
	strncpy(m->mode, mode, sizeof(m->mode) - 1);
	strncpy(m->metric, metric, sizeof(m->metric) - 1);
	m->value = value;
	m->decimals = decimals;
}

/* One repetition's figure, before the median's measurement line (reps > 1;
 * not for a curve's points, whose medians are plenty). */
void report_sample(const char *probe, const char *mode, const char *metric, int rep,
		   int64_t value, int decimals, const char *unit)
{
	char text[LINE_MAX_LEN];

	if (rl_curve_point(metric, 0))
		return;
	rl_sample(text, sizeof(text), probe, mode, metric, rep, value, decimals, unit);
	emit(text);
}

int report_lookup(const char *probe, const char *mode, const char *metric,
		  int64_t *value, int *decimals)
{
	for (int i = nmeasurements - 1; i >= 0; i--) {
		struct measurement *m = &measurements[i];
		if (!strcmp(m->probe, probe) && !strcmp(m->mode, mode) &&
		    !strcmp(m->metric, metric)) {
			*value = m->value;
			*decimals = m->decimals;
			return 1;
		}
	}
	return 0;
}

void report_set_current(const char *probe, const char *mode)
{
	cur_probe = probe;
	cur_mode = mode;
}

/* A result line: KTAP's, its directive (SKIP, TIMEOUT) and reason after '#'. */
static void emit_result(int ok, const char *name, const char *directive, const char *reason)
{
	char text[LINE_MAX_LEN];

	rl_result(text, sizeof(text), ok, ++numbered, name, directive, reason);
	emit(text);
}

void report_result(const char *probe, const char *mode, int result, const char *reason)
{
	char name[64];

	if (!report_first_result_ticks)
		report_first_result_ticks = arch_ticks();
	snprintf(name, sizeof(name), "%s.%s", probe, mode);
	if (result == RESULT_SKIP) {
		skipped++;
		emit_result(1, name, "SKIP", reason);
		return;
	}
	if (result == RESULT_PASS)
		passed++;
	else
		failed++;
	if (result == RESULT_TIMEOUT) {
		emit_result(0, name, "TIMEOUT", reason);
		return;
	}
	if (result != RESULT_PASS && reason && *reason)
		report_diag("%s.%s: %s", probe, mode, reason);
	emit_result(result == RESULT_PASS, name, 0, 0);
}

void report_measurements_begin(void)
{
	in_measurements = 1;
	emit("# measurements begin");
}

void report_measurements_end(void)
{
	in_measurements = 0;
	if (measurements_dropped)
		report_diag("warning: %d measurements not kept for the tables (more than %d)",
			    measurements_dropped, MAX_MEASUREMENTS);
	emit("# measurements end");
}

/* Table lines are for people: no suffix on each, but the block ends with
 * their count and CRC so a lost or garbled table line is still detected. */
static uint32_t table_crc;
static unsigned table_lines;

void report_table_line(const char *text)
{
	size_t n = strlen(text);

	table_crc = crc32(table_crc, text, n);
	table_crc = crc32(table_crc, "\n", 1);
	table_lines++;
	console_write(text, n);
	console_write("\n", 1);
}

void report_tables_begin(void)
{
	emit("# tables begin");
	table_crc = 0;
	table_lines = 0;
}

void report_tables_end(void)
{
	emitf("# tables end lines=%u crc=%08lx", table_lines, (unsigned long)table_crc);
}

int report_finish(void)
{
	int status = failed || numbered != planned ? 1 : 0;

	if (finished)
		return status;
	finished = 1;
	if (numbered != planned)
		report_diag("error: planned %d results, reported %d", planned, numbered);
	emitf("# Totals: pass:%d fail:%d skip:%d", passed, failed, skipped);
	emitf("# mmubench status: %s", status ? "fail" : "pass");
	return status;
}

int report_abort(const char *why)
{
	char name[64];

	if (finished)
		return 1;
	if (!begun)
		report_begin(1, 0);
	report_diag("run aborted: %s", why);
	if (cur_probe)
		report_result(cur_probe, cur_mode, RESULT_FAIL, 0);
	else if (numbered < planned)
		report_result("run", "none", RESULT_FAIL, 0);
	while (numbered < planned) {
		if (name_of)
			name_of(numbered, name, sizeof(name));
		else
			strcpy(name, "not-run");
		skipped++;
		emit_result(1, name, "SKIP", "not run: the run was aborted");
	}
	if (in_measurements)
		report_measurements_end();
	return report_finish();
}
