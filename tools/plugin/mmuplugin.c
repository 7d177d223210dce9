/* mmuplugin: a QEMU TCG plugin that gives the emulated PPC405GP and
 * e500v2 modelled time.  QEMU emulates no cache, no shadow TLB and no cycle timing (-icount
 * counts instructions); this plugin sees every executed instruction and
 * memory access and runs them through a model of the core built from its
 * manuals (each parameter below cites its section), then writes, for every
 * region the image marks (include/mark.h), the instructions, the cache and
 * shadow-TLB misses and the modelled cycles.
 *
 *   qemu-system-ppc ... -plugin build/tools/mmuplugin.so,core=405gp,out=FILE
 *   (core=e500v2 for -M ppce500 -cpu e500v2)
 *
 * The manuals are named beside each core's parameters.  What cannot be known
 * from here (no guest register is readable in QEMU 7.2's plugin API) is an
 * assumption, said where it is made and in doc/modelled-time.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qemu_plugin_api.h"
#include "cache.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_API_KNOWN;

/* A core's model: every parameter a manual's (cited where it is set,
 * below), the per-core behaviour explicit here rather than in the code. */
struct core {
	const char *name, *clock;	/* clock: what the header says of the memory's */
	uint32_t icache, dcache, ways, line, repl;
	int write_back, store_allocate;	/* the D-cache's, as the image sets it up */
	uint32_t fill, writeback;	/* core cycles: a line read in, a dirty one written out */
	uint32_t itlb_miss, dtlb_miss;	/* a shadow (L1) TLB miss that hits the UTLB (L2 MMU) */
	uint32_t div, mul, cacheop, load_use, mispredict;
	unsigned itlb, dtlb;		/* 405: shadow TLB entries; 0: the e500's L1 MMU */
	unsigned vsp, tlb4k, tlb4k_ways;	/* the e500's L1 MMU, each side */
	unsigned real_page_shift;	/* 0: real mode translates nothing; else its one page */
	int exc_untranslated;		/* an interrupt turns translation off (405) */
	int dynamic_bp;			/* the BTB's counters (e500) vs static (405) */
	int (*flushes)(uint32_t op);	/* the instructions that empty the shadow TLBs */
};

static uint32_t bits(uint32_t op, int from, int to)	/* IBM numbering: bit 0 the MSB */
{
	return (op >> (31 - to)) & ((1u << (to - from + 1)) - 1);
}

static uint32_t spr_of(uint32_t op)			/* mtspr/mfspr's SPR field, halves swapped */
{
	return bits(op, 16, 20) << 5 | bits(op, 11, 15);
}

/* [UM] 7.3.5: isync, sc, rfi and rfci empty the 405's shadow TLBs. */
static int flushes_405(uint32_t op)
{
	uint32_t p = op >> 26, xo = bits(op, 21, 30);

	return p == 17 || (p == 19 && (xo == 150 || xo == 50 || xo == 51));
}

/* E500CORERM 12.3.3: the L1 TLBs are kept a subset of the L2 MMU by
 * hardware; a PID change invalidates them.  Here: tlbivax and a write of
 * PID0-2 or MMUCSR0 (flash invalidation) empty them whole.  A tlbwe's
 * invalidation of the entry it overwrites is not modelled (the plugin
 * cannot read MAS0-2).  Interrupts and isync leave them. */
static int flushes_e500(uint32_t op)
{
	uint32_t p = op >> 26, xo = bits(op, 21, 30), spr = spr_of(op);

	return p == 31 && (xo == 786 || (xo == 467 && (spr == 48 || spr == 633 || spr == 634 || spr == 1012)));
}

/* The 405GP as the Walnut has it.  Manuals: [UM] PPC405 Core User's Manual
 * (IBM SA14-2339-04); [GP] PPC405GP Embedded Processor User's Manual.
 * The line fill: core 200 MHz, PLB and SDRAM 100 MHz (2 core cycles a PLB
 * cycle); SDRAM0_TR as a U-Boot example for a 405GP sets it (CASL 2, LDF
 * leadoff 2 clocks; Embedded Linux Primer, Table D-3); a 32-byte line over
 * the 32-bit SDRAM bus is 8 beats (the width from the 405GP data sheet,
 * unconfirmed here).  PLB arbitration and the controller's own cycles are
 * not modelled: unknown. */
