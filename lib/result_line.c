/* Writing result lines (include/result_line.h): the image's report
 * (boot/report.c) formats every protected line here. */
#include <stdio.h>
#include <string.h>
#include "crc32.h"
#include "result_line.h"

int format_fixed(char *buf, unsigned long size, int64_t value, int decimals)
{
	static const int64_t pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	const char *sign = value < 0 ? "-" : "";
	uint64_t mag = value < 0 ? -(uint64_t)value : (uint64_t)value;

	if (decimals <= 0)
		return snprintf(buf, size, "%s%llu", sign, (unsigned long long)mag);
	return snprintf(buf, size, "%s%llu.%0*llu", sign,
			(unsigned long long)(mag / pow10[decimals]), decimals,
			(unsigned long long)(mag % pow10[decimals]));
}

int rl_ktap_line(const char *text)
{
	return !strncmp(text, "ok ", 3) || !strncmp(text, "not ok ", 7) || !strncmp(text, "1..", 3);
}

size_t rl_seal(char *line, size_t n, unsigned seq)
{
	char at[16];
	int k = sprintf(at, "  @%u", seq);
	unsigned long crc = crc32(crc32(0, line, n), at, k);

	if (rl_ktap_line(line))		/* its integrity on a line of its own */
		return n + sprintf(line + n, "\n# @%u:%08lx\n", seq, crc);
	return n + sprintf(line + n, "%s:%08lx\n", at, crc);
}

int rl_measurement(char *buf, size_t size, const char *probe, const char *mode,
		   const char *metric, int64_t value, int decimals, const char *unit)
{
	char num[32];

	format_fixed(num, sizeof(num), value, decimals);
	return snprintf(buf, size, "# measurement %s.%s.%s %s %s", probe, mode, metric, num, unit);
}

int rl_sample(char *buf, size_t size, const char *probe, const char *mode, const char *metric,
	      int rep, int64_t value, int decimals, const char *unit)
{
	char num[32];

	format_fixed(num, sizeof(num), value, decimals);
	return snprintf(buf, size, "# sample %s.%s.%s %d %s %s", probe, mode, metric, rep, num,
			unit);
}

int rl_result(char *buf, size_t size, int ok, int number, const char *name,
	      const char *directive, const char *reason)
{
	const char *verdict = ok ? "ok" : "not ok";

	if (!directive)
		return snprintf(buf, size, "%s %d %s", verdict, number, name);
	return snprintf(buf, size, "%s %d %s # %s %s", verdict, number, name, directive, reason);
}

int rl_curve_point(const char *metric, struct rl_point *pt)
{
	size_t n = strlen(metric), end, i, digits_end;
	struct rl_point p = { 0, 0, 0 };

	if (n > 3 && !strcmp(metric + n - 3, "_ns"))
		end = n - 3;
	else if (n > 4 && !strcmp(metric + n - 4, "_mbs"))
		end = n - 4;
	else
		return 0;
	i = end;
	if (i > 0 && metric[i - 1] == 'p')
		p.pages = 1, i--;
	digits_end = i;
	while (i > 0 && metric[i - 1] >= '0' && metric[i - 1] <= '9')
		i--;
	if (i == digits_end || (i > 0 && metric[i - 1] != '_'))
		return 0;
	p.prefix_len = i ? i - 1 : 0;
	for (size_t k = i; k < digits_end; k++)
		p.number = p.number * 10 + (uint64_t)(metric[k] - '0');
	if (pt)
		*pt = p;
	return 1;
}
