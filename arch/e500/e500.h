/* e500v2 (Book-E) registers and helpers shared inside arch/e500 and by the
 * ppce500 board. */
#ifndef E500_H
#define E500_H

/* SPRs (e500 core reference manual, QEMU target/ppc/cpu.h) */
#define SPR_DEC		22
#define SPR_SRR0	26
#define SPR_SRR1	27
#define SPR_PID		48
#define SPR_DECAR	54
#define SPR_CSRR0	58
#define SPR_CSRR1	59
#define SPR_DEAR	61
#define SPR_ESR		62
#define SPR_IVPR	63
#define SPR_SPRG0	272
#define SPR_SPRG1	273
#define SPR_SPRG2	274
#define SPR_SPRG3	275
#define SPR_SPRG4	276
#define SPR_SPRG5	277
#define SPR_SPRG6	278
#define SPR_SPRG7	279
#define SPR_PVR		287
#define SPR_TSR		336
#define SPR_TCR		340
#define SPR_IVOR0	400	/* IVOR0..15: 400..415 */
#define SPR_IVOR32	528	/* IVOR32..35: 528..531 (SPE, performance monitor) */
#define SPR_MCSRR0	570
#define SPR_MCSRR1	571
#define SPR_MCSR	572
#define SPR_MAS0	624
#define SPR_MAS1	625
#define SPR_MAS2	626
#define SPR_MAS3	627
#define SPR_MAS4	628
#define SPR_MAS6	630
#define SPR_PID1	633
#define SPR_PID2	634
#define SPR_TLB0CFG	688
#define SPR_TLB1CFG	689
#define SPR_MAS7	944
#define SPR_HID0	1008
#define SPR_HID1	1009
#define SPR_L1CSR0	1010
#define SPR_L1CSR1	1011
#define SPR_MMUCSR0	1012
#define SPR_MMUCFG	1015
#define SPR_SVR		1023
#define SPR_L1CFG0	515
#define SPR_L1CFG1	516

/* MAS fields (Book-E 2.06 MMU as the e500 has it) */
#define MAS0_TLBSEL1	0x10000000	/* TLB1 */
#define MAS0_ESEL(n)	((n) << 16)
#define MAS1_V		0x80000000
#define MAS1_IPROT	0x40000000	/* kept by tlbivax and flash invalidation */
#define MAS1_TID(t)	((t) << 16)
#define MAS1_TS		0x00001000	/* address space 1 */
#define MAS1_TSIZE(s)	((s) << 8)	/* 4^s KiB */
#define MAS2_W		0x10
#define MAS2_I		0x08
#define MAS2_M		0x04
#define MAS2_G		0x02
#define MAS3_SX		0x10
#define MAS3_SW		0x04
#define MAS3_SR		0x01
#define MAS3_UX		0x20
#define MAS3_UW		0x08
#define MAS3_UR		0x02
#define TSIZE_4K	1
#define TSIZE_1M	5
#define TSIZE_4M	6
#define TSIZE_16M	7
#define TSIZE_64M	8
#define TSIZE_256M	9
#define TSIZE_1G	10

#define MSR_CE		0x00020000
#define MSR_EE		0x00008000
#define MSR_PR		0x00004000
#define MSR_ME		0x00001000
#define MSR_DE		0x00000200
#define MSR_IS		0x00000020
#define MSR_DS		0x00000010

#define TCR_WIE		0x08000000
#define TCR_DIE		0x04000000
#define TCR_FIE		0x00800000
#define TCR_ARE		0x00400000
#define TCR_WP		0xc0000000	/* watchdog period: a TB bit, with WPEXT */
#define TCR_WRC		0x30000000	/* watchdog reset control: write-once */
#define TCR_FP		0x03000000	/* fixed interval period, with FPEXT */
#define TCR_WPEXT	0x001e0000
#define TCR_FPEXT	0x0001e000
#define TSR_ENW		0x80000000
#define TSR_WIS		0x40000000
#define TSR_DIS		0x08000000
#define TSR_FIS		0x04000000

