/* From the registers the loader left to boot_info: which entry path, the
 * device tree, the command line or argv; then the boot translation, before
 * anything touches the console (the CCSR block is mapped by it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch.h"
#include "boot_info.h"
#include "e500.h"
#include "report.h"

#define EPAPR_MAGIC	0x45504150u	/* "EPAP": r6 of an ePAPR entry (r3 = device tree) */
#define MAX_GO_ARGC	64		/* an argc is small; a pointer is not */

const char *e500_fdt_source;
const char *e500_fdt_error;		/* why there is no device tree (board_init reports it) */
static char cmdline[1024];
static int entered_by_go;

_Static_assert(sizeof(struct e500_loader_regs) == LOADER_REGS_BYTES, "start.S LR_BYTES");

/* The loader's interrupt vectors and PID, before arch_init sets ours. */
static void keep_loader_vectors(void)
{
	struct e500_loader_regs *l = &loader_regs;
#define KEEP(i) l->ivor[i] = mfspr(SPR_IVOR0 + i)
	KEEP(0); KEEP(1); KEEP(2); KEEP(3); KEEP(4); KEEP(5); KEEP(6); KEEP(7);
	KEEP(8); KEEP(9); KEEP(10); KEEP(11); KEEP(12); KEEP(13); KEEP(14); KEEP(15);
#undef KEEP
	l->ivor32[0] = mfspr(SPR_IVOR32), l->ivor32[1] = mfspr(SPR_IVOR32 + 1);
	l->ivor32[2] = mfspr(SPR_IVOR32 + 2), l->ivor32[3] = mfspr(SPR_IVOR32 + 3);
	l->pid = mfspr(SPR_PID);
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
}

/* Only after go: bootm's and QEMU's entries have no caller to go back to. */
int arch_can_return(void)
{
	return entered_by_go;
}

/* Back to U-Boot's go: its vectors, PID and timer, then its TLB1 and
 * registers (return.S), stepping over on a TLB1 entry it left invalid
 * that maps RAM in address space 1 (ESEL_AS1's, or a copy of it). */
void arch_return_to_loader(int status)
{
	unsigned f = ESEL_AS1;

	mtmsr(mfmsr() & ~(MSR_EE | MSR_CE | MSR_DE));
	while (f > ESEL_PINS && (e500_loader_tlb1[f].mas1 & MAS1_V))
		f--;		/* the highest entry the loader left invalid */
	if (e500_loader_tlb1[f].mas1 & MAS1_V) {
		report_diag("exit=return: the loader left no TLB1 entry free to step over on: halting");
		arch_halt();
	}
	if (f != ESEL_AS1)	/* our AS1 RAM entry, copied where the loader has none */
		e500_tlbwe(MAS0_TLBSEL1 | MAS0_ESEL(f), MAS1_V | MAS1_TS | MAS1_TSIZE(e500_ram_tsize), 0,
			   MAS3_SX | MAS3_SW | MAS3_SR, 0);
	give_back_vectors();
	mtspr(SPR_TSR, TSR_WIS | TSR_DIS | TSR_FIS);
	mtspr(SPR_TCR, loader_regs.tcr);
	if (loader_regs.tcr & TCR_DIE)
		mtspr(SPR_DEC, 1);	/* its tick handler reloads it at once */
	e500_loader_return(status, f, e500_loader_tlb1);
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
	e500_fdt_error = fdt ? e500_fdt_read(fdt, &e500_fdt) : "no device tree was passed";
	if (!e500_fdt_error && (!e500_fdt.ram_bytes || !e500_fdt.ccsr_pa || !e500_fdt.uart_off))
		e500_fdt_error = "the device tree gives no /memory reg, /soc ranges or ns16550";
	if (e500_fdt_error) {
		/* Nothing to map RAM and console by: the board prints the error
		 * through QEMU ppce500's fixed CCSR (e500_ccsr_fallback). */
		e500_fdt.ram_bytes = 64u << 20;		/* only for the error path's map */
		e500_fdt.ccsr_pa = E500_CCSR_FALLBACK_PA;
		e500_fdt.uart_off = E500_UART_FALLBACK_OFF;
	}
	if (bi->entry != ENTRY_UBOOT_GO) {
		const char *a = e500_fdt.bootargs ? e500_fdt.bootargs : "";
		strncpy(cmdline, a, sizeof(cmdline) - 1);	/* boot_main reports overlong lines */
		bi->cmdline = cmdline;
	}
	e500_boot_translation(e500_fdt.ram_bytes, e500_fdt.ccsr_pa);
	boot_main();
}
