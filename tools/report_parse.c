/*
 * mmureport's input: mmubench console logs (QEMU output, tools/console
 * captures, LAVA logs, CRLF, stray bytes before "KTAP version 1") and
 * LMbench lat_mem_rd output.
 *
 * Every line of a log goes through the shared integrity check
 * (tools/linecheck.c, as logcheck and console use it); only lines it
 * accepts give values.  A line that is intact but out of sequence (lines
 * were lost before it) still counts: its CRC is good.  A garbled line
 * gives nothing.  A prefix before "KTAP version 1" (a LAVA or capture
 * tool's timestamp) is taken off every later line of the same shape
 * (digits where it has digits, the same other characters); LAVA's
 * output.yaml records give their "target" messages.
 */
#define _GNU_SOURCE		/* memmem */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "guess.h"
#include "linecheck.h"
#include "mmureport.h"

#define LINE_MAX_LEN 4096

static void *grow(void *p, int *cap, int need, size_t size)
{
	if (need <= *cap)
		return p;
	*cap = *cap ? *cap * 2 : 64;
	if (*cap < need)
		*cap = need;
	p = realloc(p, *cap * size);
	if (!p) {
		fprintf(stderr, "mmureport: out of memory\n");
		exit(3);
	}
	return p;
}

static struct run *new_run(struct report *rep, const char *file, const char *date)
{
	struct run *r;

	rep->runs = realloc(rep->runs, (rep->nruns + 1) * sizeof(*rep->runs));
	if (!rep->runs) {
		fprintf(stderr, "mmureport: out of memory\n");
		exit(3);
	}
	r = &rep->runs[rep->nruns++];
	memset(r, 0, sizeof(*r));
	snprintf(r->file, sizeof(r->file), "%s", file);
	snprintf(r->date, sizeof(r->date), "%s", date);
	r->index = rep->nruns;
	r->reps = 1;
	return r;
}

static void add_mode(struct run *r, const char *mode)
{
	for (int i = 0; i < r->nmodes; i++)
		if (!strcmp(r->modes[i], mode))
			return;
	if (r->nmodes < (int)(sizeof(r->modes) / sizeof(r->modes[0])))
		snprintf(r->modes[r->nmodes++], sizeof(r->modes[0]), "%s", mode);
}

