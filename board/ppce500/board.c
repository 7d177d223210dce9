/* QEMU's ppce500: an e500v2 with the MPC8544's CCSR block (a virtual board
 * QEMU invented, "fsl,qemu-e500").  Everything comes from the device tree
 * QEMU makes (arch/e500/fdt.c): RAM (/memory), the clocks (/cpus), the
 * CCSR block's address and in it the ns16550 console, the power-off GPIO
 * and the global utilities' reset register.  No isa-debug-exit: the
 * power-off GPIO (or a reset with -no-reboot) ends QEMU; the runner reads
 * the status line. */
#include <stdio.h>
#include <stdlib.h>
#include "arch.h"
#include "board.h"
#include "e500.h"
#include "mem.h"
#include "ns16550.h"
#include "report.h"

const char board_name[] = "ppce500";
const int board_has_qemu_exit = 1;

#define CCSR(off)	((volatile uint8_t *)(E500_CCSR_VA + (off)))
#define GPIO_GPDIR	0x00	/* MPC8xxx GPIO: direction, 1 = output (pin 0 = bit 31) */
#define GPIO_GPDAT	0x08	/* data */
#define GUTS_RSTCR	0xb0	/* reset control: HRESET_REQ */

static uint8_t uart_read(unsigned reg) { return *CCSR(e500_fdt.uart_off + reg); }
static void uart_write(unsigned reg, uint8_t v) { *CCSR(e500_fdt.uart_off + reg) = v; }
static const struct ns16550 uart = { uart_read, uart_write };

void board_console_init(const struct boot_info *bi)
{
	(void)bi;
	ns16550_init(&uart, 0);		/* U-Boot's divisor, or QEMU's reset one (ignored) */
}

void board_putc(char c)
{
	ns16550_putc(&uart, c);
}

void board_init(struct boot_info *bi)
{
	static char cpu_source[96];

	if (e500_fdt_error) {
		char why[200];
		snprintf(why, sizeof(why), "%s (device tree from %s); the e500 reads RAM, clocks and "
			 "console from it", e500_fdt_error, e500_fdt_source);
		exit(report_abort(why));
	}
	bi->ram_bytes = e500_fdt.ram_bytes;
	bi->ram_source = "the device tree's /memory reg";
	if (bi->ram_bytes > e500_ram_mapped()) {
		report_diag("ram: %llu MiB, of which the boot translation maps the first %lu MiB: "
			    "only those are used", (unsigned long long)bi->ram_bytes >> 20,
			    (unsigned long)e500_ram_mapped() >> 20);
		bi->ram_bytes = e500_ram_mapped();
		bi->ram_source = "the device tree's /memory reg, cut to what the RAM entries map "
				 "(3 at most, each a power of 4 KiB, 1 GiB in all)";
	}
	bi->cpu_hz = e500_fdt.cpu_hz;
	snprintf(cpu_source, sizeof(cpu_source), "the device tree's /cpus clock-frequency%s",
		 e500_fdt.cpu_hz ? "" : ": none");
	bi->cpu_hz_source = cpu_source;
	e500_set_probe_mem(bi->ram_bytes);
}

/* Power-off: the GPIO pin the device tree's gpio-poweroff names, driven
 * high (QEMU shuts down); else a reset request (QEMU -no-reboot exits). */
static void qemu_exit(void)
{
	if (e500_fdt.gpio_off && e500_fdt.poweroff_pin) {
		volatile uint32_t *dir = (volatile uint32_t *)CCSR(e500_fdt.gpio_off + GPIO_GPDIR);
		volatile uint32_t *dat = (volatile uint32_t *)CCSR(e500_fdt.gpio_off + GPIO_GPDAT);
		uint32_t bit = 0x80000000u >> (e500_fdt.poweroff_pin - 1);
		*dir |= bit;
		*dat |= bit;
	}
	if (e500_fdt.guts_off)
		*(volatile uint32_t *)CCSR(e500_fdt.guts_off + GUTS_RSTCR) = 0x2;
}

void board_exit(int how, int status)
{
	(void)status;			/* the runner reads the status line */
	ns16550_drain(&uart);
	if (how == EXIT_QEMU)
		qemu_exit();
	/* After go, a run refused for want of a device tree goes back with
	 * its status whatever exit= said: there is nothing to power off by. */
	if ((how == EXIT_RETURN || e500_fdt_error) && arch_can_return())
		arch_return_to_loader(status);
	arch_halt();
}
