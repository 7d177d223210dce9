/* PowerPC 405 registers and helpers shared inside arch/ppc405 and by the
 * 405 boards. */
#ifndef PPC405_H
#define PPC405_H

/* UART0 of the 405GP/405EP's on-chip peripherals: the console on the
 * Walnut and on QEMU's ref405ep.  The MMU modes map its page I|G. */
#define PPC405_UART0	0xEF600300

/* The MMU state block just below the page directory (vectors.S): the
 * struct mmu_counters (mmu.h) and the victim policy's words.  Offsets are
 * from the directory, which SPRG3 holds. */
#define MMU_STATE_BYTES	56
#define MMU_ITLB_OFF	(-56)	/* mmu_count.itlb_misses */
#define MMU_DTLB_OFF	(-52)	/* mmu_count.dtlb_misses */
#define MMU_WRITES_OFF	(-40)	/* mmu_count.tlb_writes */
#define MMU_KITLB_OFF	(-32)	/* mmu_count.kernel_itlb_misses */
#define MMU_KDTLB_OFF	(-28)	/* mmu_count.kernel_dtlb_misses */
#define MMU_RRTOP_OFF	(-24)	/* top unpinned slot: where round robin restarts */
#define MMU_RAND_OFF	(-20)	/* xorshift32 state of tlbrepl=random */
#define MMU_NSLOTS_OFF	(-16)	/* unpinned slots */
#define MMU_PID_OFF	(-12)	/* the current space's PID (tagged handler) */

/* struct ppc405_frame (below), for vectors.S; exceptions.c asserts them.
 * F_GPR .. F_SRR1: arch/powerpc/frame.h. */
#include "../powerpc/frame.h"
#define F_SRR2	152
#define F_SRR3	156
#define F_DEAR	160
#define F_ESR	164
#define F_VEC	168
#define F_SIZE	176		/* 16-byte multiple */

/* A directory word: a 4K table's address, or a large-page leaf (TLBLO
 * format, odd zone field).  DIR_PRIVATE (a bit the handler's index insert
 * clears again) marks a space's window table: the
 * tagged miss handler keeps the space's PID as the entry's TID there and
 * writes TID 0 (shared) everywhere else. */
#define DIR_PRIVATE	0x8u

/* The EVPR area's bytes that hold code: the vectors (to 0x2100) and the
 * TLB miss handlers' victim wraps (0x2100..0x2500); the linker script
 * reserves as much. */
#define PPC405_EVPR_BYTES	0x2500

/* ZPR: zone 1 (the user zone, MMU_USER pages) field 01: both states under
 * the entry's EX/WR; every other zone 00: problem state no access,
 * supervisor under EX/WR.  The zone field of a PTE (vectors.S). */
#define PPC405_ZPR		0x10000000u
#define ZONE_USER		0x10u
/* The user window's top byte (MMU_SPACE_BASE >> 24; its 16 MiB are four
 * directory slots), for vectors.S's test; mmu.c asserts it. */
#define PPC405_WINDOW_TOP8	0xc0

/* struct proc_job's offsets and the call numbers, for the user routine
 * (arch/powerpc/user_code.S); user.c asserts them. */
#include "../powerpc/user_job.h"

/* TLBHI / TLBLO fields */
#define TLBHI_V		0x40u
#define TLBLO_EX	0x200u
#define TLBLO_WR	0x100u
#define TLBLO_W		0x008u
#define TLBLO_I		0x004u
#define TLBLO_M		0x002u
#define TLBLO_G		0x001u
#define TLB_SLOTS	64

#define SPR_SRR0	26
#define SPR_SRR1	27
#define SPR_PVR		287
#define SPR_ZPR		944
#define SPR_PID		945
#define SPR_TSR		984
#define SPR_TCR		986
#define SPR_ESR		980
#define SPR_DEAR	981
#define SPR_EVPR	982
#define SPR_SRR2	990
#define SPR_SRR3	991
#define SPR_DBCR0	1010
#define SPR_PIT		987
#define SPR_SGR		953	/* storage guarded, 1 bit per 128 MB region */
#define SPR_DCWR	954	/* data cache write-through, per region */
#define SPR_DCCR	1018	/* data cacheable, per region */
#define SPR_ICCR	1019	/* instruction cacheable, per region */
#define SPR_CCR0	947	/* core configuration: LWOA/SWOA (allocation) */

