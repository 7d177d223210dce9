/* The 405's caches with translation off.  The cacheability registers
 * (DCCR, ICCR), write-through (DCWR) and guarded (SGR) registers hold one
 * bit per 128 MB region, bit 0 (the MSB) = 0x00000000-0x07FFFFFF.  With
 * translation on, the TLB entry's W/I/G bits rule instead; mmu.c maps RAM
 * cacheable write-back (W=0, I=0) and the UART page I|G.  Accessing a
 * block both cached and uncached is a programming error, so real mode must
 * say the same as the TLB: RAM cacheable and write-back, everything else
 * (the I/O region at 0xEF600000, flash) uncached and guarded, as Linux's
 * 40x MMU_init_hw sets it.  U-Boot on a Walnut leaves DCCR = 0. */
#include <stdio.h>
#include "arch.h"
#include "ppc405.h"
#include "report.h"

/* Bytes the flush loads and flushes: twice the data cache (2-way LRU:
 * two lines per congruence class cast out everything older).  start.S's
 * return path reads it. */
uint32_t ppc405_dcache_flush_bytes = 2 * 16384;

static char text[256], ccr0_text[200];

/* Invalidate every congruence class of the data cache (both ways), no
 * write-back.  The 405 core manual asks for it before any region is first
 * made cacheable: the arrays come up from power-on with arbitrary valid
 * and dirty bits, and the flush below would write such lines out. */
static void dcache_invalidate_all(uint32_t dbytes)
{
	for (uint32_t a = 0; a < dbytes / 2; a += 32)	/* 2 ways: dbytes/2 per way */
		__asm__ volatile("dccci 0, %0" : : "r"(a) : "memory");
	__asm__ volatile("sync");
}

/* CCR0: with LWOA (load without allocate) a load miss leaves the cache
 * alone and the load-based flush casts nothing out; SWOA does the same
 * for store misses, which the probes time.  Both off while we run (the
 * return path gives the loader its CCR0 back). */
static void ccr0_init(void)
{
	uint32_t was = loader_regs.ccr0, now = was & ~(CCR0_LWOA | CCR0_SWOA);

	mtspr(SPR_CCR0, now);
	__asm__ volatile("isync");
	snprintf(ccr0_text, sizeof(ccr0_text),
		 "ccr0: 0x%08lx (read back; the loader's 0x%08lx: LWOA %s, SWOA %s): load and store "
		 "misses allocate, as the load-based flush needs", (unsigned long)mfspr(SPR_CCR0),
		 (unsigned long)was, was & CCR0_LWOA ? "was on, cleared" : "off",
		 was & CCR0_SWOA ? "was on, cleared" : "off");
}

const char *ppc405_ccr0_text(void)
{
	return ccr0_text[0] ? ccr0_text : "ccr0: not set up (the board did not call ppc405_cache_init)";
}

static const char *dcache_size(uint32_t pvr, uint32_t *bytes)
{
	switch (pvr >> 16) {
	case 0x4011: *bytes = 8192; return "8 KiB (405GP)";
	case 0x5121: *bytes = 16384; return "16 KiB (405EP)";
	}
	*bytes = 16384;
	return "taken as 16 KiB (chip not known)";
}

void ppc405_cache_init(uint64_t ram_bytes)
{
	uint32_t regions = (ram_bytes + (128u << 20) - 1) >> 27, dbytes;
	uint32_t ram_mask = regions >= 32 ? ~0u : ~(~0u >> regions);
	const char *dsize = dcache_size(mfspr(SPR_PVR), &dbytes);

	if (!regions)
		ram_mask = 0x80000000u;		/* at least the image's region */
	ppc405_dcache_flush_bytes = 2 * dbytes;
	ccr0_init();
	/* A loader that never cached data (DCCR 0: U-Boot on a Walnut) may
	 * never have invalidated the cache either; one that did cached with
	 * it, so its dirty lines are real and the flush below keeps them. */
	if (!loader_regs.dccr)
		dcache_invalidate_all(dbytes);
	__asm__ volatile("iccci 0, %0; isync" : : "r"(0));	/* clean by nature: always */
	mtspr(SPR_SGR, ~ram_mask);		/* guard first: no speculative fetch off RAM */
	mtspr(SPR_DCWR, 0);			/* write-back everywhere */
	mtspr(SPR_DCCR, ram_mask);
	mtspr(SPR_ICCR, ram_mask);
	__asm__ volatile("isync");
	/* Whatever the loader left in the caches: write the data lines back
	 * and drop them, drop every instruction line. */
	ppc405_dcache_flush_all(ppc405_dcache_flush_bytes);
	__asm__ volatile("iccci 0, %0; sync; isync" : : "r"(0) : "memory");
	snprintf(text, sizeof(text),
		 "caches: DCCR 0x%08lx ICCR 0x%08lx DCWR %#lx SGR 0x%08lx (read back), D-cache %s, "
		 "flushed on exit=return (the loader's were DCCR 0x%08lx ICCR 0x%08lx DCWR %#lx "
		 "SGR 0x%08lx)",
		 (unsigned long)mfspr(SPR_DCCR), (unsigned long)mfspr(SPR_ICCR),
		 (unsigned long)mfspr(SPR_DCWR), (unsigned long)mfspr(SPR_SGR), dsize,
		 (unsigned long)loader_regs.dccr, (unsigned long)loader_regs.iccr,
		 (unsigned long)loader_regs.dcwr, (unsigned long)loader_regs.sgr);
}

const char *ppc405_cache_text(void)
{
	return text[0] ? text : "caches: not set up (the board did not call ppc405_cache_init)";
}

/* The D-cache from the PVR (set up above); the 405 has no L2 of its own. */
uint32_t arch_cache_bytes(int level)
{
	return level == 1 ? ppc405_dcache_flush_bytes / 2 : 0;
}

/* The 405's data cache is 2-way (PPC405GP manual, "Data Cache Unit"). */
uint32_t arch_cache_ways(int level)
{
	return level == 1 ? 2 : 0;
}

uint32_t arch_cache_line(void) { return 32; }
