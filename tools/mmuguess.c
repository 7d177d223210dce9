/*
 * mmuguess: cache sizes and latencies from memory-latency curves, with the
 * step detection and the method of the image's lat_mem probe (lib/guess.c).
 *
 *   mmuguess -t CURVE [-T PAGECHASE] [-r REACH]... [-c BYTES] [-l L1,L2[,L3]] [-w W1,W2[,W3]] [-x L] [-s] [-p]
 *   mmuguess [-r REACH]... LOG
 *
 * CURVE is `lat_mem_rd -t <MB> <stride>` output: lines "<size in MB> <ns>"
 * after a quoted header such as `"stride=64`, one curve per file.  A
 * page-spread chase (LMbench's) also steps where its pages outgrow a TLB;
 * such a step is set aside when it lies within a factor 1.5 of a TLB
 * reach: the first step of PAGECHASE (a tools/pagechase curve, one load a
 * page), or given as REACH bytes.  Without any, every step is taken for a
 * cache (right for a TLB-local curve, or where the TLB cannot step).
 * BYTES: the largest cache the CPU reports; memory is claimed only past it
 * (default: the largest of -l).  -l: the data caches' sizes the CPU
 * documents, level by level (0: not documented), each level judged
 * against its own; -w: their ways; -x L: level L is a victim (exclusive)
 * cache; -s: others run beside the curve's program (L3 is theirs too: an
 * effective capacity, not judged; a neighbour may hold one way of the
 * others: lib/guess.c step 4); -p: CURVE
 * is itself a page chase, whose TLB levels need not be 2x apart.
 * In a LOG, as the image does in lat_mem: each mode's TLB-local curve
 * (`lat_mem.<mode>.local_<bytes>_ns`: the log's figure is already the
 * median of the repetitions, the image's reference) guessed with the log's
 * `cpuid.*.l1d_bytes`, `l2_bytes`, `l3_bytes` and their `_ways`, L3 shared unless the
 * `# platform:` line says bare hardware; each mode's latencies are read
 * off its own random curve at the middle of each level.  A log with only
 * random curves (older images) is guessed per mode with the reach of
 * `tlb.<mode>.reach_bytes` where it has it.  A log from QEMU (its
 * `# platform: QEMU ...` line) gets no level and no memory, as in the image.
 *
 * Prints the guesses as `name value unit` lines (per level l1_bytes,
 * l1_lo_bytes, l1_hi_bytes, l1_verdict, l1_ns, ...; mem_ns;
 * in a LOG prefixed `lat_mem.<mode>.`), a `# ` line per level on its
 * interval and verdict (lib/guess.c), then `# ` notes on what is
 * not claimed and why.  Exit status: 0 guesses printed (maybe none, with
 * the reason), 1 bad input, 2 usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guess.h"
#include "result_line.h"

struct curve {
	char mode[32], pattern[16];
	uint64_t reach;			/* tlb.<mode>.reach_bytes in a log, 0 */
	int n;
	uint64_t bytes[GUESS_MAX_POINTS];
	int64_t ns100[GUESS_MAX_POINTS];
};

#define MAX_CURVES 32
static struct curve curves[MAX_CURVES];
static int ncurves;
static char emulated[160];		/* a log's "# platform: QEMU ..." line */
static uint64_t cpu_top;		/* -c, or the log's largest cpuid.*.l<N>_bytes */
static uint64_t cpu_bytes[GUESS_LEVELS];	/* -l, or the log's cpuid.*.l1d/l2/l3_bytes */
static uint64_t cpu_ways[GUESS_LEVELS];	/* -w, or the log's cpuid.*.l1d/l2/l3_ways */
static uint32_t exclusive;		/* -x: bit L-1 */
static int shared;			/* -s, or a log's platform is not bare hardware */
static int page_chase;			/* -p: CURVE is a TLB's (one load a page) */

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

/* A data cache the CPU reports, cpuid.<mode>.l1d_<what>, l2_<what> or
 * l3_<what> (bytes, ways): its level (1-3), else 0. */
static int cpuid_cache_level(const struct rl_line *l, const char *what)
{
	const char *m = l->metric;
	char want[16];

	if (strcmp(l->probe, "cpuid") || m[0] != 'l' || m[1] < '1' || m[1] > '3')
		return 0;
	snprintf(want, sizeof(want), "%s_%s", m[1] == '1' ? "d" : "", what);
	return !strcmp(m + 2, want) ? m[1] - '0' : 0;
}

/* An mmubench log: "# measurement lat_mem.<mode>.<pattern>_<bytes>_ns <v> ns",
 * read with the result format's parser (lib/result_parse.c). */
