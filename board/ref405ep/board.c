/* QEMU's ref405ep: the Walnut's stand-in in CI.  A 405EP, 128 MiB, UART0
 * at 0xEF600300 as on the Walnut, and no isa-debug-exit: a core reset with
 * QEMU's -no-reboot ends the run. */
#include <stdio.h>
#include "arch.h"
#include "board.h"
#include "ns16550.h"
#include "mem.h"
#include "ppc405.h"

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

/* The board's oscillator; the 405EP's PLL registers do the rest
 * (arch/ppc405/clocks.c).  QEMU models the same registers; its bd_t says
 * 133 MHz regardless, while its timebase runs at the PLL's rate. */
#define REF405EP_SYSCLK		33333333u

void board_init(struct boot_info *bi)
{
	const struct ppc4xx_bd *bd = bi->bd;
	static char source[192];
	char pll[128];

	bi->cpu_hz = ppc405_pll_cpu_hz(REF405EP_SYSCLK, pll, sizeof(pll));
	if (bd) {
		bi->ram_bytes = bd->memsize;
		bi->ram_source = "bd_t memsize";
		snprintf(source, sizeof(source), "%s; %s", pll, ppc405_bd_intfreq_text());
	} else {
		bi->ram_bytes = ppc405_sdram_bytes();
		bi->ram_source = "SDRAM controller bank registers";
		snprintf(source, sizeof(source), "%s", pll);
	}
	bi->cpu_hz_source = source;
	ppc405_cache_init(bi->ram_bytes);
	ppc405_set_probe_mem(bi->ram_bytes);
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
