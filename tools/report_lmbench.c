/* mmureport's reader of LMbench lat_mem_rd output: one run, a curve a
 * "stride=N" header, guessed as mmuguess and the image guess theirs. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "guess.h"
#include "report_read.h"

/* A curve's guesses, as mmuguess makes them (LMbench says no cache sizes:
 * each level named by its interval's lower end, not judged). */
static void add_guesses(struct run *r, const char *mode, uint64_t *bytes, int64_t *ns100, int n)
{
	struct guess_curve gc = { .n = n, .bytes = bytes, .ns100 = ns100 };
	struct guess g;
	char metric[48];

	guess_caches(&gc, 0, 0, 0, &g);
	for (int i = 0; i < g.levels; i++) {
		snprintf(metric, sizeof(metric), "l%d_bytes", i + 1);
		meas_slot(r, "lat_mem", mode, metric, "bytes")->value = g.level[i].bytes;
		snprintf(metric, sizeof(metric), "l%d_lo_bytes", i + 1);
		meas_slot(r, "lat_mem", mode, metric, "bytes")->value = g.level[i].lo_bytes;
		snprintf(metric, sizeof(metric), "l%d_hi_bytes", i + 1);
		meas_slot(r, "lat_mem", mode, metric, "bytes")->value = g.level[i].hi_bytes;
		snprintf(metric, sizeof(metric), "l%d_verdict", i + 1);
		meas_slot(r, "lat_mem", mode, metric, "kind")->value = g.level[i].verdict;
		snprintf(metric, sizeof(metric), "l%d_ns", i + 1);
		struct meas *m = meas_slot(r, "lat_mem", mode, metric, "ns");
		m->value = g.level[i].ns100 / 100.0, m->decimals = 2;
	}
	if (g.mem) {
		struct meas *m = meas_slot(r, "lat_mem", mode, "mem_ns", "ns");
		m->value = g.top.ns100 / 100.0, m->decimals = 2;
	}
}

int read_lmbench(struct report *rep, const char *name, const char *buf, size_t len,
			const char *date)
{
	static char line[LINE_MAX_LEN];
	size_t pos = 0;
	unsigned long no = 0;
	struct run *r = new_run(rep, name, date);
	char mode[16] = "";
	uint64_t bytes[GUESS_MAX_POINTS];
	int64_t ns100[GUESS_MAX_POINTS];
	int n = 0, curves = 0;

	r->lmbench = 1;
	snprintf(r->board, sizeof(r->board), "lmbench");
	snprintf(r->platform, sizeof(r->platform), "Linux, LMbench lat_mem_rd");
	snprintf(r->status, sizeof(r->status), "pass");
	for (;;) {
		int more = next_line(buf, len, &pos, line);
		double mb, ns;
		char extra;

		if (more)
			no++;
		if (!more || line[0] == '"') {
			if (n)
				add_guesses(r, mode, bytes, ns100, n);
			n = 0;
			if (!more)
				break;
			int stride = 0;
			if (sscanf(line, "\"stride=%d", &stride) != 1 || stride <= 0) {
				fprintf(stderr, "mmureport: %s: line %lu: a quoted header other than \"stride=N\n",
					name, no);
				return -1;
			}
			curves++;
			snprintf(mode, sizeof(mode), "lmb-s%d", stride);
			add_mode(r, mode);
			continue;
		}
		if (strspn(line, " \t") == strlen(line))
			continue;
		if (!curves || sscanf(line, "%lf %lf %c", &mb, &ns, &extra) != 2 || !(mb > 0) ||
		    !(ns > 0) || mb > 1e6 || ns > 1e9) {
			fprintf(stderr, "mmureport: %s: line %lu: not a \"<size in MB> <ns>\" line of "
				"lat_mem_rd output: %.60s\n", name, no, line);
			return -1;
		}
		if (n == GUESS_MAX_POINTS) {
			fprintf(stderr, "mmureport: %s: line %lu: more than %d points in one curve\n",
				name, no, GUESS_MAX_POINTS);
			return -1;
		}
		/* lat_mem_rd prints MB with 5 decimals; its sizes are 512-byte multiples. */
		uint64_t b = (uint64_t)(mb * 1048576.0 / 512.0 + 0.5) * 512;
		if (n && b <= bytes[n - 1]) {
			fprintf(stderr, "mmureport: %s: line %lu: sizes not ascending\n", name, no);
			return -1;
		}
		bytes[n] = b;
		ns100[n] = (int64_t)(ns * 100.0 + 0.5);
		n++;
		char metric[48];
		snprintf(metric, sizeof(metric), "lmbench_%llu_ns", (unsigned long long)b);
		struct meas *m = meas_slot(r, "lat_mem", mode, metric, "ns");
		m->value = ns, m->decimals = 3, m->line = no;
	}
	return 0;
}

