/* arch/i386/tsc_cpuid.c on the build host: MAX_LEAF and the four words of
 * leaves 0x15 and 0x16 from the command line; prints Hz and the source
 * text (selftest/test_i386_boot.py: the path TCG's CPUID never takes). */
#include <stdio.h>
#include <stdlib.h>
#include "i386.h"

int main(int argc, char **argv)
{
	uint32_t l15[4], l16[4];
	char src[256];

	if (argc != 10)
		return fprintf(stderr, "usage: %s MAX A B C D A B C D\n", argv[0]), 3;
	for (int i = 0; i < 4; i++) {
		l15[i] = strtoul(argv[2 + i], 0, 0);
		l16[i] = strtoul(argv[6 + i], 0, 0);
	}
	uint32_t hz = i386_tsc_hz_from_cpuid(strtoul(argv[1], 0, 0), l15, l16, src, sizeof(src));
	printf("%lu (%s)\n", (unsigned long)hz, src);
	return 0;
}
