/* UART0 of the 405GP and 405EP, at the same address on both: the console
 * of every 405 board here. */
#include "ns16550.h"

#define UART0 ((volatile uint8_t *)0xEF600300)

static uint8_t uart0_read(unsigned reg) { return UART0[reg]; }
static void uart0_write(unsigned reg, uint8_t v) { UART0[reg] = v; }

const struct ns16550 ppc405_uart0 = { uart0_read, uart0_write };
