/* A PC: QEMU's `pc` machine or real hardware.  COM1 at 0x3F8; memory from
 * the multiboot map; QEMU's isa-debug-exit at port 0xF4 ends the run. */
#include "arch.h"
#include "board.h"
#include "i386.h"
#include "mem.h"
#include "ns16550.h"

extern char __free_ram_start[];

const char board_name[] = "pc";
const int board_has_qemu_exit = 1;

#define COM1		0x3f8
#define DEBUG_EXIT	0xf4

static uint8_t uart_read(unsigned reg) { return inb(COM1 + reg); }
static void uart_write(unsigned reg, uint8_t v) { outb(COM1 + reg, v); }
static const struct ns16550 uart = { uart_read, uart_write };

void board_console_init(const struct boot_info *bi)
{
	/* 115200 baud from multiboot; after U-Boot keep its setting. */
	ns16550_init(&uart, bi->entry == ENTRY_UBOOT_GO ? 0 : 1);
}

void board_putc(char c)
{
	ns16550_putc(&uart, c);
}

void board_init(struct boot_info *bi)
{
	const struct multiboot_info *mb = bi->multiboot;
	uintptr_t end = 0;

	bi->cpu_hz = 0;
	bi->cpu_hz_source = "the TSC rate is measured instead";
	bi->ram_source = "unknown";
	if (mb && (mb->flags & (1 << 6))) {
		/* Usable RAM is what the map says: sum of type-1 ranges.  Probes
		 * get the one that holds the image (from 1 MiB up), below 4 GiB. */
		uint64_t total = 0;
		for (uint32_t off = 0; off < mb->mmap_length;) {
			const struct multiboot_mmap *e = (const void *)(mb->mmap_addr + off);
			if (e->type == 1) {
				total += e->len;
				if (e->addr <= (uintptr_t)__image_start &&
				    e->addr + e->len > (uintptr_t)__free_ram_start)
					end = e->addr + e->len > 0xfffff000ull ?
						0xfffff000u : (uintptr_t)(e->addr + e->len);
			}
			off += e->size + 4;
		}
		bi->ram_bytes = total;
		bi->ram_source = "multiboot memory map";
	} else if (mb && (mb->flags & 1)) {
		bi->ram_bytes = ((uint64_t)mb->mem_upper + 1024) << 10;
		bi->ram_source = "multiboot mem_upper";
		end = bi->ram_bytes;
	} else if (bi->entry == ENTRY_UBOOT_GO) {
		/* U-Boot passes no RAM size to go.  It runs relocated at the top
		 * of RAM with its stack below itself: probes get what lies below
		 * its stack, less 1 MiB for the stack's own use. */
		end = (bi->loader_stack - (1u << 20)) & ~0xfffffu;
		bi->ram_bytes = end;
		bi->ram_source = "at least: RAM below U-Boot's stack at go (U-Boot passes no size)";
	}
	/* The MMU core takes the page tables' pool off the top of that RAM;
	 * the MMU modes map all of it 1:1. */
	mem_set_free_ram((uintptr_t)__free_ram_start, end);
}

void board_exit(int how, int status)
{
	ns16550_drain(&uart);
	if (how == EXIT_QEMU) {
		/* QEMU exits with (value << 1) | 1; tools/run-qemu maps it back. */
		outb(DEBUG_EXIT, status ? 1 : 0);
	}
	if (how == EXIT_RETURN && arch_can_return())
		arch_return_to_loader(status);
	arch_halt();
}
