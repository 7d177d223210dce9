/*
 * mmuguess: cache sizes and latencies from a memory-latency curve, with the
 * step detection the image's lat_mem probe uses (boot/guess.c).
 *
 *   mmuguess -t RANDOM [-s STRIDE]      LMbench lat_mem_rd output
 *   mmuguess LOG                        an mmubench console log
 *
 * RANDOM is `lat_mem_rd -t <MB> <stride>` output (a random chase), STRIDE
 * the same without -t (line stride): lines "<size in MB> <ns>" after a
 * quoted header such as `"stride=64`, one curve per file.  With STRIDE, a
 * step of the random curve counts as a cache only where the stride curve
 * steps too (a TLB step hardly shows at line stride, see boot/guess.c);
 * without it every step is taken for a cache, which is right only where
 * the TLB cannot step (no translation, or large enough pages).
 * In a LOG, each mode's `lat_mem.<mode>.random_<bytes>_ns` curve is
 * checked against the same mode's `stride_<bytes>_ns` curve likewise.
 *
 * Prints the guesses as `name value unit` lines (l1_bytes, l1_ns, ...,
 * mem_ns; in a LOG prefixed `lat_mem.<mode>.`), then `# ` notes on what is
 * not claimed and why.  Exit status: 0 guesses printed (maybe none, with
 * the reason), 1 bad input, 2 usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guess.h"

struct curve {
	char mode[32], pattern[16];
	int n;
	uint64_t bytes[GUESS_MAX_POINTS];
	int64_t ns100[GUESS_MAX_POINTS];
};

#define MAX_CURVES 32
static struct curve curves[MAX_CURVES];
static int ncurves;

static void die(const char *file, unsigned long line, const char *what)
{
	if (line)
		fprintf(stderr, "mmuguess: %s:%lu: %s\n", file, line, what);
	else
		fprintf(stderr, "mmuguess: %s: %s\n", file, what);
	exit(1);
}

/* Points arrive in any order in a log (reps, modes): keep them sorted. */
static void add_point(struct curve *c, uint64_t bytes, int64_t ns100, const char *file,
		      unsigned long line)
{
	int i = c->n;

	if (c->n == GUESS_MAX_POINTS)
		die(file, line, "too many points in one curve");
	while (i > 0 && c->bytes[i - 1] > bytes) {
		c->bytes[i] = c->bytes[i - 1];
		c->ns100[i] = c->ns100[i - 1];
		i--;
	}
	if (i > 0 && c->bytes[i - 1] == bytes)
		die(file, line, "the same size twice in one curve");
	c->bytes[i] = bytes;
	c->ns100[i] = ns100;
	c->n++;
}

static struct curve *lookup(const char *mode, const char *pattern)
{
	for (int i = 0; i < ncurves; i++)
		if (!strcmp(curves[i].mode, mode) && !strcmp(curves[i].pattern, pattern))
			return &curves[i];
	return 0;
}

static struct curve *find_curve(const char *mode, const char *pattern)
{
	if (lookup(mode, pattern))
		return lookup(mode, pattern);
	if (ncurves == MAX_CURVES)
		return 0;
	snprintf(curves[ncurves].mode, sizeof(curves[0].mode), "%s", mode);
	snprintf(curves[ncurves].pattern, sizeof(curves[0].pattern), "%s", pattern);
	return &curves[ncurves++];
}

/* LMbench lat_mem_rd output: one curve. */
static void read_lmbench(const char *file, struct curve *c)
{
	FILE *f = fopen(file, "r");
	char line[256];
	unsigned long no = 0;
	int headers = 0;

	if (!f)
		die(file, 0, "cannot open");
	while (fgets(line, sizeof(line), f)) {
		double mb, ns;
		char extra;

		no++;
		if (line[0] == '"') {
			if (strncmp(line, "\"stride=", 8))
				die(file, no, "a quoted header other than \"stride=");
			if (++headers > 1)
				die(file, no, "more than one curve: give one stride per file");
			continue;
		}
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		if (sscanf(line, "%lf %lf %c", &mb, &ns, &extra) != 2 || mb <= 0 || ns <= 0 ||
		    mb > 1e6 || ns > 1e9)
			die(file, no, "not a \"<size in MB> <ns>\" line");
		/* lat_mem_rd prints MB with 5 decimals; its sizes are 512-byte multiples. */
		add_point(c, (uint64_t)(mb * 1048576.0 / 512.0 + 0.5) * 512, (int64_t)(ns * 100.0 + 0.5),
			  file, no);
	}
	fclose(f);
	if (!headers)
		die(file, 0, "no \"stride= header: not lat_mem_rd output");
}

