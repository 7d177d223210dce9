/* The result format on the console (doc/result-format.md).  Every line
 * from the KTAP header to the status line goes through here so that each
 * carries its sequence number and CRC. */
#ifndef REPORT_H
#define REPORT_H
#include <stdint.h>
#include "crc32.h"
#include "result_line.h"	/* format_fixed, the line grammar */
#include "probe.h"	/* RESULT_PASS, RESULT_FAIL, RESULT_SKIP */

/* Plain console text before the KTAP header (errors in boot arguments). */
void console_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* KTAP version 1 and the plan; planned_name names result `index` (from 0)
 * so that an aborted run can still account for every planned line. */
void report_begin(int planned, void (*planned_name)(int index, char *buf, int size));
void report_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void report_measurement(const char *probe, const char *mode, const char *metric,
			int64_t value, int decimals, const char *unit);
/* "# sample <probe>.<mode>.<metric> <rep> <value> <unit>": one repetition's
 * figure, printed before the median's measurement line when reps > 1. */
void report_sample(const char *probe, const char *mode, const char *metric, int rep,
		   int64_t value, int decimals, const char *unit);
void report_result(const char *probe, const char *mode, int result, const char *skip_reason);
void report_measurements_begin(void);
void report_measurements_end(void);
void report_tables(void);			/* LMbench-style summary (tables.c) */
void report_tables_begin(void);
void report_table_line(const char *text);
void report_tables_end(void);
int  report_finish(void);			/* Totals + status; returns status */

/* Look up a measurement already reported (for tables and later probes). */
int report_lookup(const char *probe, const char *mode, const char *metric,
		  int64_t *value, int *decimals);

/* The running test's name, for the exception dump's "not ok" line. */
void report_set_current(const char *probe, const char *mode);

/* After an unexpected exception: close the current test as failed, mark the
 * rest not run, print Totals and a failing status.  Returns the status. */
int report_abort(const char *why);

/* Ticks when the first result line went out (0 until then). */
extern uint64_t report_first_result_ticks;


#endif
