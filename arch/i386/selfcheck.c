/* The self-check's access to one word (boot/mmu.c drives the check):
 * paging off and on around it, registers only in between. */
#include "i386.h"

/* Paging toggled around one word, nothing but registers in between (EBP
 * is the frame pointer: six registers do): off: keep the word at pa, write
 * p1; on: read through va, write p2; off: read, put the word back; on. */
void i386_check_word(uintptr_t va, uintptr_t pa, uint32_t p1, uint32_t p2, uint32_t got[2],
		       int read_only)
{
	uint32_t scratch, keep, flags;

	/* No interrupt in between: its handler could use the word. */
	__asm__ volatile("pushfl; popl %0; cli" : "=r"(flags) : : "memory");

	if (read_only) {
		__asm__ volatile(
			"mov	%%cr0, %[cr]\n\t"
			"and	$0x7fffffff, %[cr]\n\t"
			"mov	%[cr], %%cr0\n\t"		/* paging off */
			"mov	(%[pa]), %[p2]\n\t"		/* physically */
			"or	$0x80000000, %[cr]\n\t"
			"mov	%[cr], %%cr0\n\t"		/* paging on */
			"mov	(%[va]), %[p1]"			/* through the mapping */
			: [cr] "=&a"(scratch), [p1] "+d"(p1), [p2] "+S"(p2)
			: [pa] "b"(pa), [va] "c"(va)
			: "memory");
	} else {
		__asm__ volatile(
			"mov	%%cr0, %[cr]\n\t"
			"and	$0x7fffffff, %[cr]\n\t"
			"mov	%[cr], %%cr0\n\t"		/* paging off */
			"mov	(%[pa]), %[keep]\n\t"		/* keep the word */
			"mov	%[p1], (%[pa])\n\t"		/* pattern 1, physically */
			"or	$0x80000000, %[cr]\n\t"
			"mov	%[cr], %%cr0\n\t"		/* paging on */
			"mov	(%[va]), %[p1]\n\t"		/* through the mapping */
			"mov	%[p2], (%[va])\n\t"		/* pattern 2, virtually */
			"and	$0x7fffffff, %[cr]\n\t"
			"mov	%[cr], %%cr0\n\t"		/* paging off */
			"mov	(%[pa]), %[p2]\n\t"		/* physically again */
			"mov	%[keep], (%[pa])\n\t"		/* put the word back */
			"or	$0x80000000, %[cr]\n\t"
			"mov	%[cr], %%cr0"			/* paging on */
			: [cr] "=&a"(scratch), [keep] "=&D"(keep), [p1] "+d"(p1), [p2] "+S"(p2)
			: [pa] "b"(pa), [va] "c"(va)
			: "memory");
	}
	if (flags & 0x200)
		__asm__ volatile("sti" ::: "memory");
	got[0] = p1, got[1] = p2;
}