#define PLB_LDF		2
#define PLB_CASL	2
#define PLB_BEATS	8
static const struct core ppc405gp = {
	.name = "405gp", .clock = "2 core cycles a PLB cycle",
	.icache = 16u << 10,		/* [GP] 4.1, [UM] 4: 16 KB I-cache, two-way */
	.dcache = 8u << 10,		/* [UM] 4 (PPC405B3 core): 8 KB D-cache, two-way */
	.ways = 2, .repl = CACHE_LRU,	/* [UM] 4.1: two-way, LRU ([GP] 4.1) */
	.line = 32,			/* [UM] 4.1: lines of eight words */
	/* [UM] 4.3.2: write-back where TLB W = 0 or, untranslated, DCWR = 0;
	 * the image writes DCWR 0 (arch/ppc405/cache.c) and maps RAM W = 0.
	 * [UM] 4.3.3: CCR0[SWOA] = 0, store misses fill; the image clears it. */
	.write_back = 1, .store_allocate = 1,
	.fill = (PLB_LDF + PLB_CASL + PLB_BEATS) * 2,
	.writeback = (PLB_LDF + PLB_BEATS) * 2,
	.itlb = 4, .itlb_miss = 4,	/* [UM] 7.3.3, 7.3.3.1: four entries; UTLB hit 4 cycles */
	.dtlb = 8, .dtlb_miss = 3,	/* [UM] 7.3.4, 7.3.4.1: eight entries; UTLB hit 3 cycles */
	/* [UM] C.2.1: every instruction one cycle on cache hits, except: */
	.div = 35,			/* divides: 35 cycles */
	.mul = 5,			/* 1 to 5 by operand size (C.2.3, Table C-2, not
					   read here): the bound, unconfirmed */
	.cacheop = 2,			/* a data cache control instruction: 2 */
	.load_use = 1,			/* C.2.4: a use right after the load, forwarding on */
	.mispredict = 2,		/* C.2.2: 2 or 3 cycles: the 2 */
	.exc_untranslated = 1,		/* [UM] 5 (e.g. Table 5-8): MSR[IR, DR] cleared */
	.flushes = flushes_405,
};

/* The e500v2 as an MPC8544-like part would have it.  [CRM]: PowerPC e500
 * Core Family Reference Manual (E500CORERM Rev. 1).  QEMU's ppce500 is no
 * real board: its memory is assumed to be an 800 MHz core's over a
 * 400 MHz CCB and DDR2-400 (200 MHz: 4 core cycles a DDR clock), JEDEC
 * DDR2-400 3-3-3 timing (CL 3, tRCD 3); a 32-byte line is 4 beats of the
 * 64-bit bus, 2 clocks.  An MPC8544's 256 KiB L2, its DDR controller's and
 * the CCB's own cycles are not modelled: unknown; the fills are a lower
 * bound.  A write-back: tRCD, the write latency CL - 1, the beats. */
#define DDR_CORE	4
#define DDR_CL		3
#define DDR_RCD		3
#define DDR_CLOCKS	2
static const struct core e500v2 = {
	.name = "e500v2", .clock = "4 core cycles a DDR clock",
	.icache = 32u << 10,		/* [CRM] 11.1: 32 KB I and D caches, 8-way */
	.dcache = 32u << 10,
	.ways = 8, .line = 32,		/* [CRM] 11.2: 128 sets of 8 lines of 32 bytes */
	.repl = CACHE_PLRU,		/* [CRM] 11.6.2.1, Table 11-8: 7-bit tree PLRU */
	.write_back = 1,		/* [CRM] 11.6.2: write-back pages (the image's W = 0) */
	.store_allocate = 1,		/* ... whose store misses allocate the line */
	.fill = (DDR_RCD + DDR_CL + DDR_CLOCKS) * DDR_CORE,
	.writeback = (DDR_RCD + DDR_CL - 1 + DDR_CLOCKS) * DDR_CORE,
	.vsp = 4, .tlb4k = 64,		/* [CRM] 12.3.1: I and D each a 4-entry fully */
	.tlb4k_ways = 4,		/* associative L1VSP, a 64-entry 4-way L1TLB4K;
					   refilled from the L2 MMU by true LRU (1.9.1) */
	.itlb_miss = 5, .dtlb_miss = 5,	/* [CRM] 12.3 gives no cycles for an L1 MMU miss
					   that hits the L2 MMU: assumed 5 */
	.mul = 4,			/* [CRM] 4: mullw latency 4 (so do LLVM's e500
					   itineraries, taken from the manual) */
	.div = 35,			/* divw: 4 to 35 by operand (both sources): the bound */
	.cacheop = 1,			/* none given for dcbf and kin here: one cycle */
	.load_use = 2,			/* [CRM] 4.4.4: loads have a 3-cycle latency */
	.mispredict = 5,		/* no figure read here: assumed 5 (fetch to the
					   branch's execute stage refetched) */
	/* Every other instruction one cycle: the core issues two a cycle
	 * ([CRM] 4), the model one (simplified: an upper bound there). */
	.real_page_shift = 28,		/* real mode is one TLB1 entry over RAM: one
					   page (its size taken as 256 MiB) */
	.dynamic_bp = 1,		/* [CRM] 4.1: BTB prediction, BO hints unused */
	.flushes = flushes_e500,
};

