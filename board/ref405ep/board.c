/* QEMU's ref405ep: the Walnut's stand-in in CI.  A 405EP, 128 MiB, UART0
 * at 0xEF600300 as on the Walnut, and no isa-debug-exit: a core reset with
 * QEMU's -no-reboot ends the run. */
#include <stdio.h>
#include "arch.h"
#include "board.h"
#include "ns16550.h"
#include "mem.h"
#include "ppc405.h"

extern char __free_ram_start[];

const char board_name[] = "ref405ep";
const int board_has_qemu_exit = 1;

void board_console_init(const struct boot_info *bi)
{
	(void)bi;
	ns16550_init(&ppc405_uart0, 0);		/* QEMU ignores the baud rate */
}

void board_putc(char c)
{
	ns16550_putc(&ppc405_uart0, c);
}

/* The CPU clock the 405EP's clock controller is programmed for: SysClk
 * (the board's 33.333 MHz oscillator) through the PLL (CPC0_PLLMR1: FBMUL
 * feedback multiplier when the PLL is selected and not bypassed) and the
 * CPU divider (CPC0_PLLMR0 CCDV).  QEMU models the same registers; its
 * bd_t says 133 MHz regardless, while its timebase runs at this rate. */
#define REF405EP_SYSCLK		33333333u
#define DCR_CPC0_PLLMR0		0xf0
#define DCR_CPC0_PLLMR1		0xf4

static uint32_t pll_cpu_hz(uint32_t *pllmr0, uint32_t *pllmr1)
{
	uint32_t m0 = mfdcr(DCR_CPC0_PLLMR0), m1 = mfdcr(DCR_CPC0_PLLMR1);
	uint64_t pll = REF405EP_SYSCLK;

	*pllmr0 = m0, *pllmr1 = m1;
	if ((m1 & 0x80000000u) && !(m1 & 0x40000000u))
		pll *= (((m1 >> 20) - 1) & 0xf) + 1;		/* FBMUL, 0 = 16 */
	return pll / (((m0 >> 20) & 3) + 1);			/* CCDV */
}

void board_init(struct boot_info *bi)
{
	const struct ppc4xx_bd *bd = bi->bd;
	static char source[128];
	uint32_t m0, m1;

	bi->cpu_hz = pll_cpu_hz(&m0, &m1);
	if (bd) {
		bi->ram_bytes = bd->memsize;
		bi->ram_source = "bd_t memsize";
		snprintf(source, sizeof(source), "405EP PLL: CPC0_PLLMR0/1 %#lx/%#lx, SysClk "
			 "33.333 MHz; bd_t intfreq %lu", (unsigned long)m0, (unsigned long)m1,
			 (unsigned long)bd->intfreq);
	} else {
		bi->ram_bytes = ppc405_sdram_bytes();
		bi->ram_source = "SDRAM controller bank registers";
		snprintf(source, sizeof(source), "405EP PLL: CPC0_PLLMR0/1 %#lx/%#lx, SysClk 33.333 MHz",
			 (unsigned long)m0, (unsigned long)m1);
	}
	bi->cpu_hz_source = source;
	mem_set_free_ram((uintptr_t)__free_ram_start, bi->ram_bytes);
}

void board_exit(int how, int status)
{
	(void)status;			/* the runner reads the status line */
	ns16550_drain(&ppc405_uart0);
	if (how == EXIT_QEMU) {
		/* DBCR0[RST] = 0b11: reset; QEMU -no-reboot exits on it. */
		mtspr(SPR_DBCR0, 0x30000000);
	}
	if (how == EXIT_RETURN && arch_can_return())
		arch_return_to_loader(status);
	arch_halt();
}
