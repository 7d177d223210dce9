/* Sorting and medians (lib/sort.c): the one comparator per type that the
 * image, its probes and the host tools share. */
#ifndef SORT_H
#define SORT_H

#include <stdint.h>

void sort_i64(int64_t *v, unsigned n);
void sort_u64(uint64_t *v, unsigned n);
/* The median of n values, sorted in place (an even n: the mean of the two
 * middle ones, rounded down).  n must be at least 1. */
int64_t median_i64(int64_t *v, unsigned n);
uint64_t median_u64(uint64_t *v, unsigned n);

/* Host tools only (lib/sort_double.c, not in the image). */
void sort_double(double *v, unsigned n);

#endif
