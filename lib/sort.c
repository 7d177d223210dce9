/* Sorting and medians (include/sort.h): qsort with one comparator per type. */
#include <stdlib.h>
#include "sort.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void sort_i64(int64_t *v, unsigned n) { qsort(v, n, sizeof(*v), cmp_i64); }
void sort_u64(uint64_t *v, unsigned n) { qsort(v, n, sizeof(*v), cmp_u64); }

int64_t median_i64(int64_t *v, unsigned n)
{
	sort_i64(v, n);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

uint64_t median_u64(uint64_t *v, unsigned n)
{
	sort_u64(v, n);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