#define ESR_ST		0x00800000	/* a store (DSI, DTLB miss, alignment) */

/* Where the CCSR block (the SoC's registers: UART, GUTS, GPIO) is mapped:
 * above the user window (mmu.h MMU_SPACE_BASE) and the RAM entry. */
#define E500_CCSR_VA	0xe0000000
#define E500_CCSR_BYTES	(1u << 20)

/* Where every 85xx CCSR block has its first UART and its MPIC (MPC8548ERM,
 * P2020RM memory maps): the UART only for the refusal when no device tree
 * came (console.c), found through the loader's own CCSR entry. */
#define E500_UART0_OFF		0x4500
#define MPIC_CTPR0		0x20080	/* CPU 0's current task priority, from the MPIC */

/* TLB1 entries of the boot translation (tlb.c): RAM 1:1, the CCSR.  RAM
 * takes up to E500_RAM_ENTRIES entries in each address space: in AS0
 * ESEL_RAM, then from ESEL_PINS (mode real has no pins); in AS1 the top
 * ones, from e500_ram.as1_first to 15. */
#define E500_RAM_ENTRIES 3
#define ESEL_RAM	0
/* The boot RAM entry's rights: supervisor and user rwx, so that mode real
 * (the boot translation) has a problem state, as unprotected as the 405's
 * with translation off (tlbswitch.S writes the same bits). */
#define E500_BOOT_RAM_MAS3	(MAS3_SX | MAS3_SW | MAS3_SR | MAS3_UX | MAS3_UW | MAS3_UR)
#define ESEL_CCSR	1
#define ESEL_PINS	2	/* the translated modes' pinned entries from here */
#define ESEL_TEMP	15	/* the AS1 stepping stone while the others change */
#define ESEL_AS1_LOWEST	(16 - E500_RAM_ENTRIES)	/* AS1 RAM at most from here */

/* The MMU state block just below the page directory (vectors.S): the
 * struct mmu_counters (mmu.h) and the large-page victim words.  Offsets
 * from the directory, which SPRG3 holds; exceptions.c asserts them. */
#define MMU_STATE_BYTES	64
#define MMU_ITLB_OFF	(-64)	/* mmu_count.itlb_misses */
#define MMU_DTLB_OFF	(-60)	/* mmu_count.dtlb_misses */
#define MMU_WRITES_OFF	(-48)	/* mmu_count.tlb_writes */
#define MMU_KITLB_OFF	(-40)	/* mmu_count.kernel_itlb_misses */
#define MMU_KDTLB_OFF	(-36)	/* mmu_count.kernel_dtlb_misses */
#define MMU_RRNEXT_OFF	(-32)	/* the next TLB1 victim for a large page */
#define MMU_RRFIRST_OFF	(-28)	/* the first TLB1 entry not pinned */
#define MMU_RRLIMIT_OFF	(-24)	/* past the last: the first AS1 RAM entry */

/* A PTE (and a directory leaf): the physical page, then MAS3's permission
 * bits as they are (SR is "present": every mapping is readable), MAS2's
 * WIMGE shifted up by 6, and in a directory word PTE_LEAF: a large page
 * mapped 1:1, its TSIZE at bits 12-15.  0: no mapping.  A directory word
 * without PTE_LEAF is a 4K table's address. */
#define PTE_SR		0x001
#define PTE_UR		0x002
#define PTE_SW		0x004
#define PTE_UW		0x008
#define PTE_SX		0x010
#define PTE_UX		0x020
#define PTE_WIMGE_SHIFT	6
#define PTE_LEAF	0x800
#define PTE_TSIZE_SHIFT	12
/* TLB0's geometry, as the miss handlers pick its victims (mmu.c checks
 * TLB0CFG): 512 entries, 4 ways, the set from EPN's low 7 bits. */
