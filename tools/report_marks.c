/*
 * mmureport --plot: the marks on a curve's log x axis (cache-size guesses,
 * TLB reaches, L1 TLB entries), drawn so that no two labels share pixels.
 */
#include <math.h>
#include <string.h>

#include "report_plot.h"

int add_mark(struct mark *m, int n, int max, double x, const char *what, const char *who,
	     const char *colour, int dash)
{
	for (int i = 0; i < n; i++)
		if (m[i].x == x && !strcmp(m[i].colour, colour)) {
			/* The same mark again (another mode's): one label names both. */
			size_t l = strlen(m[i].text);
			if (who[0] && !strstr(m[i].text, who))
				snprintf(m[i].text + l, sizeof(m[i].text) - l, ", %s", who);
			return n;
		}
	if (n == max)
		return n;
	m[n].x = x, m[n].colour = colour, m[n].dash = dash;
	snprintf(m[n].text, sizeof(m[n].text), "%s%s%s", what, who[0] ? " " : "", who);
	return n + 1;
}

/* Marks closer than 3 % of the log x range (a rotated 9-point label is
 * ~12 pixels thick, 1.2 % of the 1000-pixel plot) form a cluster: its
 * labels stand side by side left of its first line, each naming its own
 * value, so two labels never share pixels however close their marks. */
void draw_marks(FILE *f, const struct mark *m, int n, double xmin, double xmax)
{
	int order[64];
	double span = log(xmax / xmin), at = 0;

	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++) {
		int j = i;
		while (j > 0 && m[order[j - 1]].x > m[i].x) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	for (int j = 0, in = 0; j < n; j++) {
		const struct mark *k = &m[order[j]];
		if (j && span > 0 && log(k->x / m[order[j - 1]].x) < 0.03 * span)
			in++;
		else
			in = 0, at = k->x;
		fprintf(f, "set arrow from %.10g, graph 0 to %.10g, graph 1 nohead lw 1.5 dt %d lc rgb '%s'\n",
			k->x, k->x, k->dash, k->colour);
		fprintf(f, "set label ");
		gp_quote(f, k->text);
		fprintf(f, " at %.10g, graph 0.97 rotate by 90 right offset %.1f,0 font ',9' tc rgb '%s'\n",
			at, -1.5 - 1.8 * in, k->colour);
	}
}