static const struct core *const cores[] = { &ppc405gp, &e500v2 };
static const struct core *core;

#define PAGE_SHIFT	12		/* assumed: 4 KiB pages (the plugin cannot read the TLB's SIZE) */
#define MAX_REGIONS	100		/* ids 0..99: two marker digits */

/* What the translation found out about one instruction. */
struct insn {
	uint64_t vaddr;
	uint32_t cycles;		/* its static cost, load-use stall included */
	uint8_t branch;			/* 1 conditional: predicted taken in `taken` */
	uint8_t taken;			/* static prediction (405) */
	uint8_t sync;			/* empties the shadow TLBs (the core's flushes()) */
	uint8_t unseen;			/* accesses memory through a QEMU helper (below) */
	int8_t mark;			/* -1; else the register N of `or N,N,N` */
	uint8_t flow;			/* FLOW_*: where the next instruction may be */
	uint8_t rfi;			/* rfi or rfci: the interrupt handler ends */
	uint64_t target;		/* FLOW_TARGET: the branch's target */
};

/* What may follow an instruction: anything else is an interrupt's vector. */
enum { FLOW_NEXT, FLOW_TARGET, FLOW_ANY, FLOW_TRAP };

struct counts {		/* all uint64_t: diff() and add() walk them as an array */
	uint64_t insns, cycles, loads, stores, load_bytes, store_bytes, imiss, dmiss, dwb, itlbm, dtlbm, io;
	uint64_t unseen;	/* instructions whose accesses QEMU 7.2 does not show (below) */
};

static struct cache icache, dcache;
static struct stlb stlb[2];		/* 405: ITLB, DTLB */
static struct l1mmu l1mmu[2];		/* e500: the instruction and the data L1 MMU */
static struct counts now;
static FILE *out;
static char out_name[512];
/* Branch resolution, markers and regions: one vCPU (refused otherwise). */
static const struct insn *pend_branch;	/* a conditional branch not yet resolved */
static int pend_taken;			/* its prediction */
static uint64_t last_iline = ~0ull, last_ipage = ~0ull;
static int xlate;			/* inside a region marked as translated */
static int in_exc;			/* in an interrupt handler: translation off (405) */
static const struct insn *last_in;	/* the instruction executed before */
static int mk_kind, mk_digits, mk_val;	/* a marker being read */
static int open_id = -1, open_xlate;
static struct counts open_at;
static uint64_t entries[MAX_REGIONS], bad_marks;
static struct counts total[MAX_REGIONS];

static int is_load(uint32_t op)
{
	uint32_t p = op >> 26, xo = bits(op, 21, 30);

	if ((p >= 32 && p <= 35) || (p >= 40 && p <= 43) || p == 46)
		return 1;
	return p == 31 && (xo == 23 || xo == 55 || xo == 87 || xo == 119 || xo == 279 || xo == 311 ||
			   xo == 343 || xo == 375 || xo == 534 || xo == 790 || xo == 20);
}

static int is_store(uint32_t op)
{
	uint32_t p = op >> 26, xo = bits(op, 21, 30);

	if ((p >= 36 && p <= 39) || p == 44 || p == 45 || p == 47)
		return 1;
	return p == 31 && (xo == 151 || xo == 183 || xo == 215 || xo == 247 || xo == 407 || xo == 439 ||
			   xo == 662 || xo == 918 || xo == 150);
}

