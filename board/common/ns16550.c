/* 16550 UART: polled output only. */
#include "ns16550.h"

enum { RBR_THR = 0, IER = 1, FCR = 2, LCR = 3, MCR = 4, LSR = 5, DLL = 0, DLM = 1 };
#define LCR_8N1		0x03
#define LCR_DLAB	0x80
#define LSR_THRE	0x20
#define LSR_TEMT	0x40

void ns16550_init(const struct ns16550 *u, uint16_t divisor)
{
	/* Let the loader's last line leave first: resetting the FIFOs (and
	 * a new divisor) would drop or garble what it still holds. */
	ns16550_drain(u);
	u->write(IER, 0);			/* polled: no interrupts */
	if (divisor) {
		u->write(LCR, LCR_DLAB);
		u->write(DLL, divisor & 0xff);
		u->write(DLM, divisor >> 8);
	}
	u->write(LCR, LCR_8N1);
	u->write(FCR, 0x07);			/* FIFOs on and cleared */
	u->write(MCR, 0x03);			/* DTR, RTS */
}

void ns16550_putc(const struct ns16550 *u, char c)
{
	/* Bounded wait: a dead UART must not hang the run forever. */
	for (unsigned spins = 0; !(u->read(LSR) & LSR_THRE) && spins < 1000000; spins++)
		;
	u->write(RBR_THR, c);
}

void ns16550_drain(const struct ns16550 *u)
{
	/* TEMT: FIFO and shift register empty.  Bounded, for a dead UART:
	 * 10^6 reads are about 1 s, and 16 bytes take 17 ms even at 9600 baud. */
	for (unsigned spins = 0; !(u->read(LSR) & LSR_TEMT) && spins < 1000000; spins++)
		;
}
