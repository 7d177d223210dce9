/*
 * mmureport's readers, one file per input format, and what they share
 * (report_parse.c): report_mmubench.c (mmubench console logs),
 * report_lava.c (LAVA job logs: their console lines, to report_mmubench.c),
 * report_lmbench.c (LMbench lat_mem_rd).
 * report_parse.c's read_input() picks the reader of an input.
 */
#ifndef REPORT_READ_H
#define REPORT_READ_H

#include <stddef.h>
#include "mmureport.h"

#define LINE_MAX_LEN 4096

void *grow(void *p, int *cap, int need, size_t size);
struct run *new_run(struct report *rep, const char *file, const char *date);
void add_mode(struct run *r, const char *mode);
/* The entry a measurement or sample line fills: an open one of the same
 * name (samples come before their median), else a new one. */
struct meas *meas_slot(struct run *r, const char *probe, const char *mode, const char *metric,
		       const char *unit);
/* Rebuild a run's index after its entries moved (report_parse.c). */
void run_reindex(struct run *r);
/* src as text to show: control characters as "\xNN", a byte that is
 * not UTF-8 as U+FFFD; cut at a whole character to fit size. */
void visible_copy(char *dst, size_t size, const char *src);
/* The next line of buf from *pos (LINE_MAX_LEN bytes), NULs made visible,
 * CR and LF off; 0 at the end. */
int next_line(const char *buf, size_t len, size_t *pos, char *line);

/* A LAVA job log: lava-run's records ({"dt": ...} a line) or lava-server's
 * output.yaml (the same after "- "); tools/report_lava.c. */
int lava_log(const char *buf, size_t len);

/* The readers: 0; -2 when a report was cut short (its run kept, marked
 * partial); -1 when nothing is usable (with a message naming the file). */
int read_mmubench(struct report *rep, const char *name, const char *buf, size_t len,
		  const char *date);
int read_lmbench(struct report *rep, const char *name, const char *buf, size_t len,
		 const char *date);
/* A LAVA job log's target (console) lines, read by read_mmubench. */
int read_lava(struct report *rep, const char *name, const char *buf, size_t len,
	      const char *date);

#endif
