/* mmuplugin: a QEMU TCG plugin that gives the emulated PPC405GP modelled
 * time.  QEMU emulates no cache, no shadow TLB and no cycle timing (-icount
 * counts instructions); this plugin sees every executed instruction and
 * memory access and runs them through a model of the core built from its
 * manuals (each parameter below cites its section), then writes, for every
 * region the image marks (include/mark.h), the instructions, the cache and
 * shadow-TLB misses and the modelled cycles.
 *
 *   qemu-system-ppc ... -plugin build/tools/mmuplugin.so,core=405gp,out=FILE
 *
 * Manuals: [UM] PPC405 Core User's Manual (IBM SA14-2339-04); [GP]
 * PPC405GP Embedded Processor User's Manual (IBM).  What cannot be known
 * from here (no guest register is readable in QEMU 7.2's plugin API) is an
 * assumption, said where it is made and in doc/modelled-time.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qemu_plugin_api.h"
#include "cache.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_API_KNOWN;

/* The 405GP as the Walnut has it. */
#define ICACHE_BYTES	(16u << 10)	/* [GP] 4.1, [UM] 4: 16 KB I-cache, two-way */
#define DCACHE_BYTES	(8u << 10)	/* [UM] 4 (PPC405B3 core): 8 KB D-cache, two-way */
#define CACHE_WAYS	2		/* [UM] 4.1: two-way set-associative, LRU ([GP] 4.1) */
#define CACHE_LINE	32		/* [UM] 4.1: lines of eight words */
/* [UM] 4.3.2 DCU write strategies: write-back where TLB W = 0 or, translation
 * off, DCWR = 0; the image writes DCWR 0 (arch/ppc405/cache.c) and maps RAM
 * with W = 0.  [UM] 4.3.3: CCR0[SWOA] = 0, store misses fill the line; the
 * image clears SWOA (arch/ppc405/cache.c, ccr0_init). */
#define DCACHE_WB	1
#define DCACHE_SWOA	0
#define ITLB_ENTRIES	4		/* [UM] 7.3.3: four-entry fully associative ITLB */
#define DTLB_ENTRIES	8		/* [UM] 7.3.4: eight-entry fully associative DTLB */
#define ITLB_MISS	4		/* [UM] 7.3.3.1: ITLB miss, UTLB hit: four cycles */
#define DTLB_MISS	3		/* [UM] 7.3.4.1: DTLB miss, UTLB hit: three cycles */
#define PAGE_SHIFT	12		/* assumed: 4 KiB pages (the plugin cannot read the TLB's SIZE) */
/* [UM] C.2.1: every instruction one cycle on cache hits, except: */
#define DIV_CYCLES	35		/* divides: 35 cycles */
#define MUL_CYCLES	5		/* multiplies 1 to 5 cycles by operand size (C.2.3,
					   Table C-2, not read here): the bound, unconfirmed */
#define CACHEOP_CYCLES	2		/* a data cache control instruction in isolation: 2 */
#define LOAD_USE	1		/* [UM] C.2.4: a load followed at once by a use of its
					   target: one more cycle (operand forwarding on) */
#define MISPREDICT	2		/* [UM] C.2.2: a mispredicted branch takes 2 or 3 cycles:
					   the 2 (one instruction between it and its condition) */
/* The line fill.  Walnut: core 200 MHz, PLB (and SDRAM) 100 MHz.  SDRAM
 * timing: [GP] SDRAM0_TR's fields as a U-Boot example for a 405GP sets
 * them (CASL 2 clocks, LDF leadoff 2 clocks; Embedded Linux Primer, Table
 * D-3); a 32-byte line over the 405GP's 32-bit SDRAM bus is 8 beats (the
 * width from the 405GP data sheet, unconfirmed here).  PLB arbitration and
 * the controller's own cycles are not modelled: unknown. */
#define CORE_PER_PLB	2
#define SDRAM_LDF	2
#define SDRAM_CASL	2
#define SDRAM_BEATS	(CACHE_LINE / 4)
#define FILL_CYCLES	((SDRAM_LDF + SDRAM_CASL + SDRAM_BEATS) * CORE_PER_PLB)
#define WRITEBACK_CYCLES ((SDRAM_LDF + SDRAM_BEATS) * CORE_PER_PLB)

#define MAX_REGIONS	100		/* ids 0..99: two marker digits */

/* What the translation found out about one instruction. */
struct insn {
	uint64_t vaddr;
	uint32_t cycles;		/* its static cost, load-use stall included */
	uint8_t branch;			/* 1 conditional: predicted taken in `taken` */
	uint8_t taken;
	uint8_t sync;			/* context synchronizing: flushes the shadow TLBs */
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
static struct stlb itlb, dtlb;
static struct counts now;
static FILE *out;
static char out_name[512];
/* Branch resolution, markers and regions: one vCPU (refused otherwise). */
static int pend_branch, pend_taken;
static uint64_t pend_vaddr, last_iline = ~0ull, last_ipage = ~0ull;
static int xlate;			/* inside a region marked as translated */
static int in_exc;			/* in an interrupt handler: translation off */
static const struct insn *last_in;	/* the instruction executed before */
static int mk_kind, mk_digits, mk_val;	/* a marker being read */
static int open_id = -1, open_xlate;
static struct counts open_at;
static uint64_t entries[MAX_REGIONS], bad_marks;
static struct counts total[MAX_REGIONS];

static uint32_t bits(uint32_t op, int from, int to)	/* IBM numbering: bit 0 the MSB */
{
	return (op >> (31 - to)) & ((1u << (to - from + 1)) - 1);
}

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
		return DIV_CYCLES;
	if (p == 7 || (p == 31 && (xo9 == 235 || xo9 == 75 || xo9 == 11)))
		return MUL_CYCLES;
	if (p == 31 && (xo == 1014 || xo == 86 || xo == 470 || xo == 54 || xo == 278 || xo == 246 ||
			xo == 454 || xo == 982 || xo == 966 || xo == 758))
		return CACHEOP_CYCLES;
	if (p == 46 || p == 47)			/* lmw, stmw: one cycle a word (C.2.1) */
		return 32 - bits(op, 6, 10);
	return 1;
}

