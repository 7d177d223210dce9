/* The integrity check of an mmubench log, line by line (include/linecheck.h):
 * the host tools' half of the result format with lib/result_parse.c. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "linecheck.h"
#include "result_line.h"

void linecheck_init(struct linecheck *lc, const char *prog)
{
	memset(lc, 0, sizeof(*lc));
	lc->prog = prog;
	lc->status = -1;
}

static void complain(struct linecheck *lc, const char *fmt, const char *arg)
{
	lc->damaged = 1;
	if (lc->max_complaints && lc->complaints++ >= lc->max_complaints) {
		if (lc->complaints == lc->max_complaints + 1)
			fprintf(stderr, "%s: line %lu: more problems; not listed\n", lc->prog, lc->lineno);
		return;
	}
	/* A line of megabytes is named by its start and length, not printed. */
	char shown[200];
	size_t n = strlen(arg);
	if (n > 160)
		snprintf(shown, sizeof(shown), "%.120s... (%zu bytes)", arg, n), arg = shown;
	fprintf(stderr, "%s: line %lu: ", lc->prog, lc->lineno);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

/* Split "<text>  @<seq>:<crc>" and verify; returns the text length, -1
 * (garbled) or -2 (intact but out of sequence). */
static long check_suffix(struct linecheck *lc, const char *line, unsigned long expect_seq)
{
	const char *at = strrchr(line, '@');
	char *end;
	unsigned long seq, crc;

	if (!at || at - line < 2 || at[-1] != ' ' || at[-2] != ' ') {
		complain(lc, "no sequence/CRC suffix: %s", line);
		return -1;
	}
	seq = strtoul(at + 1, &end, 10);
	if (end == at + 1 || *end != ':') {
		complain(lc, "malformed suffix: %s", line);
		return -1;
	}
	const char *colon = end;
	crc = strtoul(colon + 1, &end, 16);
	if (end - (colon + 1) != 8 || *end) {
		complain(lc, "malformed CRC: %s", line);
		return -1;
	}
	if (crc != crc32(0, line, colon - line)) {
		complain(lc, "CRC mismatch (garbled line): %s", line);
		return -1;
	}
	if (seq != expect_seq) {
		char msg[64];
		lc->bad_seq = seq, lc->bad_expected = expect_seq;
		snprintf(msg, sizeof(msg), "%lu, expected %lu", seq, expect_seq);
		complain(lc, seq > expect_seq ? "sequence jumps to %s: lines lost" :
			 "sequence goes back to %s: lines repeated or reordered", msg);
		return -2;
	}
	return at - 2 - line;
}

/* What an intact line says: the tables' block, the plan, the results,
 * the Totals and the status. */
static void account(struct linecheck *lc, const char *text)
{
	struct rl_line l;
	unsigned long a, b;
	if (!strcmp(text, "# tables begin")) {
		lc->in_table = 1, lc->table_lines = 0, lc->table_crc = 0;
	} else if (sscanf(text, "# tables end lines=%lu crc=%lx", &a, &b) == 2) {
		if (!lc->in_table)
			complain(lc, "%s without tables begin", text);
		else if (a != lc->table_lines)
			complain(lc, "table lines lost or added (%s)", text);
		else if (b != lc->table_crc)
			complain(lc, "table lines garbled (%s)", text);
		lc->in_table = 0;
	} else switch (rl_parse(text, &l)) {
	case RL_PLAN:
		lc->plan = l.number, lc->have_plan = 1;
		break;
	case RL_RESULT:
		lc->results++;
		if (!l.ok)
			lc->fail++;
		else if (!strcmp(l.directive, "SKIP"))
			lc->skip++;
		else
			lc->pass++;
		break;
	case RL_TOTALS:
		lc->have_totals = 1, lc->totals_fail = l.fail;
		if (l.pass != lc->pass || l.fail != lc->fail || l.skip != lc->skip)
			complain(lc, "Totals do not match the result lines: %s", text);
		break;
	case RL_STATUS:
		lc->status = !strcmp(l.status, "pass") ? 0 : 1;
		lc->ended = 1;
		break;
	default:
		break;
	}
}

/* A line that carries its seal, "<text>  @<seq>:<crc>" (cut to its text
 * when intact). */
static enum lc_verdict check_sealed(struct linecheck *lc, char *line)
{
	long len = check_suffix(lc, line, lc->seq + 1);

