/* From the registers the loader left to boot_info: which entry path, the
 * device tree, the command line or argv; then the boot translation, before
 * anything touches the console (the CCSR block is mapped by it). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch.h"
#include "boot_info.h"
#include "e500.h"
#include "pagetable.h"
#include "report.h"

#define EPAPR_MAGIC	0x45504150u	/* "EPAP": r6 of an ePAPR entry (r3 = device tree) */
#define MAX_GO_ARGC	64		/* an argc is small; a pointer is not */

const char *e500_fdt_source;
const char *e500_fdt_error;		/* why there is no device tree (board_init reports it) */
static char cmdline[1024];
static int entered_by_go;

_Static_assert(sizeof(struct e500_loader_regs) == LOADER_REGS_BYTES, "start.S LR_BYTES");

_Static_assert(sizeof(struct e500_tlb_entry) == 20, "return.S REC");
_Static_assert(offsetof(struct e500_loader_tlb, n0) == 16 * 20, "return.S T_N0");
_Static_assert(offsetof(struct e500_loader_tlb, tlb0) == 16 * 20 + 4, "return.S T_TLB0");

/* The loader's interrupt vectors and PIDs, before arch_init sets ours. */
static void keep_loader_vectors(void)
{
	struct e500_loader_regs *l = &loader_regs;
#define KEEP(i) l->ivor[i] = mfspr(SPR_IVOR0 + i)
	KEEP(0); KEEP(1); KEEP(2); KEEP(3); KEEP(4); KEEP(5); KEEP(6); KEEP(7);
	KEEP(8); KEEP(9); KEEP(10); KEEP(11); KEEP(12); KEEP(13); KEEP(14); KEEP(15);
#undef KEEP
	l->ivor32[0] = mfspr(SPR_IVOR32), l->ivor32[1] = mfspr(SPR_IVOR32 + 1);
	l->ivor32[2] = mfspr(SPR_IVOR32 + 2), l->ivor32[3] = mfspr(SPR_IVOR32 + 3);
	l->pid = mfspr(SPR_PID), l->pid1 = mfspr(SPR_PID1), l->pid2 = mfspr(SPR_PID2);
}

static void give_back_vectors(void)
{
	const struct e500_loader_regs *l = &loader_regs;
#define GIVE(i) mtspr(SPR_IVOR0 + i, l->ivor[i])
	GIVE(0); GIVE(1); GIVE(2); GIVE(3); GIVE(4); GIVE(5); GIVE(6); GIVE(7);
	GIVE(8); GIVE(9); GIVE(10); GIVE(11); GIVE(12); GIVE(13); GIVE(14); GIVE(15);
#undef GIVE
	mtspr(SPR_IVOR32, l->ivor32[0]);
	mtspr(SPR_IVOR32 + 1, l->ivor32[1]);
	mtspr(SPR_IVOR32 + 2, l->ivor32[2]);
	mtspr(SPR_IVOR32 + 3, l->ivor32[3]);
	mtspr(SPR_IVPR, l->ivpr);
	mtspr(SPR_PID, l->pid);
	mtspr(SPR_PID1, l->pid1);
	mtspr(SPR_PID2, l->pid2);
}

/* Only after go: bootm's and QEMU's entries have no caller to go back to. */
int arch_can_return(void)
{
	return entered_by_go;
}

/* Back to U-Boot's go: its MPIC priority, vectors, PIDs and timer, then
 * its TLB1, TLB0 and registers (return.S), stepping over on the highest
 * TLB1 entry it left invalid, which maps our first RAM entry (the image)
 * in address space 1. */
void arch_return_to_loader(int status)
{
	const struct e500_loader_tlb *t = &e500_loader_tlb;
	uint32_t ram0 = tsize_bytes(e500_ram.tsize[0]);
	unsigned f = 15;

	mtmsr(mfmsr() & ~(MSR_EE | MSR_CE | MSR_DE));
	while (f > ESEL_PINS && (t->tlb1[f].mas1 & MAS1_V))
		f--;
	if (t->tlb1[f].mas1 & MAS1_V) {
		report_diag("exit=return: the loader left no TLB1 entry free to step over on: halting");
		arch_halt();
	}
	for (unsigned i = 0; i < 16; i++)	/* none of its own AS1 entries may hit ours */
		if ((t->tlb1[i].mas1 & (MAS1_V | MAS1_TS)) == (MAS1_V | MAS1_TS) &&
		    (t->tlb1[i].mas2 & 0xfffff000u) < ram0) {
			report_diag("exit=return: the loader's TLB1[%u] maps RAM in address space 1, "
				    "where we step over: halting", i);
			arch_halt();
		}
	e500_mpic_restore();
	/* Ours go before the stepping stone comes: two valid entries for one
	 * address give an undefined translation (E500CORERM 12.3.3). */
	e500_clear_as1_ram();
	e500_tlbwe(MAS0_TLBSEL1 | MAS0_ESEL(f), MAS1_V | MAS1_TS | MAS1_TSIZE(e500_ram.tsize[0]), 0,
		   MAS3_SX | MAS3_SW | MAS3_SR, 0);
	give_back_vectors();
	mtspr(SPR_TSR, TSR_ENW | TSR_WIS | TSR_DIS | TSR_FIS);
	mtspr(SPR_TCR, loader_regs.tcr);
	if (loader_regs.tcr & TCR_DIE)
		mtspr(SPR_DEC, 1);	/* its tick handler reloads it at once */
	e500_loader_return(status, f, t);
}

