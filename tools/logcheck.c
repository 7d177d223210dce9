/*
 * logcheck: check an mmubench console log for integrity and outcome.
 *
 *   logcheck [--echo | --json | --ktap | --tap] [FILE]
 *
 * Reads the log (FILE or stdin), optionally echoing every line to stdout as
 * it arrives.  From "KTAP version 1" to the status line every line must carry
 * "  @<seq>:<crc32>" with consecutive sequence numbers and a matching CRC;
 * table lines between "# tables begin" and "# tables end" are checked by the
 * end line's count and CRC (lib/linecheck.c, shared with tools/console and
 * mmureport).
 *
 * --json prints every intact protected line instead, one JSON object a
 * line, as the result format's parser (lib/result_parse.c) reads it:
 *   {"line": 30, "seq": 27, "in_sequence": true, "text": "ok 1 boot.real",
 *    "kind": "result", "ok": true, "number": 1, "name": "boot.real",
 *    "directive": "", "reason": ""}
 * kinds: plan (number), result, measurement (name, value as printed, unit),
 * sample (name, rep, value, unit), totals (pass, fail, skip), status
 * (status), other.  A log holding several reports (a board that ran twice)
 * gives each one's lines; the exit status is the worst of them.
 *
 * --ktap prints, once the log is checked and only when it is intact, its
 * report alone: from "KTAP version 1" to the status line, without what came
 * before it (the loader's lines, a timestamp prefix on every line) and
 * without the seals (each line's "  @<seq>:<crc>", the "# @<seq>:<crc>"
 * lines), which have done their work: for KTAP readers (kunit.py parse)
 * and TAP::Parser.  --tap prints the same without its first line, the
 * header: Python's tappy takes the plan only on the first line of a file
 * (or after "TAP version 13"), so "KTAP version 1" before it fails there.
 * A log with several reports: the first, the one checked.
 * Exit status:
 *   0  intact, and the run passed
 *   1  intact, and the run failed (status fail, or Totals with failures)
 *   2  not intact: lost, garbled, reordered or truncated lines
 *   3  usage or I/O error
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linecheck.h"
#include "result_line.h"

#define MAX_COMPLAINTS	20	/* then one line with how many more */

static void json_str(const char *key, const char *s)
{
	printf(", \"%s\": \"", key);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);	/* stray bytes: visible, still JSON */
		else
			putchar(c);
	}
	putchar('"');
}

/* One checked line as JSON (see the top). */
static void print_json(const struct linecheck *lc, const char *text, int in_sequence)
{
	static const char *kinds[] = { "other", "plan", "result", "measurement", "sample",
				       "totals", "status" };
	struct rl_line l;
	enum rl_kind k = rl_parse(text, &l);

	printf("{\"line\": %lu, \"seq\": %lu, \"in_sequence\": %s", lc->text_lineno,
	       in_sequence ? lc->seq : lc->bad_seq, in_sequence ? "true" : "false");
	json_str("text", text);
	json_str("kind", kinds[k]);
	if (k == RL_PLAN)
		printf(", \"number\": %lu", l.number);
	if (k == RL_RESULT) {
		printf(", \"ok\": %s, \"number\": %lu", l.ok ? "true" : "false", l.number);
		json_str("name", l.name);
		json_str("directive", l.directive);
		json_str("reason", l.reason);
	}
	if (k == RL_MEASUREMENT || k == RL_SAMPLE) {
		json_str("name", l.name);
		if (k == RL_SAMPLE)
			printf(", \"rep\": %d", l.rep);
		json_str("value", l.value);
		json_str("unit", l.unit);
	}
	if (k == RL_TOTALS)
		printf(", \"pass\": %lu, \"fail\": %lu, \"skip\": %lu", l.pass, l.fail, l.skip);
	if (k == RL_STATUS)
		json_str("status", l.status);
	printf("}\n");
}

static int usage(int help)
{
	fprintf(help ? stdout : stderr, "usage: logcheck [--echo | --json | --ktap | --tap] [FILE]\n");
	return help ? 0 : 3;
}

int main(int argc, char **argv)
{
	struct linecheck lc;
	int echo = 0, json = 0, ktap = 0, tap = 0, worst = -1;
	char *doc_text = 0;
	size_t doc_len = 0;
	FILE *doc = 0;		/* --ktap, --tap: the report, printed once checked */
	char *line = 0;
	size_t cap = 0;
	ssize_t got;
	FILE *in = stdin;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--echo"))
			echo = 1;
		else if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--ktap"))
			ktap = 1;
		else if (!strcmp(argv[i], "--tap"))
			tap = 1;
		else if (argv[i][0] == '-' && argv[i][1])
			return usage(!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"));
		else if (!(in = fopen(argv[i], "r"))) {
			fprintf(stderr, "logcheck: %s: %s\n", argv[i], strerror(errno));
			return 3;
		}
	}
	if (echo + json + ktap + tap > 1)
		return usage(0);
	if ((ktap || tap) && !(doc = open_memstream(&doc_text, &doc_len))) {
		fprintf(stderr, "logcheck: %s\n", strerror(errno));
		return 3;
	}

	linecheck_init(&lc, "logcheck");
	lc.max_complaints = MAX_COMPLAINTS;
	/* Whole lines, however long (a 10 MB line is one line, one complaint). */
	while ((got = getline(&line, &cap, in)) >= 0) {
		size_t n = (size_t)got;
		if (echo) {
			fwrite(line, 1, n, stdout);
			fflush(stdout);
		}
		for (size_t i = 0; i < n; i++)
			if (!line[i])
				line[i] = '?';	/* a NUL anywhere is damage: the seal fails */
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		if (json && lc.ended && !strcmp(line, "KTAP version 1")) {
			int v = linecheck_finish(&lc);	/* the next report of the log */
			worst = v > worst ? v : worst;
			unsigned long no = lc.lineno;
			linecheck_init(&lc, "logcheck");
			lc.max_complaints = MAX_COMPLAINTS;
			lc.lineno = no;
		}
		enum lc_verdict v = linecheck_line(&lc, line);
		if (json && lc.text)
			print_json(&lc, lc.text, v == LC_OK);
		/* Checked text, sealed or a table's (its block's CRC at the end),
		 * and the header; LC_HELD lines come as text with their seal. */
		if (doc && v == LC_OK)
			fprintf(doc, "%s\n", lc.text);
		else if (doc && lc.body && (v == LC_TABLE || (v == LC_CHATTER && ktap)))
			fprintf(doc, "%s\n", lc.body);
	}
	if (ferror(in)) {
		fprintf(stderr, "logcheck: read error\n");
		return 3;
	}
	free(line);
	int v = linecheck_finish(&lc);
	if (lc.complaints > MAX_COMPLAINTS)
		fprintf(stderr, "logcheck: ... and %lu more problems not listed\n",
			lc.complaints - MAX_COMPLAINTS);
	if (doc) {
		/* Not intact: nothing, so no consumer counts what may be damaged. */
		fclose(doc);
		if (v < 2)
			fwrite(doc_text, 1, doc_len, stdout);
		free(doc_text);
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "logcheck: write error\n");
			return 3;
		}
	}
	return v > worst ? v : worst;
}
