/* i386 registers, port I/O and the multiboot info, shared inside
 * arch/i386 and with board/pc. */
#ifndef I386_H
#define I386_H
#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* Multiboot 1 information structure (the fields we read). */
struct multiboot_info {
	uint32_t flags;
	uint32_t mem_lower, mem_upper;		/* KiB; flags bit 0 */
	uint32_t boot_device;
	uint32_t cmdline;			/* flags bit 2 */
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;	/* flags bit 6 */
};

struct multiboot_mmap {
	uint32_t size;				/* of the rest of this entry */
	uint64_t addr, len;
	uint32_t type;				/* 1 = usable RAM */
} __attribute__((packed));

#endif
