/*
 * linecheck: the per-line integrity check of an mmubench console log,
 * shared by logcheck (a captured file) and console (a live serial line).
 *
 * Feed every line, without its line ending, to linecheck_line(); it checks
 * the "  @<seq>:<crc32>" suffix of each line from "KTAP version 1" to the
 * status line, the table block's count and CRC, the plan and the Totals.
 * linecheck_finish() gives the verdict: 0 intact and passed, 1 intact and
 * failed, 2 not intact or truncated.
 */
#ifndef LINECHECK_H
#define LINECHECK_H

#include <stdint.h>

struct linecheck {
	const char *prog;	/* prefix of the messages on stderr */
	unsigned long lineno;	/* lines fed so far */
	int in_ktap;		/* "KTAP version 1" seen */
	int ended;		/* the status line seen: the report is complete */
	int status;		/* 0 pass, 1 fail, -1 no status line yet */
	int damaged;		/* a line was lost, garbled or reordered */
	int in_table, have_plan, have_totals;
	unsigned long seq, table_lines, plan, results, pass, fail, skip, totals_fail;
	uint32_t table_crc;
};

void linecheck_init(struct linecheck *lc, const char *prog);
/* Check one line (modified in place: the suffix is cut off). */
void linecheck_line(struct linecheck *lc, char *line);
/* The verdict, with its reason or a summary on stderr: 0, 1 or 2. */
int linecheck_finish(struct linecheck *lc);

#endif
