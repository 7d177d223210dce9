/*
 * logcheck: check an mmubench console log for integrity and outcome.
 *
 *   logcheck [--echo | --json] [FILE]
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
	fprintf(help ? stdout : stderr, "usage: logcheck [--echo | --json] [FILE]\n");
	return help ? 0 : 3;
}

int main(int argc, char **argv)
{
	struct linecheck lc;
	int echo = 0, json = 0, worst = -1;
	char *line = 0;
	size_t cap = 0;
	ssize_t got;
	FILE *in = stdin;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--echo"))
			echo = 1;
		else if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (argv[i][0] == '-' && argv[i][1])
			return usage(!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"));
		else if (!(in = fopen(argv[i], "r"))) {
			fprintf(stderr, "logcheck: %s: %s\n", argv[i], strerror(errno));
			return 3;
		}
	}
	if (echo && json)
		return usage(0);

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
	return v > worst ? v : worst;
}