#define CCR0_LWOA	0x01000000	/* load without allocate */
#define CCR0_SWOA	0x00800000	/* store without allocate */

#define TCR_WIE		0x08000000	/* watchdog interrupt enable */
#define TCR_PIE		0x04000000	/* PIT interrupt enable */
#define TCR_FIE		0x00800000	/* FIT interrupt enable */

#define ESR_DST		0x00800000	/* data storage, DTLB miss: a store */
#define ESR_DIZ		0x00400000	/* data storage: zone fault */
#define ESR_PIL		0x08000000	/* program: illegal instruction */

#define MSR_WE	0x00040000
#define MSR_CE	0x00020000
#define MSR_EE	0x00008000
#define MSR_PR	0x00004000
#define MSR_ME	0x00001000
#define MSR_DE	0x00000200
#define MSR_IR	0x00000020
#define MSR_DR	0x00000010

#ifndef __ASSEMBLY__
#include <stdint.h>

#include "../powerpc/reg.h"

/* A host test (selftest/test_ppc405_clocks.py) defines its own mfspr and
 * mfdcr to run clocks.c's decoding with a 405GP's registers. */
#ifndef mfdcr
#define mfdcr(n) ({ uint32_t v_; __asm__ volatile("mfdcr %0, %1" : "=r"(v_) : "i"(n)); v_; })
#define mtdcr(n, v) __asm__ volatile("mtdcr %0, %1" : : "i"(n), "r"((uint32_t)(v)) : "memory")
#endif

/* The U-Boot bd_t fields a 4xx U-Boot (1.x to 2017) and QEMU's ref405ep
 * both place at these offsets. */
struct ppc4xx_bd {
	uint32_t memstart, memsize;		/* 0, 4 */
	uint32_t flashstart, flashsize, flashoffset;
	uint32_t sramstart, sramsize, bootflags, ipaddr;
	uint8_t enetaddr[6];
	uint16_t ethspeed;
	uint32_t intfreq, busfreq, baudrate;	/* 44, 48, 52 */
};

/* Size of the SDRAM the 405's own controller has enabled (0 if none). */
uint64_t ppc405_sdram_bytes(void);

void ppc405_return_to_loader(int status) __attribute__((noreturn));

/* start.S: what the loader left, in this order (LR_* offsets there). */
struct ppc405_loader_regs {
	uint32_t r1, r2, lr, msr, evpr;
	uint32_t r13_31[19];		/* r29 = r13_31[16]: U-Boot 1.x's gd */
	uint32_t tcr, dccr, iccr, dcwr, sgr, ccr0;
};
extern struct ppc405_loader_regs loader_regs;

/* The bd_t the loader passed (copied; intfreq/busfreq in Hz even when the
 * loader gave MHz), and how to describe its intfreq in a banner. */
const struct ppc4xx_bd *ppc405_take_bd(const struct ppc4xx_bd *b);
const char *ppc405_bd_intfreq_text(void);

/* cache.c: DCCR/ICCR over RAM, write-back, the rest guarded (Linux 40x
 * MMU_init_hw); the return path (start.S) gives the loader's back. */
void ppc405_cache_init(uint64_t ram_bytes);
void ppc405_dcache_flush_all(uint32_t bytes);
extern uint32_t ppc405_dcache_flush_bytes;
const char *ppc405_cache_text(void);
const char *ppc405_ccr0_text(void);	/* CCR0 as read and set (LWOA/SWOA off) */

/* clocks.c: the CPU clock from the PLL registers, by PVR (405GP, 405EP),
 * given the board's SysClk; 0 when this chip's PLL is not decoded.  `src`
 * gets the registers read. */
uint32_t ppc405_pll_cpu_hz(uint32_t sysclk_hz, char *src, unsigned src_size);
/* clocks.c: the timebase's clock: 1 TmrClk (405GP CPC0_CR1[CETE] set),
 * 0 the CPU clock as read, -1 not read (405EP); `text` says which. */
int ppc405_tb_clock(char *text, unsigned n);
const char *ppc405_tb_text(void);	/* timebase.c: that text, for the banner */

