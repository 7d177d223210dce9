/* Region markers for the modelled-time plugin (tools/plugin/mmuplugin.c,
 * doc/modelled-time.md): MARK_BEGIN(id, translated) and MARK_END(id)
 * around a measured loop let the plugin report that loop's instructions,
 * cache and shadow-TLB misses and modelled cycles.  id: a constant 0..99;
 * translated: whether the mode translates (mmu_translated()), so the
 * plugin knows the shadow TLBs are in use.
 *
 * On PowerPC a marker is three `or N,N,N` (mr N,N: an architectural no-op,
 * no register changes): N = 20 begins a real-mode region, 22 a translated
 * one, 21 ends one; then the id's two decimal digits as N = 10 + digit.
 * Power ISA gives some `or N,N,N` a meaning as hints (N = 1-3, 5-7, 26, 27,
 * 29-31; none on the 405 or e500); 10-22 are none of them.  Elsewhere the
 * markers are empty. */
#ifndef MARK_H
#define MARK_H

/* The regions: one id per measured loop. */
enum {
	MARK_LAT_CHASE = 1, MARK_LAT_LOOP = 2,		/* tests/lat_mem.c */
	MARK_BW_RD = 11, MARK_BW_WR, MARK_BW_CP_LIBC, MARK_BW_CP_HAND,	/* tests/bw_mem.c */
	MARK_BW_FRD, MARK_BW_FWR, MARK_BW_FCP,
	/* The process probes' timed runs, one id a seed (LMbench) column. */
	MARK_TRAP_NULL = 21, MARK_SIG_CATCH, MARK_SIG_PROT,	/* tests/trap.c, signal.c */
	MARK_FORK, MARK_EXEC, MARK_PIPE, MARK_PAGEFAULT, MARK_LAT_MMAP,
	MARK_CTX_2P_0K = 31, MARK_CTX_2P_16K, MARK_CTX_2P_64K,	/* tests/ctx.c, columns[] order */
	MARK_CTX_8P_16K, MARK_CTX_8P_64K, MARK_CTX_16P_16K, MARK_CTX_16P_64K,
	/* An empty region as each probe starts in a mode: 90 + the mode's
	 * index in the run (boot/run.c), so that entries can be told by mode. */
	MARK_MODE = 90,
};

#if defined(__powerpc__)
#define MARK__(kind, id) __asm__ volatile("or " #kind "," #kind "," #kind "\n\tor %0,%0,%0\n\tor %1,%1,%1" \
					  :: "n"(10 + (id) / 10 % 10), "n"(10 + (id) % 10) : "memory")
#define MARK_BEGIN(id, translated) do { if (translated) MARK__(22, id); else MARK__(20, id); } while (0)
#define MARK_END(id) MARK__(21, id)
#else
#define MARK_BEGIN(id, translated) ((void)(translated))
#define MARK_END(id) ((void)0)
#endif
#endif
