/*
 * mmureport --plot DIR: gnuplot (run as a program) draws, for each run,
 * PNG and SVG of
 *   <label>-latency   lat_mem's random chase against the working set (log
 *                     x), a line per mode, LMbench imports beside them,
 *                     the cache-size guesses and TLB reaches marked;
 *   <label>-tlb       the tlb probe's curve (time per load against pages,
 *                     log x), a line per mode, the L1 entries marked;
 *   <label>-bandwidth, <label>-faults: bars (report_bars.c).
 * Every figure with samples has an error bar (min-max of the repetitions),
 * y is logarithmic where the values span 20x or more, sizes are written
 * B/KiB/MiB on ticks and labels alike, and an emulated run says on the
 * plot what its times are.
 * Data and script go to a temporary directory inside DIR; each picture is
 * renamed into DIR only once gnuplot has finished it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_plot.h"

void sample_range(const struct meas *m, double *lo, double *hi)
{
	*lo = *hi = m->value;
	for (int i = 0; i < m->nsamples; i++) {
		if (m->samples[i] < *lo)
			*lo = m->samples[i];
		if (m->samples[i] > *hi)
			*hi = m->samples[i];
	}
}

/* A curve of one mode: metrics <prefix>_<x>_<suffix>, sorted by x. */
static int curve(const struct run *r, const char *probe, const char *mode, const char *prefix,
		 const char *unit_suffix, struct series *s)
{
	s->n = s->sampled = 0;
	for (int k = 0; k < r->nm && s->n < 256; k++) {
		const struct meas *m = &r->m[k];
		char pfx[48];
		double x, lo, hi;
		size_t ml = strlen(m->metric), ul = strlen(unit_suffix);

		if (isnan(m->value) || strcmp(m->probe, probe) || strcmp(m->mode, mode) ||
		    ml < ul || strcmp(m->metric + ml - ul, unit_suffix) ||
		    !curve_point(m->metric, &x, pfx, sizeof(pfx)) || strcmp(pfx, prefix))
			continue;
		sample_range(m, &lo, &hi);
		s->sampled |= m->nsamples > 1;
		int i = s->n++;
		while (i > 0 && s->x[i - 1] > x) {
			s->x[i] = s->x[i - 1], s->y[i] = s->y[i - 1];
			s->lo[i] = s->lo[i - 1], s->hi[i] = s->hi[i - 1];
			i--;
		}
		s->x[i] = x, s->y[i] = m->value, s->lo[i] = lo, s->hi[i] = hi;
	}
	return s->n;
}

/* "board (cpu) - platform - date", short enough for a title. */
static void title_of(const struct run *r, char *buf, size_t size)
{
	char plat[80];
	size_t n;

	snprintf(plat, sizeof(plat), "%s", r->platform[0] ? r->platform : "platform unknown");
	n = strcspn(plat, "(");
	while (n > 0 && plat[n - 1] == ' ')
		n--;
	plat[n] = 0;
	/* The CPU without its register details ("... (CPUID 1 EAX ...)"). */
	char cpu[96];
	snprintf(cpu, sizeof(cpu), "%s", r->cpu);
	cpu[strcspn(cpu, "(")] = 0;
	n = strlen(cpu);
	while (n > 0 && cpu[n - 1] == ' ')
		cpu[--n] = 0;
	snprintf(buf, size, "%s%s%s%.60s%s - %s - %s", r->lmbench ? "" : "mmubench on ", r->board,
		 cpu[0] ? " (" : "", cpu, cpu[0] ? ")" : "", plat, r->date);
}

void gp_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fprintf(f, "\\n");
		else if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	fputc('"', f);
}

void size_label(char *buf, size_t size, double bytes)
{
	if (bytes >= 1048576 && fmod(bytes, 262144) == 0)
		snprintf(buf, size, "%g MiB", bytes / 1048576);
	else if (bytes >= 1024 && fmod(bytes, 256) == 0)
		snprintf(buf, size, "%g KiB", bytes / 1024);
	else
		snprintf(buf, size, "%g B", bytes);
}

int wants_log(const double *v, int n)
{
	double lo = INFINITY, hi = 0;

	for (int i = 0; i < n; i++)
		if (v[i] > 0) {
			lo = v[i] < lo ? v[i] : lo;
			hi = v[i] > hi ? v[i] : hi;
		}
	return hi >= 20 * lo;
}

const char *bars_words(int sampled)
{
	return sampled ? "; error bars: min-max of the repetitions" : "";
}

