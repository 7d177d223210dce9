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
#define CR4_SMEP	0x00100000u	/* no kernel fetch from user pages */
#define CR4_SMAP	0x00200000u	/* no kernel access to user pages unless EFLAGS.AC */
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

/* 32-bit TSS: only SS0/ESP0 matter (the stack for traps from ring 3). */
struct i386_tss {
	uint32_t link, esp0, ss0, esp1, ss1, esp2, ss2, cr3, eip, eflags;
	uint32_t eax, ecx, edx, ebx, esp, ebp, esi, edi;
	uint32_t es, cs, ss, ds, fs, gs, ldt;
	uint16_t trap, iomap_base;
} __attribute__((packed));
extern struct i386_tss i386_tss;		/* exceptions.c; ESP0 set by ring3.S */
void i386_dump(struct i386_frame *f);		/* exceptions.c: the register dump */

/* ring3.S and user.c: ring 3 (include/user.h).  i386_user_enter is
 * user_enter with extra EFLAGS bits (crash=align's AC); i386_user_return
 * (EAX: the result) unwinds to its caller from any trap. */
int i386_user_enter(uintptr_t entry, uintptr_t sp, uintptr_t arg, uint32_t eflags);
void i386_user_syscall(void);			/* the int $0x80 gate */
void i386_ring3_misaligned(void);		/* crash=align's ring-3 code */
extern int i386_user_active;			/* inside user_enter */
void i386_user_fault(struct i386_frame *f) __attribute__((noreturn));
void i386_user_call(struct i386_frame *f);	/* every call but the null call */
int i386_user_signal(struct i386_frame *f);	/* 1: a #PF became a signal */
void i386_crash_user(void);			/* crash=user */
void i386_page_fault_forget(void);		/* mmu.c: a new run, no repeats yet */

/* CPU features the MMU modes and the banner need (cpu.c). */
struct i386_features {
	int pse, pae, pge, nx, pcid, tsc;
	uint32_t max_leaf, max_ext_leaf;
};
extern struct i386_features i386_cpu;
void i386_probe_features(void);
void i386_describe_tsc(void);
/* tsc_cpuid.c: the TSC's Hz from leaves 0x15/0x16 (0: none); src says how. */
uint32_t i386_tsc_hz_from_cpuid(uint32_t max_leaf, const uint32_t l15[4], const uint32_t l16[4],
				char *src, unsigned n);
void i386_report_cpuid(void);

/* Page-table entry bits (32-bit and PAE alike, NX only in PAE). */
#define PTE_P		0x001u
#define PTE_RW		0x002u
#define PTE_US		0x004u
#define PTE_PWT		0x008u
#define PTE_PCD		0x010u
#define PTE_A		0x020u
#define PTE_D		0x040u
#define PTE_PS		0x080u		/* in a directory entry: a large page */
#define PTE_G		0x100u
#define PTE_LARGE_PAT	0x1000u		/* PAT bit of a large page: never set by us */
#define PTE_NX		(1ull << 63)

/* entry.c, from start.S: the loader's EAX, EBX, EDX. */
void i386_entry(uint32_t eax, uint32_t ebx, uint32_t edx);

/* mmu.c: the active page-table format (0 while paging is off), the #PF
 * handler (1 = handled, retry), crash= support; pagetable.c: the one walker. */
struct pformat {
	const char *name;
	int pae;		/* 64-bit entries, PDPT */
	int large;		/* large pages where a region allows */
};
extern const struct pformat *i386_cur;
int i386_page_fault(struct i386_frame *f);
extern const struct mmu_mode i386_mode_2level, i386_mode_pae;	/* for crash= */
unsigned i386_dtlb_entries(void);

/* What maps va in the current root, as far as the walk got: the PDPTE
 * (PAE), the PDE and where it is, the PTE and where it is (4K pages). */
struct i386_walk {
	uintptr_t va, pa;
	uint64_t pdpte, pde, pte, leaf;
	uintptr_t pde_at, pte_at;	/* 0 where the walk did not get */
	uint32_t large;			/* the large page's size, or 0 */
};
int i386_walk(uintptr_t va, struct i386_walk *w);	/* 0: mapped */

/* watchdog.c, for exceptions.c: IRQ n (0: the PIT) arrived; 1 handled.
 * The loader's 8259 masks and 8254 modes, kept at entry, back on return. */
int i386_irq(unsigned irq);
int i386_set_stray_vector(const char *key, const char *value);	/* exceptions.c */
void i386_fire_stray_vector(void);
void i386_timers_save(void);
void i386_timers_restore(void);
const char *i386_timers_text(void);


/* selfcheck.c: struct mmu_ops' check_word (include/mmu_arch.h). */
void i386_check_word(uintptr_t va, uintptr_t pa, uint32_t p1, uint32_t p2, uint32_t got[2],
		     int read_only);

/* ptdump.c: decoding for the dump, the self-check and ptdump=. */
void i386_print_pte_chain(uintptr_t va);
void i386_ptdump(uintptr_t start, uintptr_t end);
void i386_ptdump_first_leave(const struct pformat *formats);
int i386_set_ptdump(const char *key, const char *value);

#endif