/* Whether `op` reads GPR r (approximately: the forms the compiler emits). */
static int reads(uint32_t op, uint32_t r)
{
	uint32_t p = op >> 26, rs = bits(op, 6, 10), ra = bits(op, 11, 15), rb = bits(op, 16, 20);
	uint32_t xo = bits(op, 21, 30);
	int rs_src = is_store(op) || (p >= 20 && p <= 29 && p != 22) ||
		     (p == 31 && (xo == 28 || xo == 60 || xo == 124 || xo == 284 || xo == 316 || xo == 412 ||
				  xo == 444 || xo == 476 || xo == 26 || xo == 922 || xo == 954 || xo == 24 ||
				  xo == 536 || xo == 792 || xo == 824 || xo == 467 || xo == 144 || xo == 146));

	if (p == 16 || p == 17 || p == 18 || p == 19)
		return 0;			/* branches, sc, CR ops: no GPR */
	if (rs_src && rs == r)
		return 1;
	if (ra == r && !((p == 14 || p == 15) && ra == 0))
		return 1;
	return p == 31 && rb == r;
}

/* QEMU 7.2 runs these through helpers whose accesses reach no plugin
 * memory callback (seen: a stmw/lmw pair and stswi/lswi/dcbz showed no
 * access), and the plugin cannot read the registers that would give their
 * addresses: they are counted, their accesses not modelled. */
static int is_unseen(uint32_t op)
{
	uint32_t p = op >> 26, xo = bits(op, 21, 30);

	return p == 46 || p == 47 ||
	       (p == 31 && (xo == 533 || xo == 597 || xo == 661 || xo == 725 || xo == 1014));
}

static uint32_t static_cycles(uint32_t op)
{
	uint32_t p = op >> 26, xo = bits(op, 21, 30), xo9 = bits(op, 22, 30);

	if (p == 31 && (xo9 == 491 || xo9 == 459))
		return core->div;
	if (p == 7 || (p == 31 && (xo9 == 235 || xo9 == 75 || xo9 == 11)))
		return core->mul;
	if (p == 31 && (xo == 1014 || xo == 86 || xo == 470 || xo == 54 || xo == 278 || xo == 246 ||
			xo == 454 || xo == 982 || xo == 966 || xo == 758))
		return core->cacheop;
	if (p == 46 || p == 47)			/* lmw, stmw: one cycle a word ([UM] C.2.1; the
						   e500's taken as the same) */
		return 32 - bits(op, 6, 10);
	return 1;
}

static void flush_shadow(void)
{
	for (int side = 0; side < 2; side++)
		if (core->itlb)
			stlb_flush(&stlb[side]);
		else
			l1mmu_flush(&l1mmu[side]);
	last_ipage = ~0ull;
}

/* Whether the shadow TLBs are in use: the 405's in translated regions
 * outside its handlers, the e500's always (real mode: one large page). */
static int translating(void)
{
	return (xlate || core->real_page_shift) && !in_exc;
}

/* A shadow-TLB lookup (side 0 instructions, 1 data): its miss cost, or 0. */
static uint32_t shadow_miss(int side, uint64_t vaddr)
{
	unsigned shift = xlate ? PAGE_SHIFT : core->real_page_shift;
	int hit;

	hit = core->itlb ? stlb_lookup(&stlb[side], vaddr >> shift) : l1mmu_lookup(&l1mmu[side], vaddr, shift);
	if (hit)
		return 0;
	if (side)
		now.dtlbm++;
	else
		now.itlbm++;
	return side ? core->dtlb_miss : core->itlb_miss;
}

/* The e500's BTB ([CRM] 4.1: dynamic prediction, 512 entries) taken as
 * 512 two-bit counters indexed by the branch's address (its 4 ways and
 * tags not modelled), from weakly not taken: a branch not in the BTB is
 * not predicted taken.  Kept by address, not per translated block, since
 * QEMU may translate one branch into several blocks. */
#define BTB_ENTRIES	512
static uint8_t btb[BTB_ENTRIES];

static uint8_t *counter_of(uint64_t vaddr)
{
	return &btb[(vaddr >> 2) % BTB_ENTRIES];
}

