/* A 16550 UART, the console on every board here.  The board supplies the
 * register accessors (memory-mapped on the 405, port I/O on the PC). */
#ifndef NS16550_H
#define NS16550_H
#include <stdint.h>

struct ns16550 {
	uint8_t (*read)(unsigned reg);
	void (*write)(unsigned reg, uint8_t value);
};

/* divisor 0 keeps what the firmware (U-Boot) programmed. */
void ns16550_init(const struct ns16550 *uart, uint16_t divisor);
void ns16550_putc(const struct ns16550 *uart, char c);
/* Wait until everything written has left the shift register. */
void ns16550_drain(const struct ns16550 *uart);

/* The 405's on-chip UART0 (arch/ppc405/uart0.c). */
extern const struct ns16550 ppc405_uart0;

#endif
