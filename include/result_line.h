/*
 * The result line: the one grammar of what mmubench prints between
 * "KTAP version 1" and its status line (doc/result-format.md).
 * The image writes with the first half (lib/result_line.c); the host tools
 * read with the second (lib/result_parse.c) after the integrity check
 * (include/linecheck.h, lib/linecheck.c) has taken the "  @<seq>:<crc>"
 * suffix off.
 */
#ifndef RESULT_LINE_H
#define RESULT_LINE_H
#include <stddef.h>
#include <stdint.h>

/* The longest text of a line the image writes, before its suffix. */
#define RL_TEXT_MAX	200
/* What rl_seal() appends at most: "\n# @<seq>:<8 hex>\n". */
#define RL_SEAL_MAX	24

/* ---- writing (the image and the host) ---- */

/* Decimal with `decimals` digits after the point, no floating point. */
int format_fixed(char *buf, unsigned long size, int64_t value, int decimals);
/* The KTAP lines (the plan, the results), which KTAP readers parse: their
 * integrity field is not on them (it would become part of a test's name
 * or SKIP reason) but on the line after, "# @<seq>:<crc>". */
int rl_ktap_line(const char *text);
/* Seal the n bytes of line (NUL-terminated, room for RL_SEAL_MAX more) as
 * protected line number seq; returns the new length.  The CRC-32 covers
 * the line's text followed by "  @<seq>"; it goes after that as
 * ":<8 hex>\n", or for a KTAP line, "\n# @<seq>:<8 hex>\n" (the same
 * CRC: the text's seal moved to the next line). */
size_t rl_seal(char *line, size_t n, unsigned seq);
/* "# measurement <probe>.<mode>.<metric> <value> <unit>" */
int rl_measurement(char *buf, size_t size, const char *probe, const char *mode,
		   const char *metric, int64_t value, int decimals, const char *unit);
/* "# sample <probe>.<mode>.<metric> <rep> <value> <unit>" */
int rl_sample(char *buf, size_t size, const char *probe, const char *mode, const char *metric,
	      int rep, int64_t value, int decimals, const char *unit);
/* "ok|not ok <number> <name>[ # <directive> <reason>]"; directive 0 for none. */
int rl_result(char *buf, size_t size, int ok, int number, const char *name,
	      const char *directive, const char *reason);

/* A curve's point: [<prefix>_]<number>[p]_ns or [<prefix>_]<number>[p]_mbs
 * (lat_mem's local_4096_ns, tlb's 64p_ns, bw_mem's rd_65536_mbs).  No
 * table shows one and no comparison tests one; the image keeps none for
 * its tables and prints no per-repetition sample of one. */
struct rl_point {
	size_t prefix_len;	/* the part before "_<number>"; 0 without */
	uint64_t number;	/* bytes, or pages with `pages` */
	int pages;		/* <number>p */
};
int rl_curve_point(const char *metric, struct rl_point *pt);

/* ---- reading (the host tools: lib/result_parse.c) ---- */

enum rl_kind {
	RL_OTHER,		/* a diagnostic, or a line of no known shape */
	RL_PLAN,		/* 1..<number> */
	RL_RESULT,
	RL_MEASUREMENT,
	RL_SAMPLE,
	RL_TOTALS,
	RL_STATUS,
};

struct rl_line {
	enum rl_kind kind;
	unsigned long number;		/* the plan's N; a result's number */
	int ok;				/* a result: ok (1) or not ok (0) */
	char name[128];			/* a result: <probe>.<mode>; a measurement or
					 * sample: <probe>.<mode>.<metric> */
	char directive[8];		/* a result: SKIP, TIMEOUT or "" */
	const char *reason;		/* a result's text after the directive; "" */
	char probe[24], mode[16], metric[48];	/* a measurement or sample's name */
	char value[48];			/* as printed: a plain decimal number */
	double v;
	int decimals;
	char unit[24];
	int rep;			/* a sample's repetition, from 1 */
	unsigned long pass, fail, skip;	/* Totals */
	char status[16];		/* the status line's word: pass, fail */
};

/* The line's text without a trailing "  @<seq>:<8 hex>" (unchecked). */
size_t rl_text_len(const char *line);
/* What a line's text (suffix off) says; returns its kind.  A line that
 * names itself a measurement but has not the shape of one is RL_OTHER. */
enum rl_kind rl_parse(const char *text, struct rl_line *out);

#endif