/* A resolved conditional branch: a misprediction costs the core's cycles. */
static void resolve(const struct insn *b, int taken)
{
	uint8_t *c = counter_of(b->vaddr);

	if (taken != pend_taken)
		now.cycles += core->mispredict;
	if (taken && *c < 3)
		(*c)++;
	else if (!taken && *c)
		(*c)--;
}

static void print_counts(FILE *f, const struct counts *c)
{
	fprintf(f, " insns=%llu cycles=%llu loads=%llu stores=%llu load_bytes=%llu store_bytes=%llu "
		"icache_misses=%llu dcache_misses=%llu dcache_writebacks=%llu itlb_misses=%llu dtlb_misses=%llu "
		"io=%llu unseen=%llu\n",
		(unsigned long long)c->insns, (unsigned long long)c->cycles, (unsigned long long)c->loads,
		(unsigned long long)c->stores, (unsigned long long)c->load_bytes,
		(unsigned long long)c->store_bytes, (unsigned long long)c->imiss, (unsigned long long)c->dmiss,
		(unsigned long long)c->dwb, (unsigned long long)c->itlbm, (unsigned long long)c->dtlbm,
		(unsigned long long)c->io, (unsigned long long)c->unseen);
}

static void diff(struct counts *d, const struct counts *a, const struct counts *b)
{
	const uint64_t *pa = (const uint64_t *)a, *pb = (const uint64_t *)b;
	uint64_t *pd = (uint64_t *)d;

	for (size_t i = 0; i < sizeof(*d) / sizeof(uint64_t); i++)
		pd[i] = pa[i] - pb[i];
}

static void add(struct counts *t, const struct counts *d)
{
	const uint64_t *pd = (const uint64_t *)d;
	uint64_t *pt = (uint64_t *)t;

	for (size_t i = 0; i < sizeof(*t) / sizeof(uint64_t); i++)
		pt[i] += pd[i];
}

/* A marker read whole: begin (real or translated) or end of region `id`. */
static void marker(int kind, int id)
{
	struct counts d;

	if (kind != 21) {
		if (open_id >= 0)
			bad_marks++;		/* a begin inside a region: the older one is dropped */
		open_id = id;
		open_xlate = xlate = kind == 22;
		in_exc = 0;		/* regions begin in the probe's code, never in a handler */
		last_ipage = ~0ull;	/* the next fetch looks its page up as the mode has it */
		open_at = now;
		return;
	}
	if (open_id != id) {
		bad_marks++;
		return;
	}
	diff(&d, &now, &open_at);
	add(&total[id], &d);
	fprintf(out, "region=%d seq=%llu xlate=%d", id, (unsigned long long)entries[id]++, open_xlate);
	print_counts(out, &d);
	open_id = -1;
	xlate = 0;
	last_ipage = ~0ull;
}

/* Whether `p` was followed by an interrupt rather than by `next`. */
static int interrupted(const struct insn *p, uint64_t next)
{
	switch (p->flow) {
	case FLOW_ANY:			/* bclr, bcctr, rfi: the target is in a register */
		return 0;
	case FLOW_TRAP:			/* sc */
		return 1;
	case FLOW_TARGET:
		return next != p->target && (!p->branch || next != p->vaddr + 4);
	default:
		return next != p->vaddr + 4;
	}
}