/* "probe.mode.metric" into its parts; 0 when it has not three. */
static int split_name(const char *name, char *probe, char *mode, char *metric)
{
	const char *d1 = strchr(name, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : 0;

	if (!d1 || !d2 || d1 == name || d2 == d1 + 1 || !d2[1] || d1 - name >= 24 ||
	    d2 - d1 - 1 >= 16 || strlen(d2 + 1) >= 48)
		return 0;
	memcpy(probe, name, d1 - name);
	probe[d1 - name] = 0;
	memcpy(mode, d1 + 1, d2 - d1 - 1);
	mode[d2 - d1 - 1] = 0;
	strcpy(metric, d2 + 1);
	return 1;
}

const struct meas *run_find(const struct run *r, const char *probe, const char *mode,
			    const char *metric)
{
	for (int i = 0; i < r->nm; i++)
		if (!isnan(r->m[i].value) && !strcmp(r->m[i].metric, metric) &&
		    !strcmp(r->m[i].mode, mode) && !strcmp(r->m[i].probe, probe))
			return &r->m[i];
	return 0;
}

/* The entry a measurement or sample line fills: an open one of the same
 * name (samples come before their median), else a new one. */
static struct meas *meas_slot(struct run *r, const char *probe, const char *mode,
			      const char *metric, const char *unit)
{
	for (int i = r->nm - 1; i >= 0; i--) {
		struct meas *m = &r->m[i];
		if (isnan(m->value) && !strcmp(m->metric, metric) && !strcmp(m->mode, mode) &&
		    !strcmp(m->probe, probe))
			return m;
	}
	r->m = grow(r->m, &r->cap, r->nm + 1, sizeof(*r->m));
	struct meas *m = &r->m[r->nm++];
	memset(m, 0, sizeof(*m));
	snprintf(m->probe, sizeof(m->probe), "%s", probe);
	snprintf(m->mode, sizeof(m->mode), "%s", mode);
	snprintf(m->metric, sizeof(m->metric), "%s", metric);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->value = NAN;
	return m;
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

/* One accepted line of a run (its suffix already off). */
static void take_line(struct run *r, const char *text, unsigned long lineno)
{
	char name[128], value[48], unit[24], word[16], extra;
	char probe[24], mode[16], metric[48];
	unsigned long n;
	int rep, decimals;
	double v;

	if (sscanf(text, "# measurement %127s %47s %23s %c", name, value, unit, &extra) == 3) {
		if (!split_name(name, probe, mode, metric) || !plain_number(value, &v, &decimals))
			return;
		struct meas *m = meas_slot(r, probe, mode, metric, unit);
		m->value = v;
		m->decimals = decimals;
		m->line = lineno;
	} else if (sscanf(text, "# sample %127s %d %47s %23s %c", name, &rep, value, unit,
			  &extra) == 4) {
		if (!split_name(name, probe, mode, metric) || !plain_number(value, &v, &decimals) ||
		    rep < 1)
			return;
		struct meas *m = meas_slot(r, probe, mode, metric, unit);
		m->samples = realloc(m->samples, (m->nsamples + 1) * sizeof(double));
		if (!m->samples)
			exit(3);
		m->samples[m->nsamples++] = v;
	} else if (sscanf(text, "ok %lu %47s", &n, name) == 2 ||
		   sscanf(text, "not ok %lu %47s", &n, name) == 2) {
		r->res = grow(r->res, &r->rescap, r->nres + 1, sizeof(*r->res));
		struct result *res = &r->res[r->nres++];
		snprintf(res->name, sizeof(res->name), "%s", name);
		snprintf(res->verdict, sizeof(res->verdict), "%s",
			 strstr(text, " # SKIP") ? "skip" : strstr(text, " # TIMEOUT") ? "timeout" :
			 text[0] == 'n' ? "not ok" : "ok");
		const char *dot = strchr(name, '.');
		if (dot && dot[1] && strcmp(dot + 1, "none"))
			add_mode(r, dot + 1);
	} else if (!strncmp(text, "# mmubench ", 11) && strstr(text, " on ")) {
		/* "# mmubench <version> on <board> (<arch>), entered by ..." */
		if (sscanf(text, "# mmubench %47s on %23s (%15[^)])", r->version, r->board,
			   r->arch) < 2)
			r->board[0] = 0;
	} else if (!strncmp(text, "# cpu: ", 7) && !r->cpu[0]) {
		/* The first names the CPU; the sandbox's second says where it is pinned. */
		snprintf(r->cpu, sizeof(r->cpu), "%s", text + 7);
	} else if (!strncmp(text, "# platform: ", 12)) {
		snprintf(r->platform, sizeof(r->platform), "%s", text + 12);
	} else if (!strncmp(text, "# run: ", 7)) {
		const char *reps = strstr(text, "reps=");
		snprintf(r->args, sizeof(r->args), "%s", text + 7);
		if (reps)
			r->reps = atoi(reps + 5);
	} else if (sscanf(text, "# mmubench status: %15s", word) == 1) {
		snprintf(r->status, sizeof(r->status), "%s", word);
	}
}

/* Does `line` begin with the prefix's shape (digits for digits)? */
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

/* LAVA output.yaml: `- {"dt": ..., "lvl": "target", "msg": "<line>"}`.
 * Returns 1 with the message in out, 0 for any other record. */
static int lava_target(const char *line, char *out, size_t size)
{
	const char *p = strstr(line, "\"msg\": \"");
	size_t n = 0;

	if (!strstr(line, "\"lvl\": \"target\"") || !p)
		return 0;
	for (p += 8; *p && *p != '"' && n + 1 < size; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			if (*p == 'n')
				out[n++] = '\n';
			else if (*p == 't')
				out[n++] = '\t';
			else if (*p == 'r')
				out[n++] = '\r';
			else if (*p == 'u' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2]) &&
				 isxdigit((unsigned char)p[3]) && isxdigit((unsigned char)p[4])) {
				char hex[5] = { p[1], p[2], p[3], p[4], 0 };
				long c = strtol(hex, 0, 16);
				out[n++] = c > 0 && c < 128 ? (char)c : '?';
				p += 4;
			} else
				out[n++] = *p;
		} else
			out[n++] = *p;
	}
	out[n] = 0;
	while (n && (out[n - 1] == '\r' || out[n - 1] == '\n'))
		out[--n] = 0;
	return 1;
}

/* The next line of buf from *pos, NULs made visible, CR and LF off. */
static int next_line(const char *buf, size_t len, size_t *pos, char *line)
{
	size_t n = 0;

	if (*pos >= len)
		return 0;
	while (*pos < len && buf[*pos] != '\n') {
		char c = buf[(*pos)++];
		if (n + 1 < LINE_MAX_LEN)
			line[n++] = c ? c : '?';
	}
	(*pos)++;
	while (n && line[n - 1] == '\r')
		n--;
	line[n] = 0;
	return 1;
}