/* An mmubench log: "# measurement lat_mem.<mode>.<pattern>_<bytes>_ns <v> ns". */
static void read_log(const char *file)
{
	FILE *f = fopen(file, "r");
	char line[512];
	unsigned long no = 0;

	if (!f)
		die(file, 0, "cannot open");
	while (fgets(line, sizeof(line), f)) {
		char mode[32], pattern[16], unit[16];
		unsigned long long bytes;
		double ns;
		struct curve *c;

		no++;
		if (sscanf(line, "# measurement lat_mem.%31[^.].%15[a-z]_%llu_ns %lf %15s", mode,
			   pattern, &bytes, &ns, unit) != 5)
			continue;
		if (strcmp(unit, "ns") || ns <= 0)
			die(file, no, "a lat_mem curve point that is not a positive time in ns");
		c = find_curve(mode, pattern);
		if (!c)
			die(file, no, "too many curves");
		add_point(c, bytes, (int64_t)(ns * 100.0 + 0.5), file, no);
	}
	fclose(f);
	if (!ncurves)
		die(file, 0, "no lat_mem.<mode>.<pattern>_<bytes>_ns measurement");
}

static void print_ns(const char *prefix, const char *name, int64_t ns100)
{
	printf("%s%s %lld.%02lld ns\n", prefix, name, (long long)(ns100 / 100),
	       (long long)(ns100 % 100));
}

static void print_guess(const char *prefix, const struct curve *c, const struct curve *confirm)
{
	struct guess_curve gc = { c->n, c->bytes, c->ns100 }, gs;
	struct guess g;
	char name[16];

	if (confirm) {
		gs.n = confirm->n;
		gs.bytes = confirm->bytes;
		gs.ns100 = confirm->ns100;
	}
	guess_caches(&gc, confirm ? &gs : 0, 0, &g);
	for (int i = 0; i < g.levels; i++) {
		snprintf(name, sizeof(name), "l%d_bytes", i + 1);
		printf("%s%s %llu bytes\n", prefix, name, (unsigned long long)g.level[i].bytes);
		snprintf(name, sizeof(name), "l%d_ns", i + 1);
		print_ns(prefix, name, g.level[i].ns100);
	}
	if (g.mem)
		print_ns(prefix, "mem_ns", g.top.ns100);
	if (!confirm)
		printf("# %sno line-stride curve: every step is taken for a cache\n", prefix);
	if (g.note[0])
		printf("# %s%s\n", prefix, g.note);
}

static void usage(void)
{
	fprintf(stderr, "usage: mmuguess -t RANDOM [-s STRIDE]   (LMbench lat_mem_rd output)\n"
			"       mmuguess LOG                    (an mmubench console log)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *random_file = 0, *stride_file = 0, *log = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			random_file = argv[++i];
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			stride_file = argv[++i];
		else if (argv[i][0] != '-' && !log)
			log = argv[i];
		else
			usage();
	}
	if (!!log == !!random_file || (stride_file && !random_file))
		usage();

	if (random_file) {
		struct curve *r = &curves[0], *s = stride_file ? &curves[1] : 0;
		read_lmbench(random_file, r);
		if (s)
			read_lmbench(stride_file, s);
		print_guess("", r, s);
		return 0;
	}
	read_log(log);
	for (int i = 0; i < ncurves; i++) {
		char prefix[64];
		if (strcmp(curves[i].pattern, "random"))
			continue;
		snprintf(prefix, sizeof(prefix), "lat_mem.%s.", curves[i].mode);
		print_guess(prefix, &curves[i], lookup(curves[i].mode, "stride"));
	}
	return 0;
}