static void insn_exec(unsigned int vcpu, void *udata)
{
	const struct insn *in = udata;

	/* An interrupt on the 405: [UM] 7.3.5, it empties the shadow TLBs;
	 * [UM] 5 (e.g. Table 5-8), it clears MSR[IR, DR], so its handler runs
	 * untranslated until its rfi (or an rfi into translated code).  The
	 * e500 translates always (AS0/AS1) and keeps its L1 TLBs. */
	if (core->exc_untranslated && last_in && interrupted(last_in, in->vaddr)) {
		in_exc = 1;
		flush_shadow();
	}
	last_in = in;
	now.insns++;
	now.cycles += in->cycles;
	now.unseen += in->unseen;
	if (pend_branch) {
		resolve(pend_branch, in->vaddr != pend_branch->vaddr + 4);
		pend_branch = 0;
	}
	if (in->branch) {
		pend_branch = in;
		pend_taken = core->dynamic_bp ? *counter_of(in->vaddr) >= 2 : in->taken;
	}
	/* The fetch: a new page looks the ITLB up, a new line the I-cache
	 * (virtual = physical: the image maps RAM 1:1). */
	if (translating() && in->vaddr >> PAGE_SHIFT != last_ipage) {
		last_ipage = in->vaddr >> PAGE_SHIFT;
		now.cycles += shadow_miss(0, in->vaddr);
	}
	if (in->vaddr / core->line != last_iline) {
		last_iline = in->vaddr / core->line;
		if (cache_access(&icache, in->vaddr, 0) != CACHE_HIT) {
			now.imiss++;
			now.cycles += core->fill;
		}
	}
	if (in->sync)
		flush_shadow();
	if (in->rfi)
		in_exc = 0;
	if (in->mark >= 20 && in->mark <= 22) {
		mk_kind = in->mark;
		mk_digits = mk_val = 0;
	} else if (in->mark >= 10 && in->mark <= 19 && mk_kind) {
		mk_val = mk_val * 10 + in->mark - 10;
		if (++mk_digits == 2) {
			marker(mk_kind, mk_val);
			mk_kind = 0;
		}
	}
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
	int store = qemu_plugin_mem_is_store(info), r;

	if (store) {
		now.stores++;
		now.store_bytes += 1u << qemu_plugin_mem_size_shift(info);
	} else {
		now.loads++;
		now.load_bytes += 1u << qemu_plugin_mem_size_shift(info);
	}
	if (translating())
		now.cycles += shadow_miss(1, vaddr);
	/* A device: uncached and guarded (SGR, the image's TLB entries); its
	 * bus time is not modelled, only counted. */
	if (hw && qemu_plugin_hwaddr_is_io(hw)) {
		now.io++;
		return;
	}
	r = cache_access(&dcache, hw ? qemu_plugin_hwaddr_phys_addr(hw) : vaddr, store);
	if (r & CACHE_MISS)
		now.dmiss++;
	if (r & CACHE_FILL)
		now.cycles += core->fill;	/* a blocking fill: hits under a fill are not modelled */
	if (r & CACHE_WRITEBACK) {
		now.dwb++;
		now.cycles += core->writeback;	/* serial: write buffers' overlap not modelled */
	}
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct insn *ins = calloc(n, sizeof(*ins));	/* kept: a TB's callbacks use it as long as it lives */
	uint32_t prev = 0;

	if (!ins) {
		fprintf(stderr, "mmuplugin: out of memory\n");
		abort();
	}
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *qi = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *b = qemu_plugin_insn_data(qi);
		uint32_t op = (uint32_t)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];	/* big-endian */
		uint32_t p = op >> 26, xo = bits(op, 21, 30), bo = bits(op, 6, 10);
		struct insn *in = &ins[i];

		in->vaddr = qemu_plugin_insn_vaddr(qi);
		in->cycles = static_cycles(op);
		in->mark = -1;
		if (i && is_load(prev) && reads(op, bits(prev, 6, 10)))
			ins[i - 1].cycles += core->load_use;
		/* Conditional branches.  405 ([UM] 2, Branch Prediction, as C.1.5
		 * points to): static, backward taken and forward not, the y bit
		 * (BO's last) reversing it; bclr/bcctr as forward.  e500: the
		 * BTB's counters (counter_of). */
		if ((p == 16 || (p == 19 && (xo == 16 || xo == 528))) && (bo & 0x14) != 0x14) {
			int backward = p == 16 && (op & 0x8000);

			in->branch = 1;
			in->taken = backward ^ (bo & 1);
		}
		if (p == 18 || p == 16) {	/* b, bc: AA gives an absolute target */
			int64_t d = p == 18 ? (int32_t)(op << 6) >> 6 & ~3 : (int16_t)(op & 0xfffc);

			in->flow = FLOW_TARGET;
			in->target = (op & 2 ? 0 : in->vaddr) + (uint64_t)d;
			in->target &= 0xffffffffu;
		} else if (p == 19 && (xo == 16 || xo == 528 || xo == 50 || xo == 51 || xo == 38)) {
			in->flow = FLOW_ANY;		/* bclr, bcctr, rfi, rfci, rfmci */
		} else if (p == 17) {
			in->flow = FLOW_TRAP;
		}
		in->rfi = p == 19 && (xo == 50 || xo == 51);
		in->unseen = is_unseen(op);
		in->sync = core->flushes(op);
		if (p == 31 && xo == 444 && !(op & 1) && bits(op, 6, 10) == bits(op, 11, 15) &&
		    bits(op, 6, 10) == bits(op, 16, 20))
			in->mark = (int8_t)bits(op, 6, 10);
		qemu_plugin_register_vcpu_insn_exec_cb(qi, insn_exec, QEMU_PLUGIN_CB_NO_REGS, in);
		if (is_load(op) || is_store(op))
			qemu_plugin_register_vcpu_mem_cb(qi, mem_access, QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW, 0);
		prev = op;
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	struct counts run = now;

	for (int i = 0; i < MAX_REGIONS; i++)
		if (entries[i]) {
			fprintf(out, "total region=%d entries=%llu", i, (unsigned long long)entries[i]);
			print_counts(out, &total[i]);
		}
	fprintf(out, "total region=run unmatched_markers=%llu", (unsigned long long)bad_marks);
	print_counts(out, &run);
	if (fclose(out))
		fprintf(stderr, "mmuplugin: writing %s failed\n", out_name);
	cache_free(&icache);
	cache_free(&dcache);
	l1mmu_free(&l1mmu[0]);
	l1mmu_free(&l1mmu[1]);
}

