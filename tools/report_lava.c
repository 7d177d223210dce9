/*
 * LAVA job logs as mmureport input: what lava-run writes (one record a
 * line, `{"dt": "...", "lvl": "...", "msg": ...}`, on its standard error)
 * and what lava-server keeps of it (output.yaml: the same records as a YAML
 * list, `- {...}`).  Records of level "target" hold the console, one line
 * each; they are turned back into console text and read as a console log,
 * so every line's sequence number and CRC is checked as in any other log.
 *
 * A record is lava-common's dump (yaml.dump, flow style, every scalar
 * double-quoted, one line), so a message is a YAML double-quoted string,
 * perhaps tagged `! "..."`.  Before that, lava-dispatcher's ShellLogger
 * wrote each `"` of the console as `\"` and dropped CR and ESC: the first
 * is undone here; a line that held an ESC fails its CRC, as it should.
 */
#define _GNU_SOURCE		/* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmureport.h"
#include "report_read.h"

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/* Does a line begin a LAVA record: `{"dt": "` or `- {"dt": "`? */
static int record_start(const char *p, const char *end)
{
	static const char rec[] = "{\"dt\": \"";

	if (end - p >= 2 && p[0] == '-' && p[1] == ' ')
		p += 2;
	return end - p >= (long)sizeof(rec) - 1 && !memcmp(p, rec, sizeof(rec) - 1);
}

int lava_log(const char *buf, size_t len)
{
	const char *end = buf + len;

	return record_start(skip_blank(buf, end), end);
}

/* One code point as UTF-8 (what pexpect decoded the console from). */
static size_t put_utf8(char *out, unsigned long c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6), out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12), out[1] = (char)(0x80 | (c >> 6 & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (c >> 18 & 7)), out[1] = (char)(0x80 | (c >> 12 & 0x3f));
	out[2] = (char)(0x80 | (c >> 6 & 0x3f)), out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

static int hex_value(const char *p, int digits, unsigned long *v)
{
	*v = 0;
	for (int i = 0; i < digits; i++) {
		int c = (unsigned char)p[i], d = c >= '0' && c <= '9' ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return 0;
		*v = *v << 4 | (unsigned long)d;
	}
	return 1;
}

/* A YAML double-quoted scalar at p (after its opening quote), up to eol,
 * decoded into out; *after: past its closing quote.  Returns the number of
 * bytes written, or -1 if it is not closed on this line or has an escape
 * YAML does not know. */
static long yaml_dq(const char *p, const char *eol, char *out, const char **after)
{
	static const char from[] = "0abtnvfre \"/\\\t", to[] = "\0\a\b\t\n\v\f\r\033 \"/\\\t";
	size_t n = 0;

	while (p < eol && *p != '"') {
		unsigned long c;
		size_t k;
		int digits;

		if (*p != '\\') {
			out[n++] = *p++;
			continue;
		}
		if (++p >= eol)
			return -1;
		digits = *p == 'x' ? 2 : *p == 'u' ? 4 : *p == 'U' ? 8 : 0;
		if (digits) {
			if (eol - p <= digits || !hex_value(p + 1, digits, &c))
				return -1;
			n += put_utf8(out + n, c);
			p += digits + 1;
			continue;
		}
		for (k = 0; k < sizeof(from) - 1 && from[k] != *p; k++)
			;
		if (k < sizeof(from) - 1)
			out[n++] = to[k];
		else if (*p == 'N')
			n += put_utf8(out + n, 0x85);
		else if (*p == '_')
			n += put_utf8(out + n, 0xa0);
		else if (*p == 'L' || *p == 'P')
			n += put_utf8(out + n, *p == 'L' ? 0x2028 : 0x2029);
		else
			return -1;
		p++;
	}
	*after = p + 1;
	return p < eol ? (long)n : -1;
}

/* The level and message of the record on [p, eol): 1 for a target line
 * (its text appended to out at *n), 0 for another level, -1 if malformed. */
/* The level and message of the record on [p, eol): 1 for a target line
 * (its text appended to out at *n), 0 for another level, -1 if malformed
 * or cut short. */
static int take_record(const char *p, const char *eol, char *out, size_t *n)
{
	static const char msg[] = "\", \"msg\": ";
	const char *m = memmem(p, eol - p, "\"lvl\": \"", 8), *q;
	long got;
	size_t i, k;

	if (!m || !(q = memchr(m + 8, '"', eol - m - 8)))
		return -1;
	if (q - m - 8 != 6 || memcmp(m + 8, "target", 6))
		return 0;
	if ((size_t)(eol - q) < sizeof(msg) - 1 || memcmp(q, msg, sizeof(msg) - 1))
		return -1;
	m = q + sizeof(msg) - 1;
	if (eol - m >= 2 && m[0] == '!' && m[1] == ' ')
		m += 2;			/* yaml.dump's tag on a string that looks like a number */
	if (m >= eol || *m != '"' || (got = yaml_dq(m + 1, eol, out + *n, &q)) < 0)
		return -1;
	while (q < eol && (*q == ' ' || *q == '\r'))
		q++;
	if (q >= eol || *q != '}')
		return -1;		/* the record's end is missing */
	/* ShellLogger's \" back to the console's " */
	for (i = k = 0; i < (size_t)got; i++) {
		if (out[*n + i] == '\\' && i + 1 < (size_t)got && out[*n + i + 1] == '"')
			i++;
		out[*n + k++] = out[*n + i];
	}
	*n += k;
	out[(*n)++] = '\n';
	return 1;
}

int read_lava(struct report *rep, const char *name, const char *buf, size_t len,
	      const char *date)
{
	const char *p = buf, *end = buf + len;
	unsigned long no = 0, bad = 0, target = 0;
	size_t n = 0;
	char *text;
	int rc;

	/* A decoded message is at most 1.5 times its escaped form (\L, two
	 * characters, is three bytes of UTF-8). */
	text = malloc(len + len / 2 + 2);
	if (!text) {
		fprintf(stderr, "mmureport: %s: out of memory\n", name);
		exit(3);
	}
	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		int r;

		eol = eol ? eol : end;
		no++;
		if (!record_start(p, eol)) {
			if (skip_blank(p, eol) != eol && bad++ < 5)
				fprintf(stderr, "mmureport: %s: line %lu: not a LAVA log record: "
					"passed over\n", name, no);
		} else if ((r = take_record(p, eol, text, &n)) < 0) {
			if (bad++ < 5)
				fprintf(stderr, "mmureport: %s: line %lu: a LAVA record cut short or "
					"malformed: what it held is not in the report\n", name, no);
		} else
			target += (unsigned long)r;
		p = eol + 1;
	}
	if (!target) {
		fprintf(stderr, "mmureport: %s: a LAVA log without one target (console) line\n", name);
		free(text);
		return -1;
	}
	rc = read_mmubench(rep, name, text, n, date);
	free(text);
	return rc;
}
