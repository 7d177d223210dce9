/* Reading result lines (include/result_line.h): the host tools' one
 * parser of what lib/result_line.c writes. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "result_line.h"

size_t rl_text_len(const char *line)
{
	const char *at = strrchr(line, '@'), *p;

	if (!at || at - line < 2 || at[-1] != ' ' || at[-2] != ' ')
		return strlen(line);
	for (p = at + 1; isdigit((unsigned char)*p); p++)
		;
	if (p == at + 1 || *p != ':' || strspn(p + 1, "0123456789abcdef") != 8 || p[9])
		return strlen(line);
	return at - 2 - line;
}

/* A plain decimal number, as the format has them; 0 on anything else. */
static int plain_number(const char *s, double *v, int *decimals)
{
	const char *p = s, *dot;
	char *end;

	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return 0;
	*v = strtod(s, &end);
	if (*end || !isfinite(*v))
		return 0;
	dot = strchr(s, '.');
	*decimals = dot ? (int)strlen(dot + 1) : 0;
	for (p = s + (*s == '-'); *p; p++)
		if (!isdigit((unsigned char)*p) && *p != '.')
			return 0;
	return 1;
}

/* A name as the image writes them: letters, digits, '_' and '-' in
 * parts joined by '.' (nothing a shell, a page or a path reads as more). */
static int plain_name(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
			return 0;
	return 1;
}

/* A unit: "ns", "MB/s", "%" and the like. */
static int plain_unit(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-/%", *s))
			return 0;
	return 1;
}

/* "probe.mode.metric" into its parts; 0 when it has not three that fit. */
static int split_name(struct rl_line *l)
{
	const char *name = l->name, *d1 = strchr(name, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : 0;

	if (!plain_name(name) || !d1 || !d2 || d1 == name || d2 == d1 + 1 || !d2[1] ||
	    d1 - name >= (long)sizeof(l->probe) || d2 - d1 - 1 >= (long)sizeof(l->mode) ||
	    strlen(d2 + 1) >= sizeof(l->metric))
		return 0;
	memcpy(l->probe, name, d1 - name);
	l->probe[d1 - name] = 0;
	memcpy(l->mode, d1 + 1, d2 - d1 - 1);
	l->mode[d2 - d1 - 1] = 0;
	strcpy(l->metric, d2 + 1);
	return 1;
}

/* "ok|not ok <number> <name>[ # <directive> <reason>]" */
static enum rl_kind parse_result(const char *text, struct rl_line *l)
{
	const char *p = text, *hash;
	int used = 0;

	l->ok = !strncmp(p, "ok ", 3);
	p += l->ok ? 3 : 7;
	if (sscanf(p, "%lu %127s%n", &l->number, l->name, &used) != 2 || !isdigit((unsigned char)*p) ||
	    !plain_name(l->name))
		return RL_OTHER;
	hash = strstr(p + used, " # ");
	if (hash && (!strncmp(hash + 3, "SKIP", 4) || !strncmp(hash + 3, "TIMEOUT", 7))) {
		int n = hash[3] == 'S' ? 4 : 7;
		memcpy(l->directive, hash + 3, n);
		l->directive[n] = 0;
		l->reason = hash + 3 + n + (hash[3 + n] == ' ');
	}
	return l->kind = RL_RESULT;
}

enum rl_kind rl_parse(const char *text, struct rl_line *l)
{
	char extra;

	memset(l, 0, sizeof(*l));
	l->reason = "";
	if (!strncmp(text, "ok ", 3) || !strncmp(text, "not ok ", 7))
		return parse_result(text, l);
	if (sscanf(text, "# measurement %127s %47s %23s %c", l->name, l->value, l->unit, &extra) == 3) {
		if (split_name(l) && plain_unit(l->unit) && plain_number(l->value, &l->v, &l->decimals))
			l->kind = RL_MEASUREMENT;
	} else if (sscanf(text, "# sample %127s %d %47s %23s %c", l->name, &l->rep, l->value,
			  l->unit, &extra) == 4) {
		if (split_name(l) && plain_unit(l->unit) && plain_number(l->value, &l->v, &l->decimals) &&
		    l->rep >= 1)
			l->kind = RL_SAMPLE;
	} else if (sscanf(text, "1..%lu", &l->number) == 1) {
		l->kind = RL_PLAN;
	} else if (sscanf(text, "# Totals: pass:%lu fail:%lu skip:%lu", &l->pass, &l->fail,
			  &l->skip) == 3) {
		l->kind = RL_TOTALS;
	} else if (sscanf(text, "# mmubench status: %15s", l->status) == 1 && plain_name(l->status)) {
		l->kind = RL_STATUS;
	}
	if (l->kind == RL_OTHER)
		memset(l, 0, sizeof(*l)), l->reason = "";
	return l->kind;
}
