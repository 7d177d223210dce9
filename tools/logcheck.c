/*
 * logcheck: check an mmubench console log for integrity and outcome.
 *
 *   logcheck [--echo] [FILE]
 *
 * Reads the log (FILE or stdin), optionally echoing every line to stdout as
 * it arrives.  From "KTAP version 1" to the status line every line must carry
 * "  @<seq>:<crc32>" with consecutive sequence numbers and a matching CRC;
 * table lines between "# tables begin" and "# tables end" are checked by the
 * end line's count and CRC.  Exit status:
 *   0  intact, and the run passed
 *   1  intact, and the run failed (status fail, or Totals with failures)
 *   2  not intact: lost, garbled, reordered or truncated lines
 *   3  usage or I/O error
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"

static int damaged;
static unsigned long lineno;

static void complain(const char *fmt, const char *arg)
{
	fprintf(stderr, "logcheck: line %lu: ", lineno);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	damaged = 1;
}

/* Split "<text>  @<seq>:<crc>" and verify; returns the text length or -1. */
static long check_suffix(const char *line, unsigned long expect_seq)
{
	const char *at = strrchr(line, '@');
	char *end;
	unsigned long seq, crc;

	if (!at || at - line < 2 || at[-1] != ' ' || at[-2] != ' ') {
		complain("no sequence/CRC suffix: %s", line);
		return -1;
	}
	seq = strtoul(at + 1, &end, 10);
	if (end == at + 1 || *end != ':') {
		complain("malformed suffix: %s", line);
		return -1;
	}
	const char *colon = end;
	crc = strtoul(colon + 1, &end, 16);
	if (end - (colon + 1) != 8 || *end) {
		complain("malformed CRC: %s", line);
		return -1;
	}
	if (crc != crc32(0, line, colon - line)) {
		complain("CRC mismatch (garbled line): %s", line);
		return -1;
	}
	if (seq != expect_seq) {
		char msg[64];
		snprintf(msg, sizeof(msg), "%lu, expected %lu", seq, expect_seq);
		complain(seq > expect_seq ? "sequence jumps to %s: lines lost" :
			 "sequence goes back to %s: lines repeated or reordered", msg);
		return -1;
	}
	return at - 2 - line;
}

int main(int argc, char **argv)
{
	int echo = 0, in_ktap = 0, in_table = 0, ended = 0, status = -1;
	unsigned long seq = 0, table_lines = 0, plan = 0, results = 0;
	unsigned long pass = 0, fail = 0, skip = 0, totals_fail = 0;
	int have_plan = 0, have_totals = 0;
	uint32_t table_crc = 0;
	char line[4096];
	FILE *in = stdin;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--echo"))
			echo = 1;
		else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "usage: logcheck [--echo] [FILE]\n");
			return 3;
		} else if (!(in = fopen(argv[i], "r"))) {
			fprintf(stderr, "logcheck: %s: %s\n", argv[i], strerror(errno));
			return 3;
		}
	}

	while (fgets(line, sizeof(line), in)) {
		size_t n = strlen(line);
		lineno++;
		if (echo) {
			fputs(line, stdout);
			fflush(stdout);
		}
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		if (ended)
			continue;		/* QEMU's own messages after the end */
		if (!in_ktap) {
			if (!strcmp(line, "KTAP version 1"))
				in_ktap = 1;
			continue;
		}
		if (in_table && strncmp(line, "# tables end", 12)) {
			table_crc = crc32(table_crc, line, n);
			table_crc = crc32(table_crc, "\n", 1);
			table_lines++;
			continue;
		}
		long len = check_suffix(line, seq + 1);
		if (len < 0) {
			/* Resynchronise on the line's own number, if it has one. */
			const char *at = strrchr(line, '@');
			if (at && at[1] >= '0' && at[1] <= '9')
				seq = strtoul(at + 1, 0, 10);
			continue;
		}
		seq++;
		line[len] = 0;

		unsigned long a, b, c;
		char word[16];
		if (!strcmp(line, "# tables begin")) {
			in_table = 1, table_lines = 0, table_crc = 0;
		} else if (sscanf(line, "# tables end lines=%lu crc=%lx", &a, &b) == 2) {
			if (!in_table)
				complain("%s without tables begin", line);
			else if (a != table_lines)
				complain("table lines lost or added (%s)", line);
			else if (b != table_crc)
				complain("table lines garbled (%s)", line);
			in_table = 0;
		} else if (sscanf(line, "1..%lu", &a) == 1) {
			plan = a, have_plan = 1;
		} else if (!strncmp(line, "ok ", 3) || !strncmp(line, "not ok ", 7)) {
			results++;
			if (line[0] == 'n')
				fail++;
			else if (strstr(line, " # SKIP"))
				skip++;
			else
				pass++;
		} else if (sscanf(line, "# Totals: pass:%lu fail:%lu skip:%lu", &a, &b, &c) == 3) {
			have_totals = 1, totals_fail = b;
			if (a != pass || b != fail || c != skip)
				complain("Totals do not match the result lines: %s", line);
		} else if (sscanf(line, "# mmubench status: %15s", word) == 1) {
			status = !strcmp(word, "pass") ? 0 : 1;
			ended = 1;
		}
	}
	if (ferror(in)) {
		fprintf(stderr, "logcheck: read error\n");
		return 3;
	}
	if (!in_ktap) {
		fprintf(stderr, "logcheck: no 'KTAP version 1' line: the image never started its report\n");
		return 2;
	}
	if (!ended) {
		fprintf(stderr, "logcheck: truncated: no status line after line %lu (sequence %lu)\n",
			lineno, seq);
		return 2;
	}
	if (in_table)
		complain("%s", "tables never ended");
	if (!have_plan || !have_totals)
		complain("%s", have_plan ? "no Totals line" : "no plan line");
	else if (results != plan) {
		char msg[64];
		snprintf(msg, sizeof(msg), "%lu results for a plan of %lu", results, plan);
		complain("%s", msg);
	}
	if (damaged) {
		fprintf(stderr, "logcheck: NOT INTACT: lines were lost or garbled\n");
		return 2;
	}
	fprintf(stderr, "logcheck: intact: %lu protected lines, %lu results "
		"(pass %lu, fail %lu, skip %lu), status %s\n", seq, results, pass, fail, skip,
		status ? "fail" : "pass");
	return status || totals_fail ? 1 : 0;
}
