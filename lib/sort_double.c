/* sort_double (include/sort.h): the host tools' statistics.  Its own file,
 * left out of the image: a double compare on the 405 (soft float) would pull
 * libgcc's hard-float compare helpers into the link. */
#include <stdlib.h>
#include "sort.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void sort_double(double *v, unsigned n) { qsort(v, n, sizeof(*v), cmp_double); }