	if (len < 0) {
		/* Resynchronise on the line's own number, if it has one. */
		const char *at = strrchr(line, '@');
		if (at && at[1] >= '0' && at[1] <= '9')
			lc->seq = strtoul(at + 1, 0, 10);
		if (len == -1)
			return LC_BAD;
		line[rl_text_len(line)] = 0;
		lc->text = line;
		return LC_SEQ;
	}
	lc->seq++;
	line[len] = 0;
	lc->text = line;
	account(lc, line);
	return LC_OK;
}

/* The line after a held KTAP line: its seal "# @<seq>:<crc>", checked as if
 * at the KTAP line's end; anything else means the seal was lost. */
static int take_seal(struct linecheck *lc, const char *line, enum lc_verdict *v)
{
	lc->holding = 0;
	if (strncmp(line, "# @", 3)) {
		complain(lc, "no integrity comment \"# @<seq>:<crc>\" after the line before: %s",
			 lc->held);
		return 0;
	}
	size_t n = strlen(lc->held);
	snprintf(lc->held + n, sizeof(lc->held) - n, "  %s", line + 2);
	*v = check_sealed(lc, lc->held);
	lc->text_lineno = lc->held_lineno;
	return 1;
}

/* Does line begin with the prefix's shape (digits for digits, the rest as is)? */
static int same_shape(const char *line, const char *prefix, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!line[i])
			return 0;
		if (isdigit((unsigned char)prefix[i]) ? !isdigit((unsigned char)line[i])
						       : line[i] != prefix[i])
			return 0;
	}
	return 1;
}

enum lc_verdict linecheck_line(struct linecheck *lc, char *line)
{
	enum lc_verdict v;

	lc->lineno++;
	lc->text = 0;
	lc->body = 0;
	lc->text_lineno = lc->lineno;
	if (lc->ended)
		return LC_CHATTER;	/* the loader's own messages after the end */
	if (!lc->in_ktap) {
		char *k = strstr(line, "KTAP version 1");
		if (k && !strcmp(k, "KTAP version 1") && k - line < (long)sizeof(lc->prefix)) {
			lc->plen = k - line;
			memcpy(lc->prefix, line, lc->plen);
			lc->prefix[lc->plen] = 0;
			lc->in_ktap = 1;
			lc->body = k;
		}
		return LC_CHATTER;
	}
	if (lc->plen && same_shape(line, lc->prefix, lc->plen))
		line += lc->plen;
	lc->body = line;
	size_t n = strlen(line);
	if (lc->holding && take_seal(lc, line, &v))
		return v;
	if (lc->in_table && strncmp(line, "# tables end", 12)) {
		lc->table_crc = crc32(lc->table_crc, line, n);
		lc->table_crc = crc32(lc->table_crc, "\n", 1);
		lc->table_lines++;
		return LC_TABLE;
	}
	if (rl_ktap_line(line) && rl_text_len(line) == n) {
		/* A KTAP line (no seal of its own: older logs have one): its seal
		 * is the next line. */
		if (n + RL_SEAL_MAX >= sizeof(lc->held)) {
			complain(lc, "a KTAP line too long to be the image's: %s", line);
			return LC_BAD;
		}
		memcpy(lc->held, line, n + 1);
		lc->holding = 1, lc->held_lineno = lc->lineno;
		return LC_HELD;
	}
	return check_sealed(lc, line);
}

int linecheck_finish(struct linecheck *lc)
{
	if (!lc->in_ktap) {
		fprintf(stderr, "%s: no 'KTAP version 1' line: the image never started its report\n",
			lc->prog);
		return 2;
	}
	if (!lc->ended) {
		fprintf(stderr, "%s: truncated: no status line after line %lu (sequence %lu)\n",
			lc->prog, lc->lineno, lc->seq);
		return 2;
	}
	if (lc->in_table)
		complain(lc, "%s", "tables never ended");
	if (lc->holding)
		complain(lc, "no integrity comment after the last line: %s", lc->held);
	if (!lc->have_plan || !lc->have_totals)
		complain(lc, "%s", lc->have_plan ? "no Totals line" : "no plan line");
	else if (lc->results != lc->plan) {
		char msg[64];
		snprintf(msg, sizeof(msg), "%lu results for a plan of %lu", lc->results, lc->plan);
		complain(lc, "%s", msg);
	}
	if (lc->damaged) {
		fprintf(stderr, "%s: NOT INTACT: lines were lost or garbled\n", lc->prog);
		return 2;
	}
	fprintf(stderr, "%s: intact: %lu protected lines, %lu results "
		"(pass %lu, fail %lu, skip %lu), status %s\n", lc->prog, lc->seq, lc->results,
		lc->pass, lc->fail, lc->skip, lc->status ? "fail" : "pass");
	return lc->status || lc->totals_fail ? 1 : 0;
}
