/*
 * mmureport's statistics: medians, and the Mann-Whitney U test (two-sided)
 * of whether two sets of repetitions differ by more than their noise.
 *
 * U of the first sample = R1 - n1(n1+1)/2, R1 its rank sum (ties given
 * their mean rank).  Without ties and with n1, n2 <= 50 the p-value is
 * exact: the number of the (n1+n2 choose n1) equally likely rankings
 * whose U is at least as far from n1*n2/2, counted by the recurrence
 * c(u; m, n) = c(u - n; m - 1, n) + c(u; m, n - 1) (Mann and Whitney
 * 1947), p = 2 * P(U >= max(U1, U2)), at most 1.  Otherwise the normal
 * approximation with the tie correction of the variance and a continuity
 * correction of 0.5: z = (max(U1, U2) - n1*n2/2 - 0.5) / sigma,
 * sigma^2 = n1*n2/12 * ((n+1) - sum(t^3 - t) / (n(n-1))), p = 2 * (1 -
 * Phi(z)).  Both as SciPy's mannwhitneyu (method "exact" / "asymptotic",
 * use_continuity=True).  p_min is the smallest p-value the sizes allow
 * (the exact p of the most extreme ranking), so a caller can tell "too
 * few repetitions" from "no difference".  holm_adjust() corrects a
 * comparison's p-values for their number.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmureport.h"
#include "sort.h"

double median_of(const double *v, int n)
{
	double *s, m;

	if (n <= 0)
		return NAN;
	s = malloc(n * sizeof(double));
	if (!s)
		return NAN;
	memcpy(s, v, n * sizeof(double));
	sort_double(s, n);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

#define EXACT_MAX 50

/* P(U >= u) under the null hypothesis, no ties: counts of rankings with
 * each U for m of the first and n of the second sample. */
static double exact_sf(int u, int n1, int n2)
{
	int umax = n1 * n2;
	/* c[m][v] for the current n, row by row over n: (n1+1) x (umax+1). */
	double *c = calloc((size_t)(n1 + 1) * (umax + 1), sizeof(double));
	double total = 0, tail = 0;

	if (!c)
		return NAN;
	/* n = 0: only U = 0, one way, for every m. */
	for (int m = 0; m <= n1; m++)
		c[(size_t)m * (umax + 1)] = 1;
	for (int n = 1; n <= n2; n++)
		/* c(v; m, n) = c(v - n; m - 1, n) + c(v; m, n - 1); m rising, so row
		 * m - 1 already holds n's values while row m still holds n - 1's. */
		for (int m = 1; m <= n1; m++)
			for (int v = umax; v >= 0; v--) {
				double *row = c + (size_t)m * (umax + 1);
				double *below = c + (size_t)(m - 1) * (umax + 1);
				row[v] += v >= n ? below[v - n] : 0;
			}
	for (int v = 0; v <= umax; v++) {
		double k = c[(size_t)n1 * (umax + 1) + v];
		total += k;
		if (v >= u)
			tail += k;
	}
	free(c);
	return tail / total;
}

void mann_whitney(const double *a, int n1, const double *b, int n2, struct mwu *out)
{
	int n = n1 + n2;
	double *all, *rank, r1 = 0, ties = 0;
	int *idx;

	memset(out, 0, sizeof(*out));
	out->n1 = n1, out->n2 = n2, out->p = -1, out->p_min = 1;
	if (n1 < 1 || n2 < 1)
		return;
	all = malloc(n * sizeof(double));
	rank = malloc(n * sizeof(double));
	idx = malloc(n * sizeof(int));
	if (!all || !rank || !idx)
		goto out;
	memcpy(all, a, n1 * sizeof(double));
	memcpy(all + n1, b, n2 * sizeof(double));
	/* Ranks 1..n by value (insertion sort of indices: n is small). */
	for (int i = 0; i < n; i++) {
		int j = i;
		while (j > 0 && all[idx[j - 1]] > all[i]) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	for (int i = 0; i < n;) {
		int j = i;
		while (j + 1 < n && all[idx[j + 1]] == all[idx[i]])
			j++;
		double t = j - i + 1;
		for (int k = i; k <= j; k++)
			rank[idx[k]] = (i + j) / 2.0 + 1;
		ties += t * t * t - t;
		i = j + 1;
	}
	for (int i = 0; i < n1; i++)
		r1 += rank[i];
	out->u = r1 - n1 * (n1 + 1) / 2.0;
	double u1 = out->u, u2 = (double)n1 * n2 - u1, big = u1 > u2 ? u1 : u2;

	out->p_min = 0;			/* large samples: as small as need be */
	if (n1 <= EXACT_MAX && n2 <= EXACT_MAX) {
		out->p_min = 2 * exact_sf(n1 * n2, n1, n2);
		if (out->p_min > 1)
			out->p_min = 1;
	}
	if (ties == 0 && n1 <= EXACT_MAX && n2 <= EXACT_MAX) {
		out->exact = 1;
		out->p = 2 * exact_sf((int)big, n1, n2);
	} else {
		double var = (double)n1 * n2 / 12.0 * ((n + 1) - ties / ((double)n * (n - 1)));
		if (var > 0) {
			double z = (big - n1 * n2 / 2.0 - 0.5) / sqrt(var);
			out->p = erfc(z / sqrt(2.0));	/* 2 * (1 - Phi(z)) */
		}
		/* var == 0: every value the same: no test possible (p stays -1). */
	}
	if (out->p > 1)
		out->p = 1;
out:
	free(all);
	free(rank);
	free(idx);
}

/* The fewest repetitions on each side (equal numbers) whose complete
 * separation reaches p <= level; 0 beyond 50. */
int mwu_needed_reps(double level)
{
	for (int k = 2; k <= 50; k++) {
		double x[50], y[50];
		struct mwu t;
		for (int i = 0; i < k; i++)
			x[i] = i, y[i] = 100 + i;
		mann_whitney(x, k, y, k, &t);
		if (t.p_min <= level)
			return k;
	}
	return 0;
}

/* Holm (1979): sorted ascending, p_(i) is rejected at alpha when every
 * (n - j + 1) p_(j) <= alpha for j <= i; the adjusted value says the same
 * as one number to hold against alpha.  Valid whatever the dependence
 * between the tests (one run's ns and cycles are the same timing). */
void holm_adjust(double *p, int n)
{
	int *idx = malloc(n * sizeof(int));
	double run = 0;

	if (!idx) {
		for (int i = 0; i < n; i++)	/* Bonferroni: never less strict */
			p[i] = p[i] * n < 1 ? p[i] * n : 1;
		return;
	}
	for (int i = 0; i < n; i++) {
		int j = i;
		while (j > 0 && p[idx[j - 1]] > p[i]) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	for (int i = 0; i < n; i++) {
		double a = (n - i) * p[idx[i]];
		if (a > 1)
			a = 1;
		if (a > run)
			run = a;
		p[idx[i]] = run;
	}
	free(idx);
}
