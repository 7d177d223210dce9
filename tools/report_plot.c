/*
 * mmureport --plot DIR: gnuplot (run as a program) draws, for each run,
 * PNG and SVG of
 *   <label>-latency   lat_mem's random chase against the working set (log
 *                     x), a line per mode, LMbench imports beside them,
 *                     the cache-size guesses and TLB reaches marked;
 *   <label>-tlb       the tlb probe's curve (time per load against pages,
 *                     log x), a line per mode, the L1 entries marked;
 *   <label>-bandwidth bw_mem's headlines, bars per mode;
 *   <label>-faults    demand's and modeswitch's costs in us, bars per mode.
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

#include "mmureport.h"

struct series {
	char title[64];
	int n;
	double x[256], y[256];
};

/* A curve of one mode: metrics <prefix>_<x>_<suffix>, sorted by x. */
static int curve(const struct run *r, const char *probe, const char *mode, const char *prefix,
		 const char *unit_suffix, struct series *s)
{
	s->n = 0;
	for (int k = 0; k < r->nm && s->n < 256; k++) {
		const struct meas *m = &r->m[k];
		char pfx[48];
		double x;
		size_t ml = strlen(m->metric), ul = strlen(unit_suffix);

		if (isnan(m->value) || strcmp(m->probe, probe) || strcmp(m->mode, mode) ||
		    ml < ul || strcmp(m->metric + ml - ul, unit_suffix) ||
		    !curve_point(m->metric, &x, pfx, sizeof(pfx)) || strcmp(pfx, prefix))
			continue;
		int i = s->n++;
		while (i > 0 && s->x[i - 1] > x) {
			s->x[i] = s->x[i - 1], s->y[i] = s->y[i - 1];
			i--;
		}
		s->x[i] = x, s->y[i] = m->value;
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

static void gp_quote(FILE *f, const char *s)
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

static void size_label(char *buf, size_t size, double bytes)
{
	if (bytes >= 1048576 && fmod(bytes, 1048576) == 0)
		snprintf(buf, size, "%gM", bytes / 1048576);
	else if (bytes >= 1024 && fmod(bytes, 1024) == 0)
		snprintf(buf, size, "%gK", bytes / 1024);
	else
		snprintf(buf, size, "%g", bytes);
}

/* Both terminals from one plot body: the body is written once a terminal. */
struct plot {
	FILE *gp;
	const char *tmpdir;
	char name[128];			/* <label>-<kind> */
	int count;
};

static void begin(struct plot *p, int svg, const char *title, const char *what)
{
	FILE *f = p->gp;

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
}

/* The data of a series as an inline block (gnuplot's $name << EOD). */
static void data_block(FILE *f, const char *name, const struct series *s)
{
	fprintf(f, "$%s << EOD\n", name);
	for (int i = 0; i < s->n; i++)
		fprintf(f, "%.10g %.10g\n", s->x[i], s->y[i]);
	fprintf(f, "EOD\n");
}

static void latency_plot(struct plot *p, const struct report *rep, const struct run *r,
			 const char *title)
{
	static struct series s[24];
	int ns = 0;
	double marks[16];
	char mark_names[16][48];
	int nmarks = 0;

	for (int k = 0; k < r->nmodes && ns < 16; k++) {
		const char *pat = r->lmbench ? "lmbench" : "random";
		if (curve(r, "lat_mem", r->modes[k], pat, "_ns", &s[ns])) {
			snprintf(s[ns].title, sizeof(s[ns].title), "%s%s", r->modes[k],
				 r->lmbench ? "" : " (random chase)");
			ns++;
		}
		/* The guesses: cache sizes (any mode's, once each), TLB reaches. */
		for (int l = 1; l <= 3; l++) {
			char metric[16];
			snprintf(metric, sizeof(metric), "l%d_bytes", l);
			const struct meas *m = run_find(r, "lat_mem", r->modes[k], metric);
			int seen = 0;
			for (int q = 0; m && q < nmarks; q++)
				seen |= marks[q] == m->value;
			if (m && !seen && nmarks < 16) {
				char sz[16];
				size_label(sz, sizeof(sz), m->value);
				marks[nmarks] = m->value;
				snprintf(mark_names[nmarks++], 48, "L%d guess %s", l, sz);
			}
		}
		const struct meas *reach = run_find(r, "tlb", r->modes[k], "reach_bytes");
		if (reach && nmarks < 16) {
			char sz[16];
			size_label(sz, sizeof(sz), reach->value);
			marks[nmarks] = -reach->value;		/* negative: a TLB mark */
			snprintf(mark_names[nmarks++], 48, "TLB reach %s %s", r->modes[k], sz);
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
	for (int svg = 0; svg < 2; svg++) {
		FILE *f = p->gp;
		begin(p, svg, title, "Memory latency against working set (lat_mem, pointer chase)");
		/* A log y axis where the curves span more than 20x (an LMbench
		 * curve of a real machine beside QEMU's flat ones). */
		double lo = 1e300, hi = 0;
		for (int i = 0; i < ns; i++)
			for (int j = 0; j < s[i].n; j++) {
				if (s[i].y[j] > 0 && s[i].y[j] < lo)
					lo = s[i].y[j];
				if (s[i].y[j] > hi)
					hi = s[i].y[j];
			}
		fprintf(f, "set logscale x 2\nset xlabel 'working set (bytes, log scale)'\n"
			   "set format x '%%.0b%%B'\n");
		if (hi > 20 * lo)
			fprintf(f, "set logscale y 10\nset ylabel 'latency per load (ns, log scale)'\n");
		else
			fprintf(f, "set yrange [0:*]\nset ylabel 'latency per load (ns)'\n");
		for (int i = 0; i < nmarks; i++) {
			double x = fabs(marks[i]);
			fprintf(f, "set arrow from %.10g, graph 0 to %.10g, graph 1 nohead lw 1.5 dt %d lc rgb '%s'\n",
				x, x, marks[i] < 0 ? 3 : 2, marks[i] < 0 ? "#aa3300" : "#0055aa");
			fprintf(f, "set label ");
			gp_quote(f, mark_names[i]);
			/* Staggered heights, so marks close together stay readable. */
			fprintf(f, " at %.10g, graph %.2f rotate by 90 right offset -0.6,0 font ',9' tc rgb '%s'\n",
				x, 0.97 - 0.32 * (i % 3), marks[i] < 0 ? "#aa3300" : "#0055aa");
		}
		for (int i = 0; i < ns; i++) {
			char b[16];
			snprintf(b, sizeof(b), "c%d", i);
			data_block(f, b, &s[i]);
		}
		fprintf(f, "plot ");
		for (int i = 0; i < ns; i++) {
			fprintf(f, "%s$c%d using 1:2 with linespoints pt 7 ps 0.5 title ", i ? ", " : "", i);
			gp_quote(f, s[i].title);
		}
		fprintf(f, "\n");
	}
	p->count++;
}

static void tlb_plot(struct plot *p, const struct run *r, const char *title)
{
	static struct series s[16];
	int ns = 0;

	for (int k = 0; k < r->nmodes && ns < 16; k++)
		if (curve(r, "tlb", r->modes[k], "", "p_ns", &s[ns])) {
			snprintf(s[ns].title, sizeof(s[ns].title), "%s", r->modes[k]);
			ns++;
		}
	if (!ns)
		return;
	for (int svg = 0; svg < 2; svg++) {
		FILE *f = p->gp;
		begin(p, svg, title, "TLB: time per load against pages touched (tlb, one load per 4K page)");
		fprintf(f, "set logscale x 2\nset xlabel 'pages (4 KiB each, log scale)'\n"
			   "set ylabel 'time per load (ns)'\nset yrange [0:*]\n");
		for (int k = 0, nmark = 0; k < r->nmodes; k++) {
			const struct meas *m = run_find(r, "tlb", r->modes[k], "l1_entries");
			if (!m)
				continue;
			double y = 0.97 - 0.45 * (nmark++ % 2);	/* staggered: marks sit close */
			fprintf(f, "set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb '#aa3300'\n",
				m->value, m->value);
			fprintf(f, "set label 'L1 TLB %s: %g entries' at %g, graph %.2f rotate by 90 right "
				   "offset -0.6,0 font ',9' tc rgb '#aa3300'\n", r->modes[k], m->value, m->value, y);
		}
		for (int i = 0; i < ns; i++) {
			char b[16];
			snprintf(b, sizeof(b), "t%d", i);
			data_block(f, b, &s[i]);
		}
		fprintf(f, "plot ");
		for (int i = 0; i < ns; i++) {
			fprintf(f, "%s$t%d using 1:2 with linespoints pt 7 ps 0.4 title ", i ? ", " : "", i);
			gp_quote(f, s[i].title);
		}
		fprintf(f, "\n");
	}
	p->count++;
}

/* Bars: a cluster per column, a bar per mode. */
static void bar_plot(struct plot *p, const struct run *r, const char *title, const char *what,
		     const char *ylabel, const char *const probe[], const char *const metric[],
		     const char *const label[], int ncols, double scale, int logy)
{
	int any = 0;

	for (int c = 0; c < ncols; c++)
		for (int k = 0; k < r->nmodes; k++)
			any |= run_find(r, probe[c], r->modes[k], metric[c]) != 0;
	if (!any)
		return;
	for (int svg = 0; svg < 2; svg++) {
		FILE *f = p->gp;
		begin(p, svg, title, what);
		fprintf(f, "set key outside right top noopaque nobox\n");
		fprintf(f, "set style data histograms\nset style histogram clustered gap 1\n"
			   "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset ylabel ");
		gp_quote(f, ylabel);
		fprintf(f, "\nset xtics nomirror rotate by -30\nset grid noxtics ytics\n%s",
			logy ? "set logscale y 10\n" : "set yrange [0:*]\nset offsets 0, 0, graph 0.08, 0\n");
		/* Rows: columns (the metric); one field a mode; '-' where missing. */
		fprintf(f, "$bars << EOD\n\"metric\"");
		for (int k = 0; k < r->nmodes; k++)
			fprintf(f, " \"%s\"", r->modes[k]);
		fprintf(f, "\n");
		for (int c = 0; c < ncols; c++) {
			fprintf(f, "\"%s\"", label[c]);
			for (int k = 0; k < r->nmodes; k++) {
				const struct meas *m = run_find(r, probe[c], r->modes[k], metric[c]);
				if (m && (!logy || m->value > 0))
					fprintf(f, " %.10g", m->value * scale);
				else
					fprintf(f, " -");
			}
			fprintf(f, "\n");
		}
		fprintf(f, "EOD\nset datafile missing '-'\nplot ");
		for (int k = 0; k < r->nmodes; k++)
			fprintf(f, "%s$bars using %d:xtic(1) title columnheader(%d)", k ? ", " : "", k + 2, k + 2);
		fprintf(f, "\n");
	}
	p->count++;
}

/* bw_mem: every size measured (in cache and beyond), a cluster per column
 * and size, a bar per mode. */
static void bandwidth_plot(struct plot *p, const struct run *r, const char *title,
			   const char *const col[], const char *const label[])
{
	static char metric[64][48], name[64][48];
	const char *probe[64], *mp[64], *lp[64];
	double sizes[32];
	int nsizes = 0, n = 0;

	for (int k = 0; k < r->nm; k++) {
		const struct meas *m = &r->m[k];
		char pfx[48];
		double x;
		int seen = 0;
		if (strcmp(m->probe, "bw_mem") || isnan(m->value) ||
		    !curve_point(m->metric, &x, pfx, sizeof(pfx)))
			continue;
		for (int i = 0; i < nsizes; i++)
			seen |= sizes[i] == x;
		if (!seen && nsizes < 32) {
			int i = nsizes++;
			while (i > 0 && sizes[i - 1] > x) {
				sizes[i] = sizes[i - 1];
				i--;
			}
			sizes[i] = x;
		}
	}
	for (int c = 0; c < 4; c++)
		for (int i = 0; i < nsizes && n < 64; i++) {
			char sz[16];
			char base[16];
			snprintf(base, sizeof(base), "%.*s", (int)(strlen(col[c]) - 4), col[c]);
			snprintf(metric[n], 48, "%s_%.0f_mbs", base, sizes[i]);
			size_label(sz, sizeof(sz), sizes[i]);
			snprintf(name[n], 48, "%s %sB", label[c], sz);
			probe[n] = "bw_mem", mp[n] = metric[n], lp[n] = name[n];
			n++;
		}
	bar_plot(p, r, title, "Memory bandwidth at each size measured (bw_mem) - bigger is better",
		 "bandwidth (MB/s, 2^20 bytes/s)", probe, mp, lp, n, 1, 0);
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

int write_plots(const struct report *rep, const char *dir)
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
					 "time (microseconds, log scale)", fp, fm, fl, 6, 0.001, 1);
			if (p.count > before && nnames < 256)
				snprintf(names[nnames++], 128, "%s", p.name);
		}
	}
	if (fclose(p.gp) || !nnames) {
		if (!nnames)
			fprintf(stderr, "mmureport: --plot: nothing to plot (no lat_mem, tlb, bw_mem or demand figures)\n");
		rc = -1;
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
	for (int i = 0; !rc && i < nnames; i++)
		fprintf(stderr, "mmureport: plot %s/%s.png, .svg\n", dir, names[i]);
	unlink(script);
	rmdir(tmpdir);
	return rc;
}