static void flush_shadow(void)
{
	stlb_flush(&itlb);
	stlb_flush(&dtlb);
	last_ipage = ~0ull;
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

	/* An interrupt: [UM] 7.3.5, it empties the shadow TLBs; [UM] 5 (e.g.
	 * Table 5-8), it clears MSR[IR, DR], so its handler runs untranslated
	 * until its rfi (or an rfi into translated code). */
	if (last_in && interrupted(last_in, in->vaddr)) {
		in_exc = 1;
		flush_shadow();
	}
	last_in = in;
	now.insns++;
	now.cycles += in->cycles;
	now.unseen += in->unseen;
	if (pend_branch) {
		if ((in->vaddr != pend_vaddr + 4) != pend_taken)
			now.cycles += MISPREDICT;
		pend_branch = 0;
	}
	if (in->branch) {
		pend_branch = 1;
		pend_taken = in->taken;
		pend_vaddr = in->vaddr;
	}
	/* The fetch: a new line looks the I-cache up (virtual = physical: the
	 * image maps RAM 1:1), a new page the ITLB. */
	if (xlate && !in_exc && in->vaddr >> PAGE_SHIFT != last_ipage) {
		last_ipage = in->vaddr >> PAGE_SHIFT;
		if (!stlb_lookup(&itlb, last_ipage)) {
			now.itlbm++;
			now.cycles += ITLB_MISS;
		}
	}
	if (in->vaddr / CACHE_LINE != last_iline) {
		last_iline = in->vaddr / CACHE_LINE;
		if (cache_access(&icache, in->vaddr, 0) != CACHE_HIT) {
			now.imiss++;
			now.cycles += FILL_CYCLES;
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
	if (xlate && !in_exc && !stlb_lookup(&dtlb, vaddr >> PAGE_SHIFT)) {
		now.dtlbm++;
		now.cycles += DTLB_MISS;
	}
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
		now.cycles += FILL_CYCLES;	/* a blocking fill: [UM]'s hits under a fill are not modelled */
	if (r & CACHE_WRITEBACK) {
		now.dwb++;
		now.cycles += WRITEBACK_CYCLES;
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
			ins[i - 1].cycles += LOAD_USE;
		/* Conditional branches: [UM] 2, Branch Prediction (as C.1.5
		 * points to): static, backward taken and forward not, the y bit
		 * (BO's last) reversing it; bclr/bcctr as forward. */
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
		} else if (p == 19 && (xo == 16 || xo == 528 || xo == 50 || xo == 51)) {
			in->flow = FLOW_ANY;
		} else if (p == 17) {
			in->flow = FLOW_TRAP;
		}
		in->rfi = p == 19 && (xo == 50 || xo == 51);
		in->unseen = is_unseen(op);
		in->sync = p == 17 || (p == 19 && (xo == 150 || xo == 50 || xo == 51));
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
}

static int usage(const char *why, const char *arg)
{
	fprintf(stderr, "mmuplugin: %s%s%s%s; arguments: core=405gp out=FILE\n", why,
		arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	return 1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	const char *core = 0, *file = 0;
	struct cache_cfg ic = { ICACHE_BYTES, CACHE_WAYS, CACHE_LINE, 0, 0 };
	struct cache_cfg dc = { DCACHE_BYTES, CACHE_WAYS, CACHE_LINE, DCACHE_WB, !DCACHE_SWOA };

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
			core = argv[i] + 5;
		else if (!strncmp(argv[i], "out=", 4) && argv[i][4])
			file = argv[i] + 4;
		else
			return usage("unknown argument", argv[i]);
	}
	if (!core || strcmp(core, "405gp"))
		return usage(core ? "unknown core (models: 405gp)" : "no core: core=405gp is required", core);
	if (!file)
		return usage("no output file: out=FILE is required", 0);
	if (!info->system_emulation || info->system.smp_vcpus != 1 || strcmp(info->target_name, "ppc")) {
		fprintf(stderr, "mmuplugin: models one 405 core: needs qemu-system-ppc with one vCPU "
			"(target '%s', %d vCPUs)\n", info->target_name,
			info->system_emulation ? info->system.smp_vcpus : 0);
		return 1;
	}
	if (cache_init(&icache, &ic) < 0 || cache_init(&dcache, &dc) < 0 ||
	    stlb_init(&itlb, ITLB_ENTRIES) < 0 || stlb_init(&dtlb, DTLB_ENTRIES) < 0) {
		fprintf(stderr, "mmuplugin: cannot set up the model\n");
		return 1;
	}
	snprintf(out_name, sizeof(out_name), "%s", file);
	out = fopen(file, "w");
	if (!out) {
		fprintf(stderr, "mmuplugin: cannot write %s\n", file);
		return 1;
	}
	fprintf(out, "# mmuplugin core=405gp: modelled (not measured) at %d core cycles a PLB cycle; "
		"line fill %d cycles, write-back %d; doc/modelled-time.md\n", CORE_PER_PLB, FILL_CYCLES,
		WRITEBACK_CYCLES);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, 0);
	return 0;
}
