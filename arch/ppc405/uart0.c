/* UART0 of the 405GP and 405EP, a 16550 among the chip's on-chip
 * peripherals at the same address on both: the console of every 405 board
 * here (board/common/ns16550.c drives it). */
#include "ns16550.h"
#include "ppc405.h"

#define UART0 ((volatile uint8_t *)PPC405_UART0)

static uint8_t uart0_read(unsigned reg) { return UART0[reg]; }
static void uart0_write(unsigned reg, uint8_t v) { UART0[reg] = v; }

const struct ns16550 ppc405_uart0 = { uart0_read, uart0_write };
