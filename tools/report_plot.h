/*
 * report_plot.c and report_bars.c's shared parts: the gnuplot script
 * being written, a series with its error bars, labels and ticks.
 */
#ifndef REPORT_PLOT_H
#define REPORT_PLOT_H

#include "mmureport.h"

struct series {
	char title[64];
	int n;
	double x[256], y[256];
	double lo[256], hi[256];	/* the repetitions' min and max; y where none */
	int sampled;			/* some point has the repetitions' samples */
};

/* Both terminals from one plot body: the body is written once a terminal. */
struct plot {
	FILE *gp;
	const char *tmpdir;
	char name[128];			/* <label>-<kind> */
	int count;
};

/* A figure's spread over the repetitions ("# sample" lines): min and max,
 * both the figure itself where the log has no samples. */
void sample_range(const struct meas *m, double *lo, double *hi);
void gp_quote(FILE *f, const char *s);
/* "512 B", "64 KiB", "1.5 MiB": the one unit style of ticks and labels. */
void size_label(char *buf, size_t size, double bytes);
/* Terminal, output, title, and on emulated runs what their times are. */
void plot_begin(struct plot *p, int svg, const struct run *r, const char *title, const char *what);
/* A log y axis where the values span 20x or more (ignoring values <= 0). */
int wants_log(const double *v, int n);
/* What the error bars are, for an axis label; "" where there are none. */
const char *bars_words(int sampled);
/* Marks (vertical lines) on a log x axis: marks at the same x share one
 * label; marks close together get labels at different heights. */
struct mark {
	double x;
	char text[96];
	const char *colour;
	int dash;
};
int add_mark(struct mark *m, int n, int max, double x, const char *what, const char *who,
	     const char *colour, int dash);
void draw_marks(FILE *f, const struct mark *m, int n, double xmin, double xmax);

/* report_bars.c */
void bar_plot(struct plot *p, const struct run *r, const char *title, const char *what,
	      const char *ylabel, const char *const probe[], const char *const metric[],
	      const char *const label[], int ncols, double scale);
void bandwidth_plot(struct plot *p, const struct run *r, const char *title,
		    const char *const col[], const char *const label[]);

#endif