/* What an emulated run's times are (as report_compare.c's verdicts say). */
static const char *emulated_words(const struct run *r)
{
	if (strstr(r->platform, "-icount"))
		return "emulated: instruction counts, not time (QEMU -icount)";
	if (strstr(r->platform, "emulated") || strstr(r->platform, "TCG"))
		return "emulated: QEMU's host time, not the target's (QEMU TCG)";
	return 0;
}

void plot_begin(struct plot *p, int svg, const struct run *r, const char *title, const char *what)
{
	FILE *f = p->gp;
	const char *emul = emulated_words(r);

	if (svg)
		fprintf(f, "set terminal svg size 1000,620 dynamic font 'Sans,11' background '#ffffff'\n");
	else
		fprintf(f, "set terminal pngcairo size 1000,620 font 'Sans,10'\n");
	fprintf(f, "set output '%s/%s.%s'\nreset\nset encoding utf8\nset termoption noenhanced\n",
		p->tmpdir, p->name, svg ? "svg" : "png");
	fprintf(f, "set title ");
	char t[400];
	snprintf(t, sizeof(t), "%s\n%s", what, title);
	gp_quote(f, t);
	fprintf(f, "\nset grid\nset key inside top left opaque box\n");
	/* Above the title, in red: the plot is read without the page around it. */
	if (emul) {
		fprintf(f, "set tmargin 5\nset label 100 ");
		gp_quote(f, emul);
		fprintf(f, " at screen 0.5, screen 0.965 center font ',14' tc rgb '#cc0000' front\n");
	}
}

/* Ticks at powers of two, at most ~12, labelled in the one unit style. */
static void size_tics(FILE *f, double xmin, double xmax, int bytes)
{
	int a = (int)floor(log2(xmin)), b = (int)ceil(log2(xmax));
	int step = (b - a + 11) / 12;

	if (step < 1)
		step = 1;
	fprintf(f, "set xtics (");
	for (int e = a; e <= b; e += step) {
		char l[24];
		if (bytes)
			size_label(l, sizeof(l), ldexp(1, e));
		else
			snprintf(l, sizeof(l), "%g", ldexp(1, e));
		fprintf(f, "%s\"%s\" %.10g", e > a ? ", " : "", l, ldexp(1, e));
	}
	fprintf(f, ")\nset mxtics 1\n");
}

static int series_range(const struct series *s, int ns, double *xmin, double *xmax, int *logy)
{
	static double v[3 * 256 * 24];
	int nv = 0, sampled = 0;

	*xmin = INFINITY, *xmax = 0;
	for (int i = 0; i < ns; i++)
		for (int j = 0; j < s[i].n; j++) {
			*xmin = s[i].x[j] < *xmin ? s[i].x[j] : *xmin;
			*xmax = s[i].x[j] > *xmax ? s[i].x[j] : *xmax;
			v[nv++] = s[i].y[j], v[nv++] = s[i].lo[j], v[nv++] = s[i].hi[j];
			sampled |= s[i].sampled;
		}
	*logy = wants_log(v, nv);
	return sampled;
}

/* Curves with their error bars (on a log axis a point <= 0 cannot be drawn:
 * it is left out, and so said by gnuplot's missing point). */
static void draw_curves(FILE *f, const struct series *s, int ns, const char *tag, int logy)
{
	for (int i = 0; i < ns; i++) {
		fprintf(f, "$%s%d << EOD\n", tag, i);
		for (int j = 0; j < s[i].n; j++)
			if (!logy || s[i].y[j] > 0)
				fprintf(f, "%.10g %.10g %.10g %.10g\n", s[i].x[j], s[i].y[j],
					logy && s[i].lo[j] <= 0 ? s[i].y[j] : s[i].lo[j], s[i].hi[j]);
		fprintf(f, "EOD\n");
	}
	fprintf(f, "plot ");
	for (int i = 0; i < ns; i++) {
		fprintf(f, "%s$%s%d using 1:2:3:4 with yerrorlines pt 7 ps 0.5 title ", i ? ", " : "",
			tag, i);
		gp_quote(f, s[i].title);
	}
	fprintf(f, "\n");
}

/* A plot over a log2 x axis (sizes or pages): both outputs (PNG, SVG), the
 * x range widened to show every mark. */
struct axes {
	const char *what, *xlabel;
	int bytes;			/* x tics as KiB/MiB (else plain counts) */
	const char *ylabel, *tag;	/* y in ns; the curves' data block tag */
};