/* cpu.c: probe memory from the end of the image to the end of RAM, or to
 * below the loader's stack when that lies in RAM (U-Boot's relocated copy
 * is above it); the banner says which. */
void ppc405_set_probe_mem(uint64_t ram_bytes);

/* The state exceptions.c saves (vectors.S F_* offsets). */
struct ppc405_frame {
	uint32_t gpr[32];
	uint32_t cr, lr, ctr, xer;
	uint32_t srr0, srr1, srr2, srr3;
	uint32_t dear, esr, vector, pad;
};

static inline void tlbwe_hi(unsigned i, uint32_t v)
{
	__asm__ volatile("tlbwe %0, %1, 0" : : "r"(v), "r"(i) : "memory");
}
static inline void tlbwe_lo(unsigned i, uint32_t v)
{
	__asm__ volatile("tlbwe %0, %1, 1" : : "r"(v), "r"(i) : "memory");
}
/* tlbre of the HI word also loads PID with the entry's TID: callers put
 * PID back (ppc405_pid_restore). */
static inline uint32_t tlbre_hi(unsigned i)
{
	uint32_t v;
	__asm__ volatile("tlbre %0, %1, 0" : "=r"(v) : "r"(i));
	return v;
}
static inline uint32_t tlbre_lo(unsigned i)
{
	uint32_t v;
	__asm__ volatile("tlbre %0, %1, 1" : "=r"(v) : "r"(i));
	return v;
}

/* args.c: the boot arguments of the MMU modes. */
struct ppc405_opts {
	unsigned long pins;		/* pins=: 16M entries pinned in mode pinned */
	unsigned lpsize;		/* lpsize=: SIZE code of mode largepte */
	int random;			/* tlbrepl=random */
	int tlbdump;			/* tlbdump=1 */
};
extern struct ppc405_opts ppc405_opt;

/* mmu.c, for exceptions.c: a miss or storage fault in a translated mode.
 * Returns 1 when handled (retry the access), 0 when nobody expected it. */
int ppc405_mmu_fault(struct ppc405_frame *f);
void ppc405_mmu_init(void);
const char *ppc405_tlbrepl_name(void);
void ppc405_pid_restore(void);
unsigned ppc405_pinned_slots(void);
uint32_t *ppc405_pte(uint32_t va);		/* 0: none, or a large-page leaf */
extern uint32_t ppc405_pgd[1024];

/* start.S calls these: the entry with the loader's r3..r7, and the
 * common exception path with the frame it built. */
void ppc405_entry(uint32_t r3, uint32_t r4, uint32_t r5, uint32_t r6, uint32_t r7);
void ppc405_exception(struct ppc405_frame *f);

/* watchdog.c, for exceptions.c: the PIT's interrupt.  At entry the
 * loader's tick is measured and stopped, on exit=return given back. */
void ppc405_pit_interrupt(void);
void ppc405_pit_take(void);
extern uint32_t ppc405_loader_pit;	/* its period, for start.S; 0 none */
const char *ppc405_pit_text(void);

/* uic.c: UIC0's enables saved and cleared at entry, back on exit=return. */
void ppc405_uic_mask(void);
void ppc405_uic_restore(void);
const char *ppc405_uic_text(void);

/* selfcheck.c: struct mmu_ops' check_word (include/mmu_arch.h). */
void ppc405_check_word(uintptr_t va, uintptr_t pa, uint32_t p1, uint32_t p2, uint32_t got[2],
		       int read_only);

/* tlbdump.c: the 64 entries decoded, and what maps va (for dumps). */
void ppc405_tlbdump(const char *why);
void ppc405_explain(uintptr_t va);

/* user.c/user_mode.S, for exceptions.c: the null call's hook (translation as
 * the kernel has it), and the way out of user mode: user_enter returns rc. */
void ppc405_user_null_call(void);
int ppc405_user_syscall(struct ppc405_frame *f, int *rc);	/* 1: leave with *rc */
int ppc405_user_fault(struct ppc405_frame *f);			/* 1: a signal, resume */
void ppc405_user_return(int rc) __attribute__((noreturn));

/* exceptions.c: the plain or the PID-tagged TLB miss handlers at EVPR. */
void ppc405_install_miss_handlers(int tagged);

#endif /* __ASSEMBLY__ */

#endif
