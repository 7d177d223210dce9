/* IBM's Walnut: a 405GP evaluation board, booted by U-Boot (or PPCBoot).
 * UART0 at 0xEF600300, left set up by the firmware: we keep its divisor. */
#include <stdio.h>
#include "arch.h"
#include "board.h"
#include "ns16550.h"
#include "mem.h"
#include "ppc405.h"

extern char __free_ram_start[];

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

	static char ram_source[96];

	/* The SDRAM controller is the truth; the bd_t is a cross-check. */
	bi->ram_bytes = ppc405_sdram_bytes();
	bi->ram_source = "SDRAM controller bank registers";
	if (bd && bd->memsize != bi->ram_bytes) {
		snprintf(ram_source, sizeof(ram_source),
			 "SDRAM controller bank registers; the bd_t says %lu MiB",
			 (unsigned long)(bd->memsize >> 20));
		bi->ram_source = ram_source;
	}
	if (bd) {
		bi->cpu_hz = bd->intfreq;
		bi->cpu_hz_source = "bd_t intfreq";
	} else {
		/* 405GP PLL decoding is not done here: without a bd_t (go from
		 * a U-Boot whose gd was not found) the clock stays unknown. */
		bi->cpu_hz = 0;
		bi->cpu_hz_source = "no bd_t from the loader";
	}
	mem_set_free_ram((uintptr_t)__free_ram_start, bi->ram_bytes);
}

void board_exit(int how, int status)
{
	ns16550_drain(&ppc405_uart0);
	if (how == EXIT_RETURN && arch_can_return())
		arch_return_to_loader(status);
	arch_halt();
}