/* ---- LMbench lat_mem_rd ---- */

static int read_lmbench(struct report *rep, const char *name, const char *buf, size_t len,
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
			if (n) {	/* the curve so far: its guesses, as mmuguess makes them */
				struct guess_curve gc = { n, bytes, ns100, 0 };	/* LMbench says no cache sizes */
				struct guess g;
				char metric[48];

				guess_caches(&gc, 0, 0, 0, &g);
				for (int i = 0; i < g.levels; i++) {
					snprintf(metric, sizeof(metric), "l%d_bytes", i + 1);
					meas_slot(r, "lat_mem", mode, metric, "bytes")->value = g.level[i].bytes;
					snprintf(metric, sizeof(metric), "l%d_ns", i + 1);
					struct meas *m = meas_slot(r, "lat_mem", mode, metric, "ns");
					m->value = g.level[i].ns100 / 100.0, m->decimals = 2;
				}
				if (g.mem) {
					struct meas *m = meas_slot(r, "lat_mem", mode, "mem_ns", "ns");
					m->value = g.top.ns100 / 100.0, m->decimals = 2;
				}
				n = 0;
			}
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

/* ---- mmubench logs ---- */

static int finish_run(struct linecheck *lc, struct run *r, struct report *rep)
{
	int v = linecheck_finish(lc);

	if (v == 2) {
		if (!lc->ended)
			return -1;	/* truncated: fatal */
		if (!r->losses)
			r->losses = 1;	/* plan, Totals or tables did not add up */
	}
	rep->losses += r->losses;
	return 0;
}

int report_read_buffer(struct report *rep, const char *name, const char *buf, size_t len,
		       const char *date)
{
	static char raw[LINE_MAX_LEN], line[LINE_MAX_LEN];
	static char prog[300];
	struct linecheck lc;
	struct run *r = 0;
	char prefix[64] = "";
	size_t pos = 0, plen = 0;
	unsigned long no = 0;
	int lava = 0, ktap = 0, open = 0, intact = 0;

	/* What kind of input: LAVA's YAML, LMbench, or a console log. */
	while (pos < len && isspace((unsigned char)buf[pos]))
		pos++;
	lava = len - pos > 3 && !strncmp(buf + pos, "- {", 3);
	pos = 0;
	if (!memmem(buf, len, "KTAP version", 12)) {
		if (memmem(buf, len, "\"stride=", 8) && !lava)
			return read_lmbench(rep, name, buf, len, date);
		fprintf(stderr, "mmureport: %s: not an mmubench log (no 'KTAP version 1' line) "
			"nor LMbench lat_mem_rd output (no \"stride= header)\n", name);
		return -1;
	}

	snprintf(prog, sizeof(prog), "mmureport: %s", name);
	while (next_line(buf, len, &pos, raw)) {
		char *text = raw, *k;

		no++;
		if (lava) {
			if (!lava_target(raw, line, sizeof(line)))
				continue;
			text = line;
		}
		k = strstr(text, "KTAP version ");
		if (k && (!k[13] || strspn(k + 13, "0123456789") != strlen(k + 13)))
			k = 0;		/* "KTAP version" in prose, not a header */
		if (k) {
			if (strcmp(k + 13, "1")) {
				fprintf(stderr, "mmureport: %s: line %lu: unknown format version '%.40s' "
					"(mmureport reads KTAP version 1)\n", name, no, k);
				return -1;
			}
			if (open) {
				fprintf(stderr, "mmureport: %s: line %lu: a new report begins before the "
					"status line of the one at line %lu: the board reset, the log is truncated\n",
					name, no, (unsigned long)r->index);
				return -1;
			}
			r = new_run(rep, name, date);
			r->index = (int)no;	/* for the message above; renumbered below */
			linecheck_init(&lc, prog);
			lc.max_complaints = 20;
			plen = k - text < (long)sizeof(prefix) ? (size_t)(k - text) : 0;
			memcpy(prefix, text, plen);
			prefix[plen] = 0;
			lc.lineno = no - 1;
			linecheck_line(&lc, k);
			open = 1, ktap = 1;
			continue;
		}
		if (!open)
			continue;
		if (plen && same_shape(text, prefix, plen))
			text += plen;
		lc.lineno = no - 1;
		enum lc_verdict v = linecheck_line(&lc, text);
		if (v == LC_OK) {
			intact++;
			take_line(r, text, no);
		} else if (v == LC_SEQ) {
			/* Intact (its CRC is good): lines before it were lost, or it repeats. */
			char *at = strrchr(text, '@');
			r->losses++;
			if (at && at - text >= 2)
				at[-2] = 0;
			if (lc.bad_seq > lc.bad_expected) {
				if (lc.complaints <= lc.max_complaints)
					fprintf(stderr, "mmureport: %s: line %lu: sequence number%s %lu%s%.0lu missing "
					"before this line: what they held is not in the report\n", name, no,
					lc.bad_seq - lc.bad_expected > 1 ? "s" : "", lc.bad_expected,
					lc.bad_seq - lc.bad_expected > 1 ? "-" : "",
					lc.bad_seq - lc.bad_expected > 1 ? lc.bad_seq - 1 : 0);
				take_line(r, text, no);
			}
		} else if (v == LC_BAD) {
			r->losses++;	/* linecheck named it; nothing on it is used */
		}
		if (lc.ended) {
			open = 0;
			if (finish_run(&lc, r, rep) < 0)
				return -1;
		}
	}
	if (!ktap || !intact) {
		fprintf(stderr, "mmureport: %s: not an mmubench log: %s\n", name, ktap ?
			"'KTAP version 1' but not one intact line after it" : "no 'KTAP version 1' line");
		return -1;
	}
	if (open && finish_run(&lc, r, rep) < 0)
		return -1;
	return 0;
}

int report_read_file(struct report *rep, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char *buf = 0, date[16];
	size_t len = 0, cap = 0, got;
	struct stat st;
	time_t t = time(0);
	int first = rep->nruns, rc;

	if (!f) {
		fprintf(stderr, "mmureport: %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* The log carries no date: the file's, or today's for standard input. */
	if (f != stdin && !fstat(fileno(f), &st))
		t = st.st_mtime;
	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&t));
	do {
		if (len + 65536 > cap) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = realloc(buf, cap);
			if (!buf) {
				fprintf(stderr, "mmureport: %s: out of memory\n", path);
				exit(3);
			}
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got);
	if (ferror(f)) {
		fprintf(stderr, "mmureport: %s: read error\n", path);
		return -1;
	}
	if (f != stdin)
		fclose(f);
	if (!len) {
		fprintf(stderr, "mmureport: %s: empty: not a log\n", path);
		free(buf);
		return -1;
	}
	rc = report_read_buffer(rep, path, buf, len, date);
	free(buf);
	for (int i = first; i < rep->nruns; i++)
		rep->runs[i].index = i + 1;
	return rc;
}

void report_label(struct report *rep)
{
	for (int i = 0; i < rep->nruns; i++) {
		struct run *r = &rep->runs[i];
		int same = 0, nth = 0;
		if (!r->board[0])
			snprintf(r->board, sizeof(r->board), "unknown");
		r->index = i + 1;
		for (int j = 0; j < rep->nruns; j++)
			if (!strcmp(rep->runs[j].board, r->board)) {
				same++;
				if (j <= i)
					nth++;
			}
		if (same > 1)
			snprintf(r->label, sizeof(r->label), "%s-%d", r->board, nth);
		else
			snprintf(r->label, sizeof(r->label), "%s", r->board);
	}
}

void report_free(struct report *rep)
{
	for (int i = 0; i < rep->nruns; i++) {
		for (int k = 0; k < rep->runs[i].nm; k++)
			free(rep->runs[i].m[k].samples);
		free(rep->runs[i].m);
		free(rep->runs[i].res);
	}
	free(rep->runs);
	memset(rep, 0, sizeof(*rep));
}

int curve_point(const char *metric, double *x, char *prefix, size_t size)
{
	size_t n = strlen(metric), i, end;

	if (n > 3 && !strcmp(metric + n - 3, "_ns"))
		end = n - 3;
	else if (n > 4 && !strcmp(metric + n - 4, "_mbs"))
		end = n - 4;
	else
		return 0;
	i = end;
	if (i > 0 && metric[i - 1] == 'p')	/* <pages>p_ns */
		i--;
	size_t digits_end = i;
	while (i > 0 && isdigit((unsigned char)metric[i - 1]))
		i--;
	if (i == digits_end || (i > 0 && metric[i - 1] != '_'))
		return 0;
	if (digits_end != end && i != 0)
		return 0;			/* <pages>p only as the whole name */
	*x = strtod(metric + i, 0);
	snprintf(prefix, size, "%.*s", i ? (int)(i - 1) : 0, metric);
	return 1;
}