static void read_log(const char *file)
{
	FILE *f = fopen(file, "r");
	char line[512];
	unsigned long no = 0;

	if (!f)
		die(file, 0, "cannot open");
	while (fgets(line, sizeof(line), f)) {
		struct rl_line l;
		struct rl_point pt;
		struct curve *c;

		no++;
		line[strcspn(line, "\r\n")] = 0;
		line[rl_text_len(line)] = 0;
		if (!strncmp(line, "# platform: ", 12)) {
			if (!strncmp(line + 12, "QEMU", 4))
				snprintf(emulated, sizeof(emulated), "%.150s", line + 12);
			shared = strncmp(line + 12, "bare hardware", 13) != 0;
			continue;
		}
		if (rl_parse(line, &l) != RL_MEASUREMENT)
			continue;
		if (cpuid_cache_level(&l, "ways")) {
			cpu_ways[cpuid_cache_level(&l, "ways") - 1] = (uint64_t)l.v;
			continue;
		}
		if (cpuid_cache_level(&l, "bytes")) {
			cpu_bytes[cpuid_cache_level(&l, "bytes") - 1] = (uint64_t)l.v;
			if (l.v > cpu_top)
				cpu_top = (uint64_t)l.v;
			continue;
		}
		if (!strcmp(l.probe, "tlb") && !strcmp(l.metric, "reach_bytes")) {
			c = find_curve(l.mode, "random");
			if (!c)
				die(file, no, "too many curves");
			c->reach = (uint64_t)l.v;
			continue;
		}
		if (strcmp(l.probe, "lat_mem") || !rl_curve_point(l.metric, &pt) || pt.pages ||
		    !pt.prefix_len || pt.prefix_len >= sizeof(c->pattern) ||
		    strspn(l.metric, "abcdefghijklmnopqrstuvwxyz") != pt.prefix_len ||
		    strcmp(l.metric + strlen(l.metric) - 3, "_ns"))
			continue;
		if (strcmp(l.unit, "ns") || l.v <= 0)
			die(file, no, "a lat_mem curve point that is not a positive time in ns");
		char pattern[16];
		snprintf(pattern, sizeof(pattern), "%.*s", (int)pt.prefix_len, l.metric);
		c = find_curve(l.mode, pattern);
		if (!c)
			die(file, no, "too many curves");
		add_point(c, pt.number, (int64_t)(l.v * 100.0 + 0.5), file, no);
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

/* A page-chase curve (tools/pagechase): its first step is the
 * first-level data TLB running out of reach, there where half the rise is
 * (a random curve's TLB step is set aside within 1.5x of it). */
static uint64_t read_tlb(const char *file)
{
	static struct curve t;
	struct guess_curve gc = { 0 };
	struct guess g;

	read_lmbench(file, &t);
	gc.n = t.n;
	gc.bytes = t.bytes;
	gc.ns100 = t.ns100;
	gc.tlb = 1;
	if (!guess_caches(&gc, 0, 0, 0, &g))
		die(file, 0, "no step in the page-chase curve: no TLB reach");
	return g.level[0].at_bytes;
}

/* The levels of `g`, their latencies read off `lat` at the middle of each
 * plateau (`lat` has the guessed curve's sizes), as the image reads each
 * mode's random curve; with no `lat`, each plateau's own median. */
static void print_levels(const char *prefix, const char *who, const struct guess *g,
			 const struct curve *lat)
{
	char text[200];

	for (int i = 0; i < g->levels; i++) {
		const struct guess_level *lv = &g->level[i];

		printf("%sl%d_bytes %llu bytes\n", prefix, i + 1, (unsigned long long)lv->bytes);
		printf("%sl%d_lo_bytes %llu bytes\n", prefix, i + 1, (unsigned long long)lv->lo_bytes);
		printf("%sl%d_hi_bytes %llu bytes\n", prefix, i + 1, (unsigned long long)lv->hi_bytes);
		printf("%sl%d_verdict %d kind\n", prefix, i + 1, lv->verdict);
		snprintf(text, sizeof(text), "l%d_ns", i + 1);
		print_ns(prefix, text, lat ? lat->ns100[(lv->lo + lv->hi) / 2] : lv->ns100);
		guess_describe(g, i, text, sizeof(text));
		printf("# %s%s\n", who, text);
	}
	if (g->mem)
		print_ns(prefix, "mem_ns", lat ? lat->ns100[(g->top.lo + g->top.hi) / 2] : g->top.ns100);
	if (g->note[0])
		printf("# %s%s\n", who, g->note);
}

/* The curve with what the CPU documents. */
static struct guess_curve with_cpu(const struct curve *c)
{
	struct guess_curve gc = { .n = c->n, .bytes = c->bytes, .ns100 = c->ns100, .cpu_top = cpu_top,
				  .exclusive = exclusive, .shared_top = shared, .tlb = page_chase };

	memcpy(gc.cpu_bytes, cpu_bytes, sizeof(cpu_bytes));
	for (int l = 0; l < GUESS_LEVELS; l++)
		gc.cpu_ways[l] = (uint32_t)cpu_ways[l];
	return gc;
}

static void who_of(const char *prefix, char *who, size_t size)
{
	who[0] = 0;
	if (prefix[0])		/* notes: "# lat_mem.flat: ..." */
		snprintf(who, size, "%.*s: ", (int)strlen(prefix) - 1, prefix);
}

static void print_guess(const char *prefix, const struct curve *c, const uint64_t *reach, int nreach)
{
	struct guess_curve gc = with_cpu(c);
	struct guess g;
	char who[64];

	who_of(prefix, who, sizeof(who));
	if (emulated[0]) {		/* as the image: nothing claimed under QEMU */
		printf("# %sno cache level and no memory latency claimed: %s\n", who, emulated);
		return;
	}
	guess_caches(&gc, reach, nreach, 0, &g);
	if (!nreach)
		printf("# %sno TLB reach given: every step is taken for a cache\n", who);
	print_levels(prefix, who, &g, 0);
}

static int same_sizes(const struct curve *a, const struct curve *b)
{
	return a->n == b->n && !memcmp(a->bytes, b->bytes, a->n * sizeof(a->bytes[0]));
}

/* A log with TLB-local curves, as the image's lat_mem: each mode its own
 * (the log's figures are the medians of the repetitions); each mode's
 * latencies from its own random curve. */
static void print_log_guesses(void)
{
	for (int i = 0; i < ncurves; i++) {
		const struct curve *c = &curves[i], *r = lookup(c->mode, "random");
		struct guess_curve gc = with_cpu(c);
		char prefix[64], who[64];
		struct guess g;

		if (strcmp(c->pattern, "local") || !c->n)
			continue;
		snprintf(prefix, sizeof(prefix), "lat_mem.%.31s.", c->mode);
		who_of(prefix, who, sizeof(who));
		if (emulated[0]) {
			printf("# %sno cache level and no memory latency claimed: %s\n", who, emulated);
			continue;
		}
		guess_caches(&gc, 0, 0, 0, &g);
		print_levels(prefix, who, &g, r && same_sizes(r, c) ? r : c);
	}
}

static int help;		/* --help: the usage on stdout, status 0 */

static void usage(void)
{
	fprintf(help ? stdout : stderr, "usage: mmuguess -t CURVE [-T PAGECHASE] [-r REACH]... [-c BYTES] [-l L1,L2[,L3]] [-w W1,W2[,W3]] [-x L] [-s] [-p]\n"
			"                (LMbench lat_mem_rd -t; tools/pagechase; the CPU's sizes, victim level, shared L3,\n"
			"                 CURVE a page chase)\n"
			"       mmuguess [-r REACH]... LOG   (an mmubench console log)\n");
	exit(help ? 0 : 2);
}

static uint64_t number(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (end == s || *end || !v || *s == '-')
		usage();
	return v;
}

/* -l, -w: up to GUESS_LEVELS sizes or ways, comma-separated, 0 for one
 * not documented; the largest size is the CPU's top cache. */
static void documented(const char *s, uint64_t *into, int sizes)
{
	int n = 0;

	for (;;) {
		char *end;
		unsigned long long v = strtoull(s, &end, 0);

		if (end == s || *s == '-' || n == GUESS_LEVELS || (*end && *end != ','))
			usage();
		into[n++] = v;
		if (sizes && v > cpu_top)
			cpu_top = v;
		if (!*end)
			return;
		s = end + 1;
	}
}

int main(int argc, char **argv)
{
	const char *random_file = 0, *tlb_file = 0, *log = 0;
	uint64_t reach[9], top = 0;
	int nreach = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			help = 1, usage();
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			random_file = argv[++i];
		else if (!strcmp(argv[i], "-T") && i + 1 < argc)
			tlb_file = argv[++i];
		else if (!strcmp(argv[i], "-r") && i + 1 < argc && nreach < 8)
			reach[nreach++] = number(argv[++i]);
		else if (!strcmp(argv[i], "-c") && i + 1 < argc)
			top = number(argv[++i]);
		else if (!strcmp(argv[i], "-l") && i + 1 < argc)
			documented(argv[++i], cpu_bytes, 1);
		else if (!strcmp(argv[i], "-w") && i + 1 < argc)
			documented(argv[++i], cpu_ways, 0);
		else if (!strcmp(argv[i], "-x") && i + 1 < argc && number(argv[i + 1]) <= GUESS_LEVELS)
			exclusive |= 1u << (number(argv[++i]) - 1);
		else if (!strcmp(argv[i], "-s"))
			shared = 1;
		else if (!strcmp(argv[i], "-p"))
			page_chase = 1;
		else if (argv[i][0] != '-' && !log)
			log = argv[i];
		else
			usage();
	}
	if (!!log == !!random_file || (tlb_file && !random_file))
		usage();
	if (top)
		cpu_top = top;

	if (random_file) {
		read_lmbench(random_file, &curves[0]);
		if (tlb_file)
			reach[nreach++] = read_tlb(tlb_file);
		print_guess("", &curves[0], reach, nreach);
		return 0;
	}
	read_log(log);
	for (int i = 0; i < ncurves; i++)
		if (!strcmp(curves[i].pattern, "local") && curves[i].n) {
			print_log_guesses();
			return 0;
		}
	for (int i = 0; i < ncurves; i++) {
		char prefix[64];
		int nr = nreach;

		if (strcmp(curves[i].pattern, "random") || !curves[i].n)
			continue;
		if (curves[i].reach)
			reach[nr++] = curves[i].reach;
		snprintf(prefix, sizeof(prefix), "lat_mem.%.31s.", curves[i].mode);
		print_guess(prefix, &curves[i], reach, nr);
	}
	return 0;
}
