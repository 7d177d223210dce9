/*
 * The text of an LMbench summary for report_lmbench2.c: its lines (tabs
 * expanded to 8 columns, CR and trailing blanks off), their words with the
 * columns they stand in, column rules and LMbench's figures.
 */
#define _GNU_SOURCE		/* memmem */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_lmbench2.h"

/* The text's words joined by single spaces. */
void lmb_collapse(const char *s, char *out, size_t size)
{
	size_t n = 0;

	while (*s && n + 1 < size) {
		while (*s == ' ')
			s++;
		while (*s && *s != ' ' && n + 1 < size)
			out[n++] = *s++;
		while (*s == ' ')
			s++;
		if (*s && n + 1 < size)
			out[n++] = ' ';
	}
	out[n] = 0;
}

/* Characters from..from+width-1 of a line, their words joined. */
void lmb_field(const char *l, size_t from, int width, char *out, size_t size)
{
	char raw[64];

	snprintf(raw, sizeof(raw), "%.*s", width, strlen(l) > from ? l + from : "");
	lmb_collapse(raw, out, size);
}

int lmb_is_summary(const char *buf, size_t len)
{
	return memmem(buf, len, "L M B E N C H", 13) && memmem(buf, len, "S U M M A R Y", 13);
}

int lmb_next_line(struct lmb_reader *rd)
{
	size_t n = 0;

	if (rd->again) {
		rd->again = 0;
		return 1;
	}
	if (rd->pos >= rd->len)
		return 0;
	while (rd->pos < rd->len && rd->buf[rd->pos] != '\n') {
		char c = rd->buf[rd->pos++];
		if (n + 1 >= LMB_LINE_LEN)
			continue;		/* the rest of an overlong line */
		if (c == '\t')
			do
				rd->line[n++] = ' ';
			while (n % 8 && n + 1 < LMB_LINE_LEN);
		else
			rd->line[n++] = c && c != '\r' ? c : ' ';
	}
	rd->ended = rd->pos < rd->len;
	rd->pos++;
	while (n && rd->line[n - 1] == ' ')
		n--;
	rd->line[n] = 0;
	rd->no++;
	return 1;
}

int lmb_words(const char *s, int from, struct lmb_word *w, int max)
{
	int n = 0, i = from;

	while (s[i] && n < max) {
		while (s[i] == ' ')
			i++;
		if (!s[i])
			break;
		w[n].start = i;
		while (s[i] && s[i] != ' ')
			i++;
		w[n].end = i - 1;
		snprintf(w[n].text, sizeof(w[n].text), "%.*s", i - w[n].start, s + w[n].start);
		n++;
	}
	return s[i] && n == max ? max + 1 : n;
}

/* A column rule: dash groups only.  Returns the number of groups. */
int lmb_rule(const char *s, struct lmb_word *g, int max)
{
	if (!*s || strspn(s, "- ") != strlen(s) || !strchr(s, '-'))
		return 0;
	return lmb_words(s, 0, g, max);
}

/* One of LMbench's figures: 1.40, 917., 30.K, 20.2K, 1.5M, 1.0e-04; "-"
 * is LMbench's blank, "?" mmureport's unknown.  Returns 1 and the value, 0
 * for "-" and "?", -1 otherwise. */
int lmb_figure(const char *s, double *v)
{
	char *end;

	if (!strcmp(s, "-") || !strcmp(s, "?"))
		return 0;
	if (!isdigit((unsigned char)s[0]) && s[0] != '.')
		return -1;
	*v = strtod(s, &end);
	if (*end == 'K' || *end == 'M')
		*v *= *end++ == 'K' ? 1e3 : 1e6;
	return *end || !isfinite(*v) ? -1 : 1;
}
