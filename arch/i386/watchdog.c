/* The watchdog's timer on a PC: the 8254 PIT's channel 0 in mode 0 (one
 * interrupt at terminal count, at most 65535 / 1.193182 MHz = 55 ms, so a
 * longer budget takes several), through the 8259 PICs on IRQ 0 at vector
 * 32.  The PICs get U-Boot's layout (IRQ 0-7 at 32, 8-15 at 40, as its
 * i8259 set-up has them: what 'go' hands back is what it had; SeaBIOS
 * leaves IRQ 0 on vector 8, the double fault's); only IRQ 0 is unmasked
 * while armed.  The loader's masks and the PIT's modes (read back with the
 * 8254's read-back command) are kept at entry and given back on
 * exit=return; a periodic channel gets the count it was seen reloading.
 * A channel whose status shows no access mode (00: never programmed since
 * reset) cannot be written back to that state and keeps ours. */
#include <stdio.h>
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
static struct {
	uint8_t status;
	uint32_t count;		/* the reload seen; 0: none */
	uint32_t slack;		/* the true one is at most this much higher */
} loader_ch[3];			/* channels 0, 2 */
static char text[240];

static void pic_init(void)
{
	outb(PIC1, 0x11), outb(PIC2, 0x11);		/* ICW1: edge, cascade, ICW4 */
	outb(PIC1 + 1, 32), outb(PIC2 + 1, 40);		/* ICW2: vector bases */
	outb(PIC1 + 1, 4), outb(PIC2 + 1, 2);		/* ICW3: slave on IRQ 2 */
	outb(PIC1 + 1, 1), outb(PIC2 + 1, 1);		/* ICW4: 8086 mode */
	outb(PIC1 + 1, 0xff), outb(PIC2 + 1, 0xff);	/* all masked */
	pic_ready = 1;
}

/* The 8254 read-back command, status only: OUTPUT, NULL COUNT, access
 * (bits 5-4), mode (3-1), BCD (0). */
static uint8_t pit_status(unsigned ch)
{
	outb(PIT_CMD, 0xe0 | 2u << ch);
	return inb(PIT_CH0 + ch);
}

static uint16_t pit_count(unsigned ch)
{
	outb(PIT_CMD, ch << 6);				/* counter latch */
	uint8_t lo = inb(PIT_CH0 + ch);
	return lo | inb(PIT_CH0 + ch) << 8;
}

/* A periodic channel (mode 2 or 3, lo/hi access) reloads its count N:
 * seen as the highest count read after a reload (mode 2 counts N..1, mode
 * 3 by twos from N; a 0 seen means N = 65536, written as 0), over up to
 * WRAPS reloads (at least 2; more while the first two are under 2^27 TSC
 * ticks apart, for a read nearer each reload).  The first read after a
 * reload comes up to one read's time after it, so N is at most the
 * largest drop between two reads (*slack) above what was seen: under TCG
 * a read is three trapped port accesses, tens of counts.  0 when not
 * periodic, or not counting (a gate off: 1000 equal reads), or no two
 * reloads within 2^31 TSC ticks. */
#define WRAPS	8
static uint32_t pit_reload_seen(unsigned ch, uint8_t st, uint32_t *slack)
{
	unsigned mode = (st >> 1) & 3, wraps = 0, same = 0;	/* 6, 7 alias 2, 3 */
	uint16_t prev, max = 0, drop = 0;
	int zero = 0;
	uint64_t t0 = rdtsc(), t2 = 0;

	*slack = 0;
	if ((mode != 2 && mode != 3) || ((st >> 4) & 3) != 3 || (st & 1))
		return 0;
	prev = pit_count(ch);
	while (same < 1000 && rdtsc() - t0 < (1ull << 31) &&
	       (wraps < 2 || (wraps < WRAPS && rdtsc() - t2 < (1ull << 27)))) {
		uint16_t c = pit_count(ch);
		same = c == prev ? same + 1 : 0;
		if (c > prev && ++wraps == 2)
			t2 = rdtsc();
		if (wraps) {
			zero |= c == 0;
			max = c > max ? c : max;
		}
		if (c < prev && prev - c > drop)
			drop = prev - c;	/* within a count-down: one read's time */
		prev = c;
	}
	if (wraps < 2)
		return 0;
	*slack = zero ? 0 : drop;
	return zero ? 65536 : mode == 3 ? (max + 1u) & ~1u : max;
}

/* At entry, interrupts off: what the loader left. */
void i386_timers_save(void)
{
	mask1 = inb(PIC1 + 1), mask2 = inb(PIC2 + 1);
	for (unsigned ch = 0; ch <= 2; ch += 2) {
		loader_ch[ch].status = pit_status(ch);
		loader_ch[ch].count = pit_reload_seen(ch, loader_ch[ch].status, &loader_ch[ch].slack);
	}
	snprintf(text, sizeof(text), "pic/pit: the loader's 8259 masks 0x%02x/0x%02x; 8254 ch0 status "
		 "0x%02x reload %lu, ch2 status 0x%02x reload %lu (highest read, true up to +%lu, "
		 "+%lu; 0: not periodic); kept for exit=return", mask1, mask2, loader_ch[0].status,
		 (unsigned long)loader_ch[0].count, loader_ch[2].status,
		 (unsigned long)loader_ch[2].count, (unsigned long)loader_ch[0].slack,
		 (unsigned long)loader_ch[2].slack);
}

const char *i386_timers_text(void)
{
	return text;
}

/* exit=return, interrupts off: masks, bases (ours are U-Boot's), modes. */
void i386_timers_restore(void)
{
	if (pic_ready)
		pic_init();			/* 32/40 again, all masked ... */
	outb(PIC1 + 1, mask1), outb(PIC2 + 1, mask2);	/* ... then the loader's masks */
	for (unsigned ch = 0; ch <= 2; ch += 2) {
		if (!loader_ch[ch].count)
			continue;		/* not periodic: nothing to restart */
		outb(PIT_CMD, ch << 6 | (loader_ch[ch].status & 0x3f));
		outb(PIT_CH0 + ch, loader_ch[ch].count & 0xff);		/* 65536 is written 0 */
		outb(PIT_CH0 + ch, (loader_ch[ch].count >> 8) & 0xff);
	}
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
		outb(PIC1 + 1, 0xff), outb(PIC2 + 1, 0xff);	/* nothing until the next arm */
}

/* IRQ n arrived: 1 when handled (the watchdog's IRQ 0, or an 8259
 * spurious IRQ 7/15, which needs no EOI of its own), 0 for any other. */
int i386_irq(unsigned irq)
{
	if (irq == 7 || irq == 15) {			/* spurious? */
		outb(irq == 7 ? PIC1 : PIC2, 0x0b);	/* OCW3: read the ISR */
		if (!(inb(irq == 7 ? PIC1 : PIC2) & 0x80)) {
			if (irq == 15)
				outb(PIC1, 0x20);	/* the master did see IRQ 2 */
			return 1;
		}
	}
	if (irq >= 8)
		outb(PIC2, 0x20);
	outb(PIC1, 0x20);				/* EOI */
	if (irq != 0)
		return 0;
	pit_load(run_watchdog_tick());			/* does not return past the deadline */
	return 1;
}
