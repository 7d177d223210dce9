/*
 * mmureport --plot: the bar charts (report_plot.c draws the curves).
 *   <label>-bandwidth bw_mem's figures at each size, bars per mode;
 *   <label>-faults    demand's and modeswitch's costs in us, bars per mode.
 * Each bar has an error bar: the repetitions' min to max, where the log
 * has their samples.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_plot.h"

/* Bars: a cluster per column, a bar per mode; y, min and max a mode. */
void bar_plot(struct plot *p, const struct run *r, const char *title, const char *what,
	      const char *ylabel, const char *const probe[], const char *const metric[],
	      const char *const label[], int ncols, double scale)
{
	double v[1024];
	int nv = 0, logy, sampled = 0;

	for (int c = 0; c < ncols; c++)
		for (int k = 0; k < r->nmodes; k++) {
			const struct meas *m = run_find(r, probe[c], r->modes[k], metric[c]);
			double lo, hi;
			if (!m || isnan(m->value) || nv > 1021)
				continue;
			sample_range(m, &lo, &hi);
			sampled |= m->nsamples > 1;
			v[nv++] = m->value, v[nv++] = lo, v[nv++] = hi;
		}
	if (!nv)
		return;
	logy = wants_log(v, nv);
	for (int svg = 0; svg < 2; svg++) {
		FILE *f = p->gp;
		char yl[160];
		plot_begin(p, svg, r, title, what);
		fprintf(f, "set key outside right top noopaque nobox\n");
		fprintf(f, "set style data histograms\nset style histogram errorbars gap 1 lw 1\n"
			   "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset ylabel ");
		snprintf(yl, sizeof(yl), "%s%s%s", ylabel, logy ? ", log scale" : "", bars_words(sampled));
		gp_quote(f, yl);
		fprintf(f, "\nset xtics nomirror rotate by -30\nset grid noxtics ytics\n%s",
			logy ? "set logscale y 10\n" : "set yrange [0:*]\nset offsets 0, 0, graph 0.08, 0\n");
		/* Rows: columns (the metric); value, min, max a mode; '-' where missing. */
		fprintf(f, "$bars << EOD\n");
		for (int c = 0; c < ncols; c++) {
			fprintf(f, "\"%s\"", label[c]);
			for (int k = 0; k < r->nmodes; k++) {
				const struct meas *m = run_find(r, probe[c], r->modes[k], metric[c]);
				double lo, hi;
				if (m && !isnan(m->value) && (!logy || m->value > 0)) {
					sample_range(m, &lo, &hi);
					if (logy && lo <= 0)
						lo = m->value;
					fprintf(f, " %.10g %.10g %.10g", m->value * scale, lo * scale,
						hi * scale);
				} else
					fprintf(f, " - - -");
			}
			fprintf(f, "\n");
		}
		fprintf(f, "EOD\nset datafile missing '-'\nplot ");
		/* A mode without a figure here has no bars (and no key entry). */
		for (int k = 0, shown = 0; k < r->nmodes; k++) {
			int has = 0;
			for (int c = 0; c < ncols; c++) {
				const struct meas *m = run_find(r, probe[c], r->modes[k], metric[c]);
				has |= m && !isnan(m->value) && (!logy || m->value > 0);
			}
			if (!has)
				continue;
			fprintf(f, "%s$bars using %d:%d:%d:xtic(1) lt %d title ", shown++ ? ", " : "",
				3 * k + 2, 3 * k + 3, 3 * k + 4, k + 1);	/* a mode's colour in every plot */
			gp_quote(f, r->modes[k]);
		}
		fprintf(f, "\n");
	}
	p->count++;
}

/* bw_mem: every size measured (in cache and beyond), a cluster per column
 * and size, a bar per mode. */
void bandwidth_plot(struct plot *p, const struct run *r, const char *title,
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
			char sz[16], base[16];
			snprintf(base, sizeof(base), "%.*s", (int)(strlen(col[c]) - 4), col[c]);
			snprintf(metric[n], 48, "%s_%.0f_mbs", base, sizes[i]);
			size_label(sz, sizeof(sz), sizes[i]);
			snprintf(name[n], 48, "%s %s", label[c], sz);
			probe[n] = "bw_mem", mp[n] = metric[n], lp[n] = name[n];
			n++;
		}
	bar_plot(p, r, title, "Memory bandwidth at each size measured (bw_mem) - bigger is better",
		 "bandwidth (MiB/s: the tables' MB/s, LMbench's 2^20 bytes/s)", probe, mp, lp, n, 1);
}