static int usage(const char *why, const char *arg)
{
	fprintf(stderr, "mmuplugin: %s%s%s%s; arguments: core=405gp|e500v2 out=FILE\n", why,
		arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	return 1;
}

/* The model's state for `core`: 0, or -1 if it cannot be set up. */
static int model_init(void)
{
	struct cache_cfg ic = { core->icache, core->ways, core->line, 0, 0, core->repl };
	struct cache_cfg dc = { core->dcache, core->ways, core->line, core->write_back, core->store_allocate,
				core->repl };

	if (cache_init(&icache, &ic) < 0 || cache_init(&dcache, &dc) < 0)
		return -1;
	if (core->itlb)
		return stlb_init(&stlb[0], core->itlb) < 0 || stlb_init(&stlb[1], core->dtlb) < 0 ? -1 : 0;
	for (int side = 0; side < 2; side++)
		if (l1mmu_init(&l1mmu[side], core->vsp, core->tlb4k, core->tlb4k_ways) < 0)
			return -1;
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	const char *name = 0, *file = 0;

	/* Our declarations are version 1's: a QEMU speaking another may
	 * differ in them, so refuse rather than guess. */
	if (info->version.cur != QEMU_API_KNOWN) {
		fprintf(stderr, "mmuplugin: this QEMU's plugin API is version %d (it supports %d to %d); "
			"mmuplugin knows version %d only (QEMU 7.2): refusing to load\n",
			info->version.cur, info->version.min, info->version.cur, QEMU_API_KNOWN);
		return 1;
	}
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "core=", 5))
			name = argv[i] + 5;
		else if (!strncmp(argv[i], "out=", 4) && argv[i][4])
			file = argv[i] + 4;
		else
			return usage("unknown argument", argv[i]);
	}
	for (size_t i = 0; name && i < sizeof(cores) / sizeof(cores[0]); i++)
		if (!strcmp(name, cores[i]->name))
			core = cores[i];
	if (!core)
		return usage(name ? "unknown core (models: 405gp, e500v2)" : "no core: core=405gp or core=e500v2 "
			     "is required", name);
	if (!file)
		return usage("no output file: out=FILE is required", 0);
	if (!info->system_emulation || info->system.smp_vcpus != 1 || strcmp(info->target_name, "ppc")) {
		fprintf(stderr, "mmuplugin: models one %s core: needs qemu-system-ppc with one vCPU "
			"(target '%s', %d vCPUs)\n", core->name, info->target_name,
			info->system_emulation ? info->system.smp_vcpus : 0);
		return 1;
	}
	memset(btb, 1, sizeof(btb));
	if (model_init() < 0) {
		fprintf(stderr, "mmuplugin: cannot set up the model\n");
		return 1;
	}
	snprintf(out_name, sizeof(out_name), "%s", file);
	out = fopen(file, "w");
	if (!out) {
		fprintf(stderr, "mmuplugin: cannot write %s\n", file);
		return 1;
	}
	fprintf(out, "# mmuplugin core=%s: modelled (not measured) at %s; line fill %u cycles, write-back %u; "
		"doc/modelled-time.md\n", core->name, core->clock, core->fill, core->writeback);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, 0);
	return 0;
}