static void log2_plot(struct plot *p, const struct run *r, const char *title, const struct axes *ax,
		      const struct series *s, int ns, const struct mark *marks, int nmarks)
{
	double xmin, xmax;
	int logy, sampled = series_range(s, ns, &xmin, &xmax, &logy);

	for (int i = 0; i < nmarks; i++) {
		xmin = marks[i].x < xmin ? marks[i].x : xmin;
		xmax = marks[i].x > xmax ? marks[i].x : xmax;
	}
	for (int svg = 0; svg < 2; svg++) {
		FILE *f = p->gp;
		plot_begin(p, svg, r, title, ax->what);
		fprintf(f, "set logscale x 2\nset xlabel '%s'\n", ax->xlabel);
		size_tics(f, xmin, xmax, ax->bytes);
		fprintf(f, "%sset ylabel '%s (ns%s)%s'\n", logy ? "set logscale y 10\n" :
			"set yrange [0:*]\n", ax->ylabel, logy ? ", log scale" : "", bars_words(sampled));
		draw_marks(f, marks, nmarks, xmin, xmax);
		draw_curves(f, s, ns, ax->tag, logy);
	}
	p->count++;
}

static void latency_plot(struct plot *p, const struct report *rep, const struct run *r,
			 const char *title)
{
	static struct series s[24];
	static struct mark marks[32];
	int ns = 0, nmarks = 0;

	for (int k = 0; k < r->nmodes && ns < 16; k++) {
		const char *pat = r->lmbench ? "lmbench" : "random";
		if (curve(r, "lat_mem", r->modes[k], pat, "_ns", &s[ns])) {
			snprintf(s[ns].title, sizeof(s[ns].title), "%s%s", r->modes[k],
				 r->lmbench ? "" : " (random chase)");
			ns++;
		}
		/* The guesses: cache sizes (any mode's, once each), TLB reaches. */
		for (int l = 1; l <= 3; l++) {
			char metric[16], what[48];
			snprintf(metric, sizeof(metric), "l%d_bytes", l);
			const struct meas *m = run_find(r, "lat_mem", r->modes[k], metric);
			if (!m || m->value <= 0)
				continue;
			size_label(metric, sizeof(metric), m->value);
			snprintf(what, sizeof(what), "L%d guess %s", l, metric);
			nmarks = add_mark(marks, nmarks, 32, m->value, what, "", "#0055aa", 2);
		}
		const struct meas *reach = run_find(r, "tlb", r->modes[k], "reach_bytes");
		if (reach && reach->value > 0) {
			char sz[16], what[48];
			size_label(sz, sizeof(sz), reach->value);
			snprintf(what, sizeof(what), "TLB reach %s:", sz);
			nmarks = add_mark(marks, nmarks, 32, reach->value, what, r->modes[k], "#aa3300", 3);
		}
	}
	if (!ns)
		return;
	/* LMbench imports beside an mmubench run's curves. */
	for (int i = 0; !r->lmbench && i < rep->nruns && ns < 24; i++) {
		const struct run *l = &rep->runs[i];
		for (int k = 0; l->lmbench && k < l->nmodes && ns < 24; k++)
			if (curve(l, "lat_mem", l->modes[k], "lmbench", "_ns", &s[ns])) {
				const char *base = strrchr(l->file, '/');
				snprintf(s[ns].title, sizeof(s[ns].title), "LMbench %.30s %s",
					 base ? base + 1 : l->file, l->modes[k]);
				ns++;
			}
	}
	struct axes ax = { "Memory latency against working set (lat_mem, pointer chase)",
			   "working set (bytes, log scale)", 1, "latency per load", "c" };
	log2_plot(p, r, title, &ax, s, ns, marks, nmarks);
}

static void tlb_plot(struct plot *p, const struct run *r, const char *title)
{
	static struct series s[16];
	static struct mark marks[16];
	int ns = 0, nmarks = 0;

	for (int k = 0; k < r->nmodes && ns < 16; k++) {
		if (curve(r, "tlb", r->modes[k], "", "p_ns", &s[ns])) {
			snprintf(s[ns].title, sizeof(s[ns].title), "%s", r->modes[k]);
			ns++;
		}
		const struct meas *m = run_find(r, "tlb", r->modes[k], "l1_entries");
		if (m && m->value > 0) {
			char what[48];
			snprintf(what, sizeof(what), "L1 TLB %g entries:", m->value);
			nmarks = add_mark(marks, nmarks, 16, m->value, what, r->modes[k], "#aa3300", 2);
		}
	}
	if (!ns)
		return;
	struct axes ax = { "TLB: time per load against pages touched (tlb, one load per 4 KiB page)",
			   "pages (4 KiB each, log scale)", 0, "time per load", "t" };
	log2_plot(p, r, title, &ax, s, ns, marks, nmarks);
}

