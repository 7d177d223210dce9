/* arch/ppc405/clocks.c on the build host, with a 405GP's registers from
 * the command line: PVR PLLMR CR1.  Prints the CPU clock, the timebase's
 * source and which DCRs were read (selftest/test_ppc405_boot.py): the
 * 405GP paths QEMU's 405EP never runs.  mfspr/mfdcr are ours; a write or
 * another SPR aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint32_t pvr, dcr[1024], dcr_reads[1024];

static uint32_t host_mfspr(int n)
{
	if (n != 287)		/* PVR only */
		abort();
	return pvr;
}

static uint32_t host_mfdcr(int n)
{
	dcr_reads[n]++;
	return dcr[n];
}

#define mfspr(n)	host_mfspr(n)
#define mtspr(n, v)	abort()
#define mfdcr(n)	host_mfdcr(n)
#define mtdcr(n, v)	abort()
#include "clocks.c"

int main(int argc, char **argv)
{
	char text[256];

	if (argc != 4)
		return fprintf(stderr, "usage: %s PVR PLLMR CR1\n", argv[0]), 3;
	pvr = strtoul(argv[1], 0, 0);
	dcr[0xb0] = strtoul(argv[2], 0, 0);
	dcr[0xb2] = strtoul(argv[3], 0, 0);
	dcr[0xb4] = 0x00001234;			/* a PSR to find in the text */
	printf("cpu %lu (%s)\n", (unsigned long)ppc405_pll_cpu_hz(33333333, text, sizeof(text)),
	       text);
	int ext = ppc405_tb_clock(text, sizeof(text));
	printf("tb %d (%s)\n", ext, text);
	for (int i = 0; i < 1024; i++)
		if (dcr_reads[i])
			printf("dcr %#x\n", i);
	return 0;
}
