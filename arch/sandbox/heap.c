/* The sandbox's heap, as the images' (boot/syscalls.c): bounded, between
 * __heap_start and __heap_end, here in the image's area of RAM.  glibc lets
 * a program replace malloc (its manual, "Replacing malloc": malloc, free,
 * calloc, realloc), and then uses ours too.  A first-fit free list in
 * address order, neighbours merged: the run allocates little (samples,
 * names, stdio's buffer). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "arch.h"
#include "mem.h"
#include "sandbox.h"

/* The break is the boards' (boot/mem.c), once RAM is mapped. */
void *sbrk(intptr_t incr)
{
	sandbox_ram_init();	/* glibc may allocate before main; once */
	return heap_sbrk(incr);
}

struct block {
	size_t size;			/* bytes, this header included */
	struct block *next;		/* free list only */
};
#define HDR	sizeof(struct block)	/* 16: keeps 16-byte alignment */
static struct block *free_list;

/* Not malloc itself: gcc turns malloc() + memset(0) into calloc(), which
 * inside calloc would call itself. */
static void *take(size_t n)
{
	if (n > (size_t)(__heap_end - __heap_start))
		goto none;
	size_t need = (n + HDR + 15) & ~(size_t)15;
	for (struct block **p = &free_list; *p; p = &(*p)->next) {
		struct block *b = *p;
		if (b->size < need)
			continue;
		if (b->size - need >= 64) {	/* split: the tail stays free */
			struct block *rest = (struct block *)((char *)b + need);
			rest->size = b->size - need, rest->next = b->next;
			b->size = need;
			*p = rest;
		} else {
			*p = b->next;
		}
		return b + 1;
	}
	struct block *b = sbrk(need);
	if (b == (void *)-1)
		goto none;
	b->size = need;
	return b + 1;
none:
	errno = ENOMEM;
	return 0;
}

void *malloc(size_t n)
{
	return take(n);
}

void free(void *ptr)
{
	struct block *b = (struct block *)ptr - 1, **p = &free_list;

	if (!ptr)
		return;
	while (*p && *p < b)
		p = &(*p)->next;
	b->next = *p;
	*p = b;
	if (b->next && (char *)b + b->size == (char *)b->next)	/* merge with the next */
		b->size += b->next->size, b->next = b->next->next;
	if (p != &free_list) {					/* and with the one before */
		struct block *prev = (struct block *)((char *)p - offsetof(struct block, next));
		if ((char *)prev + prev->size == (char *)b)
			prev->size += b->size, prev->next = b->next;
	}
}

void *calloc(size_t n, size_t size)
{
	if (size && n > (size_t)-1 / size) {
		errno = ENOMEM;
		return 0;
	}
	void *p = take(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void *realloc(void *ptr, size_t n)
{
	if (!ptr)
		return malloc(n);
	size_t have = ((struct block *)ptr - 1)->size - HDR;
	if (n <= have)
		return ptr;
	void *q = malloc(n);
	if (q) {
		memcpy(q, ptr, have);
		free(ptr);
	}
	return q;
}