#define TLB0_SETS	128
#define TLB0_WAYS	4
#define WINDOW_SLOT	0x300	/* MMU_SPACE_BASE >> 22: the user window's first directory word */
#define WINDOW_SLOTS	4	/* its 16 MiB (MMU_SPACE_SIZE) */
#define WINDOW_TOP8	0xc0	/* MMU_SPACE_BASE >> 24: the miss handlers' window test */

/* struct proc_job's offsets and the call numbers, for the user routine
 * (arch/powerpc/user_code.S); user.c asserts them. */
#include "../powerpc/user_job.h"

/* struct e500_frame, for vectors.S; exceptions.c asserts them.  F_GPR ..
 * F_SRR1: arch/powerpc/frame.h. */
#include "../powerpc/frame.h"
#define F_DEAR	152
#define F_ESR	156
#define F_VEC	160
#define F_CSRR0	164	/* critical class: PC and MSR */
#define F_CSRR1	168
#define F_MCSRR0 172	/* machine check: PC and MSR, and why */
#define F_MCSRR1 176
#define F_MCSR	180
#define F_SIZE	192

#define LOADER_REGS_BYTES 192		/* start.S's LR_BYTES: struct e500_loader_regs */

#ifndef __ASSEMBLY__
#include <stdint.h>

#include "../powerpc/reg.h"

/* One TLB entry from its MAS words (MAS7: physical address bits 32..35). */
static inline void e500_tlbwe(uint32_t mas0, uint32_t mas1, uint32_t mas2, uint32_t mas3,
			      uint32_t mas7)
{
	mtspr(SPR_MAS0, mas0);
	mtspr(SPR_MAS1, mas1);
	mtspr(SPR_MAS2, mas2);
	mtspr(SPR_MAS3, mas3);
	mtspr(SPR_MAS7, mas7);
	/* msync: earlier accesses done under the old translation
	 * (E500CORERM 12.4, "Synchronization requirements"). */
	__asm__ volatile("msync; isync; tlbwe; isync" ::: "memory");
}

/* start.S: what the loader left (LR_* offsets there). */
struct e500_loader_regs {
	uint32_t r1, r2, lr, msr, ivpr;
	uint32_t r13_31[19];
	uint32_t tcr, ivor[16];		/* start.S: up to tcr; entry.c: the rest */
	uint32_t ivor32[4], pid, pid1, pid2;
};
extern struct e500_loader_regs loader_regs;
void e500_return_to_loader(int status) __attribute__((noreturn));

/* The state vectors.S saves (F_* offsets). */
struct e500_frame {
	uint32_t gpr[32];
	uint32_t cr, lr, ctr, xer;
	uint32_t srr0, srr1, dear, esr, vector;
	uint32_t csrr0, csrr1, mcsrr0, mcsrr1, mcsr;
	uint32_t pad[2];
};

/* fdt.c: what the device tree says, read once at entry. */
struct e500_fdt_info {
	uint64_t ram_base, ram_bytes;	/* /memory reg, first bank */
	uint32_t cpu_hz, tb_hz;		/* /cpus/<cpu> clock-frequency, timebase-frequency */
	uint64_t ccsr_pa;		/* /soc ranges: the CCSR block's physical base */
	uint32_t uart_off;		/* its ns16550's reg, from the CCSR base */
	uint32_t uart_hz;		/* its clock-frequency */
	uint32_t gpio_off;		/* the power-off GPIO controller's reg, 0 none */
	uint32_t guts_off;		/* the global utilities (RSTCR), 0 none */
	uint32_t poweroff_pin;		/* gpio-poweroff's pin + 1, 0 none */
	uint32_t mpic_off;		/* the MPIC's reg, 0 none */
	const char *bootargs;		/* /chosen bootargs, 0 none */
	const char *model;
	unsigned nreserved, reserved_overflow;	/* memory no one but the loader may touch */
	struct e500_reserved { uint64_t base, bytes; const char *why; } reserved[8];
	uint64_t spin_table;		/* a cpu's cpu-release-addr (spin-table), 0 none */
	unsigned spin_cpu;		/* its reg */
};
/* 0, or why the blob at fdt is not one we can read. */
const char *e500_fdt_read(const void *fdt, struct e500_fdt_info *out);
extern struct e500_fdt_info e500_fdt;
extern const char *e500_fdt_source;	/* how we found it, for the banner */
extern const char *e500_fdt_error;	/* 0, or why there is none */

