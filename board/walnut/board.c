/* IBM's Walnut: a 405GP evaluation board, booted by U-Boot (or PPCBoot).
 * UART0 at 0xEF600300, left set up by the firmware: we keep its divisor. */
#include <stdio.h>
#include "arch.h"
#include "board.h"
#include "ns16550.h"
#include "mem.h"
#include "ppc405.h"

/* The Walnut's system clock oscillator (SysClk into the 405GP's PLL). */
#define WALNUT_SYSCLK	33333333u

const char board_name[] = "walnut";
const int board_has_qemu_exit = 0;


void board_console_init(const struct boot_info *bi)
{
	(void)bi;
	ns16550_init(&ppc405_uart0, 0);		/* keep U-Boot's baud rate */
}

void board_putc(char c)
{
	ns16550_putc(&ppc405_uart0, c);
}

void board_init(struct boot_info *bi)
{
	const struct ppc4xx_bd *bd = bi->bd;

	static char ram_source[96], clock_source[192];
	char pll[128];

	/* The SDRAM controller is the truth; the bd_t is a cross-check. */
	bi->ram_bytes = ppc405_sdram_bytes();
	bi->ram_source = "SDRAM controller bank registers";
	if (bd && bd->memsize != bi->ram_bytes) {
		snprintf(ram_source, sizeof(ram_source),
			 "SDRAM controller bank registers; the bd_t says %lu MiB",
			 (unsigned long)(bd->memsize >> 20));
		bi->ram_source = ram_source;
	}
	/* The CPU clock from the 405GP's PLL registers and the Walnut's
	 * 33.333 MHz SysClk oscillator: known with no bd_t at all (IBM's
	 * OpenBIOS passes none; U-Boot 1.x's gd may not be found). */
	bi->cpu_hz = ppc405_pll_cpu_hz(WALNUT_SYSCLK, pll, sizeof(pll));
	if (!bi->cpu_hz && bd)
		bi->cpu_hz = bd->intfreq;	/* no PLL decoding for this chip */
	if (bd)
		snprintf(clock_source, sizeof(clock_source), "%s; %s", pll, ppc405_bd_intfreq_text());
	else
		snprintf(clock_source, sizeof(clock_source), "%s; no bd_t from the loader", pll);
	bi->cpu_hz_source = clock_source;
	ppc405_cache_init(bi->ram_bytes);
	ppc405_set_probe_mem(bi->ram_bytes);
}

void board_exit(int how, int status)
{
	ns16550_drain(&ppc405_uart0);
	if (how == EXIT_RETURN && arch_can_return())
		arch_return_to_loader(status);
	arch_halt();
}