static int run_gnuplot(const char *script)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (!pid) {
		execlp("gnuplot", "gnuplot", script, (char *)0);
		fprintf(stderr, "mmureport: --plot: cannot run gnuplot (apt-get install gnuplot-nox; "
			"tools/install-deps does): %s\n", strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int write_plots(const struct report *rep, const char *dir, int quiet)
{
	char tmpdir[4096], script[4200];
	struct plot p = { 0 };
	int rc = 0;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "mmureport: --plot %s: cannot create the directory: %s\n", dir, strerror(errno));
		return -1;
	}
	snprintf(tmpdir, sizeof(tmpdir), "%s/.mmureport.XXXXXX", dir);
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "mmureport: --plot %s: cannot create a temporary directory there\n", dir);
		return -1;
	}
	snprintf(script, sizeof(script), "%s/plots.gp", tmpdir);
	p.gp = fopen(script, "w");
	if (!p.gp) {
		rmdir(tmpdir);
		return -1;
	}
	p.tmpdir = tmpdir;

	/* Names of what each run draws, to rename afterwards. */
	char names[256][128];
	int nnames = 0;
	for (int i = 0; i < rep->nruns; i++) {
		const struct run *r = &rep->runs[i];
		char title[300];
		title_of(r, title, sizeof(title));

		static const char *fp[] = { "demand", "demand", "demand", "demand", "demand", "modeswitch" };
		static const char *fm[] = { "page_fault_ns", "prot_fault_ns", "null_fault_ns", "kmap_ns",
					    "remap_batch_ns", "switch_ns" };
		static const char *fl[] = { "page fault", "prot fault", "null fault", "kmap",
					    "batch remap", "mode switch" };
		static const char *bm[] = { "rd_mbs", "wr_mbs", "cp_libc_mbs", "cp_hand_mbs" };
		static const char *bl[] = { "mem read", "mem write", "bcopy (libc)", "bcopy (hand)" };

		for (int kind = 0; kind < 4; kind++) {
			static const char *kinds[] = { "latency", "tlb", "bandwidth", "faults" };
			int before = p.count;
			snprintf(p.name, sizeof(p.name), "%s-%s", r->label, kinds[kind]);
			if (kind == 0)
				latency_plot(&p, rep, r, title);
			else if (kind == 1)
				tlb_plot(&p, r, title);
			else if (kind == 2)
				bandwidth_plot(&p, r, title, bm, bl);
			else
				bar_plot(&p, r, title, "Fault and mapping costs (demand, modeswitch) - smaller is better",
					 "time (microseconds)", fp, fm, fl, 6, 0.001);
			if (p.count > before && nnames < 256)
				snprintf(names[nnames++], 128, "%s", p.name);
		}
	}
	if (fclose(p.gp) || !nnames) {
		if (!nnames && !quiet)
			fprintf(stderr, "mmureport: --plot: nothing to plot (no lat_mem, tlb, bw_mem or demand figures)\n");
		rc = nnames ? -1 : -2;
	} else if (run_gnuplot(script)) {
		fprintf(stderr, "mmureport: --plot: gnuplot failed; no picture written\n");
		rc = -1;
	}
	for (int i = 0; i < nnames; i++)
		for (int svg = 0; svg < 2; svg++) {
			char from[4400], to[4400];
			snprintf(from, sizeof(from), "%s/%s.%s", tmpdir, names[i], svg ? "svg" : "png");
			snprintf(to, sizeof(to), "%s/%s.%s", dir, names[i], svg ? "svg" : "png");
			if (!rc && rename(from, to)) {
				fprintf(stderr, "mmureport: --plot: %s missing after gnuplot\n", from);
				rc = -1;
			}
			unlink(from);
		}
	for (int i = 0; !rc && !quiet && i < nnames; i++)
		fprintf(stderr, "mmureport: plot %s/%s.png, .svg\n", dir, names[i]);
	unlink(script);
	rmdir(tmpdir);
	return rc;
}
