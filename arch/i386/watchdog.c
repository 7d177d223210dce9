/* The watchdog's timer on a PC: the 8254 PIT's channel 0 in mode 0 (one
 * interrupt at terminal count, at most 65535 / 1.193182 MHz = 55 ms, so a
 * longer budget takes several), through the 8259 PICs on IRQ 0 at vector
 * 32.  The PICs get U-Boot's layout (IRQ 0-7 at 32, 8-15 at 40: SeaBIOS
 * leaves IRQ 0 on vector 8, the double fault's); only IRQ 0 is unmasked
 * while armed, and the masks the loader had come back on disarm. */
#include "arch.h"
#include "boot_info.h"
#include "i386.h"

#define PIC1		0x20
#define PIC2		0xa0
#define PIT_CH0		0x40
#define PIT_CMD		0x43
#define PIT_HZ		1193182u

static int pic_ready;
static uint8_t mask1, mask2;		/* the loader's */

static void pic_init(void)
{
	mask1 = inb(PIC1 + 1), mask2 = inb(PIC2 + 1);
	outb(PIC1, 0x11), outb(PIC2, 0x11);		/* ICW1: edge, cascade, ICW4 */
	outb(PIC1 + 1, 32), outb(PIC2 + 1, 40);		/* ICW2: vector bases */
	outb(PIC1 + 1, 4), outb(PIC2 + 1, 2);		/* ICW3: slave on IRQ 2 */
	outb(PIC1 + 1, 1), outb(PIC2 + 1, 1);		/* ICW4: 8086 mode */
	outb(PIC1 + 1, 0xff), outb(PIC2 + 1, 0xff);	/* all masked */
	pic_ready = 1;
}

/* Terminal count after `ticks` TSC ticks, as PIT counts (1..65535). */
static void pit_load(uint64_t ticks)
{
	uint64_t c = boot_info.tick_hz ? ticks * PIT_HZ / boot_info.tick_hz : 0xffff;
	uint16_t n = c > 0xffff ? 0xffff : c ? (uint16_t)c : 1;

	outb(PIT_CMD, 0x30);				/* channel 0, lo/hi, mode 0 */
	outb(PIT_CH0, n & 0xff);
	outb(PIT_CH0, n >> 8);
}

void arch_watchdog_arm(uint64_t ticks)
{
	__asm__ volatile("cli" ::: "memory");
	if (!pic_ready)
		pic_init();
	pit_load(ticks);
	outb(PIC1 + 1, 0xfe);				/* IRQ 0 only */
	__asm__ volatile("sti" ::: "memory");
}

void arch_watchdog_disarm(void)
{
	__asm__ volatile("cli" ::: "memory");
	if (pic_ready)
		outb(PIC1 + 1, mask1), outb(PIC2 + 1, mask2);
}

void i386_irq(unsigned irq)
{
	if (irq == 7 || irq == 15) {			/* spurious? no EOI of its own */
		outb(irq == 7 ? PIC1 : PIC2, 0x0b);	/* OCW3: read the ISR */
		if (!(inb(irq == 7 ? PIC1 : PIC2) & 0x80)) {
			if (irq == 15)
				outb(PIC1, 0x20);	/* the master did see IRQ 2 */
			return;
		}
	}
	if (irq >= 8)
		outb(PIC2, 0x20);
	outb(PIC1, 0x20);				/* EOI */
	if (irq == 0)
		pit_load(run_watchdog_tick());		/* does not return past the deadline */
}