/* go's argv: fdt=<address> gives the device tree (U-Boot's go passes none:
 * the boot script adds fdt=${fdtcontroladdr}).  Hex, as U-Boot prints its
 * variables (7a8de80) or with 0x; anything else gives no address. */
static const void *fdt_from_argv(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *end;
		if (strncmp(argv[i], "fdt=", 4))
			continue;
		unsigned long a = strtoul(argv[i] + 4, &end, 16);
		return *end || end == argv[i] + 4 ? 0 : (const void *)a;
	}
	return 0;
}

/* Without what the board needs from the device tree, say so and stop:
 * only through the loader's own console, RAM and CCSR mapping (never an
 * address a board might not have); with none of them, silently. */
static void refusal_console(void)
{
	uint32_t va;
	uint64_t pa = e500_fdt.ccsr_pa && e500_fdt.uart_off ? e500_fdt.ccsr_pa : 0;

	if (!pa) {
		pa = e500_loader_ccsr(&va);
		e500_fdt.uart_off = E500_UART0_OFF;
	}
	e500_fdt.ram_bytes = e500_loader_ram();
	if (!pa || !e500_fdt.ram_bytes)
		arch_halt();
	e500_fdt.ccsr_pa = pa;
	e500_fdt.gpio_off = e500_fdt.guts_off = e500_fdt.mpic_off = 0;	/* nothing else touched */
}

void e500_entry(uint32_t r3, uint32_t r4, uint32_t r5, uint32_t r6, uint32_t r7)
{
	struct boot_info *bi = &boot_info;
	const void *fdt = 0;

	(void)r5;
	bi->entry_ticks = arch_ticks();
	keep_loader_vectors();
	if (r6 == EPAPR_MAGIC) {
		bi->entry = ENTRY_UBOOT_BOOTM;
		bi->entry_name = "ePAPR: r3 = device tree, r6 = ePAPR magic (QEMU's own boot, "
				 "or U-Boot bootm with a device tree)";
		fdt = (const void *)r3;
		e500_fdt_source = "r3 (ePAPR entry)";
		(void)r7;	/* the initial mapping's size: we make our own */
	} else if (r3 <= MAX_GO_ARGC) {
		bi->entry = ENTRY_UBOOT_GO;
		entered_by_go = 1;
		bi->entry_name = "U-Boot go (r3 = argc, r4 = argv)";
		bi->argc = r3;
		bi->argv = (char **)r4;
		fdt = fdt_from_argv(bi->argc, bi->argv);
		e500_fdt_source = "the boot argument fdt= (U-Boot go)";
	} else {
		bi->entry = ENTRY_UBOOT_BOOTM;
		bi->entry_name = "bd_t in r3, command line in r6/r7 (U-Boot bootm without a device tree)";
		e500_fdt_source = "none: bootm was given no device tree (bootm <image> - <fdt>)";
	}
	e500_read_loader_tlb();
	e500_fdt_error = fdt ? e500_fdt_read(fdt, &e500_fdt) : "no device tree was passed";
	if (!e500_fdt_error && !e500_fdt.ram_bytes)
		e500_fdt_error = "the device tree gives no /memory reg (U-Boot's own tree, before "
				 "bootm's fix-ups? boot with bootm <image> - <fdt>)";
	else if (!e500_fdt_error && (!e500_fdt.ccsr_pa || !e500_fdt.uart_off))
		e500_fdt_error = "the device tree gives no /soc ranges or ns16550";
	if (e500_fdt_error)
		refusal_console();
	if (bi->entry != ENTRY_UBOOT_GO) {
		const char *a = e500_fdt.bootargs ? e500_fdt.bootargs : "";
		strncpy(cmdline, a, sizeof(cmdline) - 1);	/* boot_main reports overlong lines */
		bi->cmdline = cmdline;
	}
	/* Where no translation of ours can be made, no console can be had
	 * either: stop (the loader's state as it was). */
	if (e500_boot_translation(e500_fdt.ram_bytes, e500_fdt.ccsr_pa))
		arch_halt();
	boot_main();
}