/* tlb.c: the loader's TLB entries as read at entry (return.S's records:
 * MAS0 selects TLB0's way or TLB1's entry). */
struct e500_tlb_entry { uint32_t mas0, mas1, mas2, mas3, mas7; };
struct e500_loader_tlb {
	struct e500_tlb_entry tlb1[16];
	unsigned n0;			/* TLB0's valid entries, in tlb0[] */
	struct e500_tlb_entry tlb0[512];
};
extern struct e500_loader_tlb e500_loader_tlb;
void e500_loader_return(int status, unsigned esel, const struct e500_loader_tlb *t)
	__attribute__((noreturn));

/* tlb.c: the boot translation (RAM in up to E500_RAM_ENTRIES TLB1
 * entries, rounded down; one over the CCSR), set at entry; the loader's
 * entries described for the banner. */
struct e500_ram_map {
	unsigned n, as1_first;		/* entries; AS1's are as1_first..15 */
	unsigned tsize[E500_RAM_ENTRIES];
	uint32_t base[E500_RAM_ENTRIES], bytes;
};
extern struct e500_ram_map e500_ram;
void e500_read_loader_tlb(void);
const char *e500_boot_translation(uint64_t ram_bytes, uint64_t ccsr_pa);
void e500_write_ram(int as1);		/* RAM's entries in AS0 (the boot's) or AS1 */
void e500_clear_as1_ram(void);
const char *e500_tlb_text(int line);	/* the banner's two lines */
uint32_t e500_ram_mapped(void);		/* bytes the RAM entries map */
/* The RAM the loader maps 1:1 from 0 around the image, 0 none (what is
 * known to exist when no device tree says). */
uint32_t e500_loader_ram(void);
/* 0, or the loader's CCSR (a 1 MiB I|G TLB1 entry whose 16550 answers). */
uint64_t e500_loader_ccsr(uint32_t *va);

/* start.S calls these. */
void e500_entry(uint32_t r3, uint32_t r4, uint32_t r5, uint32_t r6, uint32_t r7);
void e500_exception(struct e500_frame *f);

/* mmu.c: a TLB miss or storage interrupt a probe expected (1: resume);
 * watchdog.c: the decrementer's interrupt. */
int e500_mmu_fault(struct e500_frame *f);
void e500_dec_interrupt(void);

/* args.c: the boot arguments of the MMU modes. */
struct e500_opts {
	unsigned long pins;		/* pins=: 16M TLB1 entries in mode pinned */
	unsigned lpsize;		/* lpsize=: TSIZE of mode largepte */
};
extern struct e500_opts e500_opt;
void e500_mmu_init(void);		/* mmu.c, from arch_init */

/* user.c, user_mode.S: user mode (include/user.h).  e500_user_ksp: the
 * kernel r1 while user code runs, else 0. */
extern uint32_t e500_user_ksp, e500_user_kmsr;
void e500_user_null_call(void);
int e500_user_syscall(struct e500_frame *f, int *rc);	/* 1: leave with *rc */
int e500_user_fault(struct e500_frame *f);		/* 1: a signal, resume */
void e500_user_return(int rc) __attribute__((noreturn));

/* cpu.c: probe memory (below the loader's stack if it lies in RAM, and
 * clear of what the device tree reserves). */
void e500_set_probe_mem(uint64_t ram_bytes);

/* mpic.c: every source masked while we run (CTPR), the loader's back;
 * watchdog.c: the core watchdog the loader armed, serviced. */
void e500_mpic_mask(void);
void e500_mpic_restore(void);
const char *e500_mpic_text(void);
const char *e500_core_watchdog_text(void);
void e500_core_watchdog_init(void);
void e500_core_watchdog_service(void);

#endif /* __ASSEMBLY__ */
#endif
