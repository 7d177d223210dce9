/*
 * linecheck: the per-line integrity check of an mmubench console log
 * (lib/linecheck.c), shared by logcheck (a captured file), console (a live
 * serial line) and mmureport; the host tools only (it writes to stderr).
 *
 * Feed every line, without its line ending, to linecheck_line(); it checks
 * the seal of each line from "KTAP version 1" to the status line (its
 * "  @<seq>:<crc32>" suffix, or for the plan and result lines the
 * "# @<seq>:<crc32>" line right after), the table block's count and CRC,
 * the plan and the Totals.
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
	/* The last line rejected for its sequence number (LC_SEQ): the number
	 * it carried and the one expected; seq > expected means expected ..
	 * seq - 1 were lost. */
	unsigned long bad_seq, bad_expected;
	/* Messages: at most max_complaints (0: no limit), then one saying so. */
	unsigned long complaints, max_complaints;
	/* After linecheck_line(): the protected line it found intact (LC_OK,
	 * or LC_SEQ: lines before it lost), its suffix off; else 0. */
	const char *text;
	unsigned long text_lineno;	/* text's own line number */
	/* After linecheck_line(): the line itself, the prefix (below) off,
	 * from "KTAP version 1" to the status line; else 0.  logcheck --ktap
	 * prints the header and the table lines so. */
	const char *body;
	/* A KTAP line (plan, result) held until its seal, the next line. */
	int holding;
	unsigned long held_lineno;
	char held[512];
	/* What came before "KTAP version 1" on its line (a capture tool's or
	 * LAVA's timestamp, a loader's stray bytes): taken off every later line
	 * of the same shape (digits for digits): logcheck, console and mmureport alike. */
	char prefix[64];
	size_t plen;
};

/* What linecheck_line() made of a line. */
enum lc_verdict {
	LC_CHATTER,	/* before KTAP or after the status line: not checked */
	LC_TABLE,	/* a table line: checked as a block at "# tables end" */
	LC_OK,		/* protected, intact, in sequence: the suffix is cut off */
	LC_SEQ,		/* intact (CRC good) but out of sequence: lines lost or repeated */
	LC_BAD,		/* garbled: no suffix, bad suffix or CRC mismatch */
	LC_HELD,	/* a KTAP line: checked with its seal, the next line */
};

void linecheck_init(struct linecheck *lc, const char *prog);
/* Check one line (modified in place: the suffix is cut off when LC_OK; the
 * protected text it completed, maybe a held KTAP line, is lc->text).
 * Line numbers in messages count the calls, or set lc->lineno to the
 * number before the line less one. */
enum lc_verdict linecheck_line(struct linecheck *lc, char *line);
/* The verdict, with its reason or a summary on stderr: 0, 1 or 2. */
int linecheck_finish(struct linecheck *lc);

#endif
