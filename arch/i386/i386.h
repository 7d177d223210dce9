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

/* Control registers, MSRs and the TLB. */
#define CR0_PE		0x00000001u
#define CR0_WP		0x00010000u	/* supervisor writes obey read-only pages */
#define CR0_AM		0x00040000u	/* alignment checks at CPL 3 when EFLAGS.AC */
#define CR0_PG		0x80000000u
#define CR4_PSE		0x00000010u
#define CR4_PAE		0x00000020u
#define CR4_PGE		0x00000080u
#define CR4_OSFXSR	0x00000200u
#define EFLAGS_AC	0x00040000u
#define MSR_EFER	0xc0000080u
#define EFER_NXE	0x00000800u

#define DEFINE_CR(n) \
	static inline uint32_t read_cr##n(void) { uint32_t v; __asm__ volatile("mov %%cr" #n ", %0" : "=r"(v)); return v; } \
	static inline void write_cr##n(uint32_t v) { __asm__ volatile("mov %0, %%cr" #n : : "r"(v) : "memory"); }
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (uint64_t)hi << 32 | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static inline void invlpg(uintptr_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

/* What the vector stubs (vectors.S) push, lowest address first. */
struct i386_frame {
	uint32_t es, ds;
	uint32_t edi, esi, ebp, esp_pusha, ebx, edx, ecx, eax;	/* pushal */
	uint32_t vector, error;		/* error is 0 where the CPU pushes none */
	uint32_t eip, cs, eflags;	/* pushed by the CPU */
	uint32_t user_esp, user_ss;	/* only when the fault came from ring 3 */
};

/* CPU features the MMU modes and the banner need (cpu.c). */
struct i386_features {
	int pse, pae, pge, nx, pcid, tsc;
	uint32_t max_leaf, max_ext_leaf;
};
extern struct i386_features i386_cpu;
void i386_probe_features(void);
void i386_describe_tsc(void);
void i386_report_cpuid(void);

/* mmu.c: the #PF handler (1 = handled, retry) and the dump's PTE chain. */
int i386_page_fault(struct i386_frame *f);
void i386_print_pte_chain(uintptr_t va);
/* board/pc: set the page-table pool aside at the top of probe RAM. */
void i386_mmu_reserve(uintptr_t ram_end);

#endif
