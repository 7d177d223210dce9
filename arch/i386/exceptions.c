/* The IDT, the TSS, the exception handler and its register dump, and the
 * crash= kinds.  Anything not handled on purpose (a #PF a probe expects)
 * prints a dump and ends the run with a failing status. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch.h"
#include "config.h"
#include "i386.h"
#include "mem.h"
#include "mmu.h"
#include "report.h"
#include "user_asm.h"

extern const uint32_t i386_vector_stubs[256];
extern uint64_t i386_gdt[];
void i386_exception(struct i386_frame *f);

/* vectors.S builds struct i386_frame by pushing, last pushed lowest: ES,
 * DS, pushal's eight registers, the vector, the error code, the CPU's
 * EIP/CS/EFLAGS.  The struct must keep that order. */
_Static_assert(offsetof(struct i386_frame, ds) == 4, "ds");
_Static_assert(offsetof(struct i386_frame, edi) == 8 && offsetof(struct i386_frame, eax) == 36,
	       "pushal");
_Static_assert(offsetof(struct i386_frame, vector) == 40 && offsetof(struct i386_frame, error) == 44,
	       "vector, error");
_Static_assert(offsetof(struct i386_frame, eip) == 48 && offsetof(struct i386_frame, eflags) == 56,
	       "CPU frame");

static const char *const vector_names[32] = {
	"#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow",
	"#BR bound range", "#UD invalid opcode", "#NM device not available",
	"#DF double fault", "coprocessor segment overrun", "#TS invalid TSS",
	"#NP segment not present", "#SS stack fault", "#GP general protection",
	"#PF page fault", "reserved 15", "#MF x87 error", "#AC alignment check",
	"#MC machine check", "#XM SIMD error", "#VE virtualization", "#CP control protection",
	"reserved 22", "reserved 23", "reserved 24", "reserved 25", "reserved 26",
	"reserved 27", "#HV hypervisor injection", "#VC VMM communication", "#SX security",
	"reserved 31",
};

_Static_assert(offsetof(struct i386_tss, esp0) == TSS_ESP0, "ring3.S writes ESP0 there");

struct i386_tss i386_tss;
static uint64_t idt[256] __attribute__((aligned(8)));	/* every vector: none is #NP */
static uint8_t ring3_stack[4096] __attribute__((aligned(16)));	/* crash=align's */

static uint64_t gate(uint32_t handler, unsigned dpl)
{
	/* 32-bit interrupt gate (IF cleared on entry), present, given DPL. */
	uint32_t lo = (handler & 0xffff) | (uint32_t)KERNEL_CS << 16;
	uint32_t hi = (handler & 0xffff0000) | 0x8e00 | (dpl << 13);
	return (uint64_t)hi << 32 | lo;
}

void arch_init(struct boot_info *bi)
{
	struct { uint16_t limit; uint32_t base; } __attribute__((packed)) idtr;
	uint32_t base = (uint32_t)&i386_tss, limit = sizeof(i386_tss) - 1;

	(void)bi;
	for (int v = 0; v < 256; v++)	/* exceptions, IRQ 0..15 (watchdog.c), the rest */
		idt[v] = gate(i386_vector_stubs[v], 0);
	idt[SYSCALL_VECTOR] = gate((uint32_t)i386_user_syscall, 3);	/* int $0x80 from ring 3 */
	idtr.limit = sizeof(idt) - 1;
	idtr.base = (uint32_t)idt;
	__asm__ volatile("lidt %0" : : "m"(idtr));

	/* The TSS: SS0 for traps taken at CPL 3 (ESP0 is set by each entry
	 * to ring 3: the kernel stack below its caller, ring3.S); no I/O
	 * bitmap, so ring 3 has no port access (IOPL 0). */
	i386_tss.ss0 = KERNEL_DS;
	i386_tss.iomap_base = sizeof(i386_tss);
	i386_gdt[TSS_SEL / 8] = (uint64_t)((base & 0xff000000) | (limit & 0xf0000) | 0x8900 |
					   ((base >> 16) & 0xff)) << 32 |
				(base & 0xffff) << 16 | (limit & 0xffff);
	__asm__ volatile("ltr %w0" : : "r"(TSS_SEL));
	i386_probe_features();
}

static int in_stack(uint32_t p)
{
	return p >= (uint32_t)__stack_bottom && p + 8 <= (uint32_t)__stack_top;
}

/* A vector's name; 48-255 are interrupts no source of ours raises. */
static const char *vector_name(uint32_t v)
{
	static char name[128];

	if (v < 32)
		return vector_names[v];
	if (v < 48)
		snprintf(name, sizeof(name), "8259 IRQ %lu (not the watchdog's)", (unsigned long)v - 32);
	else if (v == SYSCALL_VECTOR)	/* ring3.S's frame of a call: its dump */
		snprintf(name, sizeof(name), "system call (int $0x80)");
	else if (v == 0xff)
		snprintf(name, sizeof(name), "spurious or unexpected interrupt 0xff (the LAPIC's "
			 "reset spurious vector, or a source left live)");
	else
		snprintf(name, sizeof(name), "unexpected interrupt %#lx (a LAPIC, IOAPIC or MSI "
			 "source left live, or a stray int)", (unsigned long)v);
	return name;
}

void i386_dump(struct i386_frame *f)
{
	const char *name = vector_name(f->vector);
	int from_ring3 = (f->cs & 3) != 0;
	/* From ring 0 the CPU pushed no ESP: the fault's ESP is just above EFLAGS. */
	uint32_t esp = from_ring3 ? f->user_esp : (uint32_t)&f->user_esp;
	char trace[160];
	int n = 0;

	report_diag("exception: %s (vector %lu) at EIP 0x%08lx", name, (unsigned long)f->vector,
		    (unsigned long)f->eip);
	report_diag("  CS %#06lx EFLAGS 0x%08lx error code 0x%08lx%s", (unsigned long)(f->cs & 0xffff),
		    (unsigned long)f->eflags, (unsigned long)f->error,
		    from_ring3 ? " (from ring 3)" : "");
	report_diag("  CR0 0x%08lx CR2 0x%08lx CR3 0x%08lx CR4 0x%08lx", (unsigned long)read_cr0(),
		    (unsigned long)read_cr2(), (unsigned long)read_cr3(), (unsigned long)read_cr4());
	report_diag("  EAX 0x%08lx EBX 0x%08lx ECX 0x%08lx EDX 0x%08lx", (unsigned long)f->eax,
		    (unsigned long)f->ebx, (unsigned long)f->ecx, (unsigned long)f->edx);
	report_diag("  ESI 0x%08lx EDI 0x%08lx EBP 0x%08lx ESP 0x%08lx", (unsigned long)f->esi,
		    (unsigned long)f->edi, (unsigned long)f->ebp, (unsigned long)esp);
	uint16_t ss;
	__asm__ volatile("movw %%ss, %0" : "=r"(ss));	/* ring 0: the fault's SS is ours */
	report_diag("  DS %#06lx ES %#06lx SS %#06lx", (unsigned long)(f->ds & 0xffff),
		    (unsigned long)(f->es & 0xffff),
		    (unsigned long)(from_ring3 ? f->user_ss & 0xffff : ss));
	if (f->vector == 14) {
		uint32_t e = f->error;
		report_diag("  page fault: CR2 0x%08lx: %s, %s, %s%s%s", (unsigned long)read_cr2(),
			    e & 1 ? "protection violation (page present)" : "page not present",
			    e & 0x10 ? "instruction fetch" : e & 2 ? "write" : "read",
			    e & 4 ? "user mode" : "supervisor mode",
			    e & 8 ? ", reserved bit set in an entry" : "",
			    e & 0x20 ? ", protection key" : "");
		i386_print_pte_chain(read_cr2());
	}
	/* Return addresses along the EBP chain (the image keeps frame pointers). */
	n = snprintf(trace, sizeof(trace), "  stack trace: %#lx", (unsigned long)f->eip);
	for (uint32_t ebp = f->ebp, depth = 0; depth < 8 && in_stack(ebp) && !(ebp & 3); depth++) {
		uint32_t next = ((uint32_t *)ebp)[0], ret = ((uint32_t *)ebp)[1];
		n += snprintf(trace + n, sizeof(trace) - n, " <- %#lx", (unsigned long)ret);
		if (next <= ebp || n >= (int)sizeof(trace))
			break;
		ebp = next;
	}
	report_diag("%s", trace);
}

/* Every vector lands here; returning retries the faulting instruction. */
void i386_exception(struct i386_frame *f)
{
	static int nested;
	char why[64];

	if (f->vector == 14 && !nested && i386_page_fault(f))
		return;
	if (f->vector == 14 && !nested && (f->cs & 3) && i386_user_active && i386_user_signal(f))
		return;			/* to the process's SIGSEGV handler */
	if (f->vector >= 32 && f->vector < 48 && !nested && i386_irq(f->vector - 32))
		return;			/* the watchdog's tick, or an 8259 spurious IRQ */
	if (nested++) {
		/* A fault inside the dump: say so plainly and stop. */
		console_printf("\nmmubench: exception %lu at EIP %#lx while reporting an exception\n",
			       (unsigned long)f->vector, (unsigned long)f->eip);
		exit(1);
	}
	i386_dump(f);
	if ((f->cs & 3) && i386_user_active) {
		nested = 0;		/* user_enter returns -1: its caller fails the run */
		i386_user_fault(f);
	}
	if (f->vector < 32)
		snprintf(why, sizeof(why), "unexpected exception %s", vector_names[f->vector]);
	else
		snprintf(why, sizeof(why), "unexpected interrupt, vector %lu", (unsigned long)f->vector);
	exit(report_abort(why));
}

/* ---- stray_vector=: a test of the full IDT ---- */

static unsigned long stray_vector;

int i386_set_stray_vector(const char *key, const char *value)
{
	int r = arg_uint(key, value, 48, 255, &stray_vector);
	if (!r && stray_vector == SYSCALL_VECTOR) {
		console_printf("mmubench: error: boot argument '%s=%s': vector 0x80 is ring 3's way "
			       "back (its system call), not a stray\n", key, value);
		return -1;
	}
	return r;
}

/* After the banner: `int N` through the IDT, as a source the firmware
 * left live would arrive; the handler reports it and fails the run. */
void i386_fire_stray_vector(void)
{
	static uint8_t code[4] = { 0xcd, 0, 0xc3 };	/* int $N; ret */

	if (!stray_vector)
		return;
	code[1] = stray_vector;
	report_diag("stray_vector=%lu: int %#lx through the IDT", stray_vector, stray_vector);
	((void (*)(void))code)();
}

/* ---- crash= ---- */

#define PAGE 4096u

/* crash=data / crash=fetch: a page of probe memory unmapped, then used. */

static const char *mmu_crash_unsupported(void)
{
	if (mem_probe_end() < mem_probe_start() + 2 * PAGE)
		return "no free RAM for a page to unmap";
	return 0;
}

static void mmu_crash(int fetch)
{
	const struct mmu_mode *m = fetch && i386_cpu.pae ? &i386_mode_pae : &i386_mode_2level;
	uintptr_t page = mem_probe_start();

	if (mmu_enter(m) < 0)
		return;
	mmu_unmap(page, PAGE);
	report_diag("crash=%s: mode %s, %#lx unmapped, now %s it", fetch ? "fetch" : "data",
		    m->name, (unsigned long)page, fetch ? "calling into" : "writing to");
	if (fetch)
		((void (*)(void))page)();	/* #PF on the instruction fetch */
	else
		*(volatile uint32_t *)page = 0xbad;	/* #PF on the write */
	mmu_leave();
}


const char *arch_crash_unsupported(const char *kind)
{
	if (!strcmp(kind, "data") || !strcmp(kind, "fetch") || !strcmp(kind, "user"))
		return mmu_crash_unsupported();	/* they need paging and free RAM */
	return 0;
}

/* #AC: CR0.AM and EFLAGS.AC, a misaligned load at CPL 3 (vectors.S). */
static void crash_align(void)
{
	static uint8_t buf[16] __attribute__((aligned(16)));
	uint32_t r[4];

	write_cr0(read_cr0() | CR0_AM);
	report_diag("crash=align: CR0.AM and EFLAGS.AC set, misaligned 4-byte load at CPL 3");
	i386_user_enter((uintptr_t)i386_ring3_misaligned, (uintptr_t)(ring3_stack + sizeof(ring3_stack)),
			0, EFLAGS_AC);
	write_cr0(read_cr0() & ~CR0_AM);
	/* Back without #AC: the CPU (QEMU's TCG) does not check alignment.
	 * x86's other alignment fault: a misaligned 16-byte SSE load is #GP. */
	cpuid(1, 0, r);
	if (!(r[3] & (1u << 25))) {
		report_diag("crash=align: no #AC at CPL 3 and no SSE for an aligned-operand fault");
		return;
	}
	report_diag("crash=align: no #AC was raised at CPL 3 (QEMU TCG does not implement "
		    "alignment checking); misaligned SSE movaps instead, which must #GP");
	write_cr0(read_cr0() & ~0xcu);		/* EM, TS clear: SSE usable */
	write_cr4(read_cr4() | CR4_OSFXSR);	/* the OS supports SSE state */
	__asm__ volatile("movaps (%0), %%xmm0" : : "r"(buf + 4) : "memory");
}

void arch_crash(const char *kind)
{
	if (!strcmp(kind, "divide")) {
		/* #DE: divide by a zero the compiler cannot see. */
		__asm__ volatile("xorl %%ecx, %%ecx\n\tmovl $1, %%eax\n\txorl %%edx, %%edx\n\t"
				 "divl %%ecx" : : : "eax", "ecx", "edx");
	} else if (!strcmp(kind, "illegal")) {
		__asm__ volatile("ud2");			/* #UD */
	} else if (!strcmp(kind, "align")) {
		crash_align();
	} else if (!strcmp(kind, "data")) {
		mmu_crash(0);	/* #PF: a write to a page just unmapped */
	} else if (!strcmp(kind, "fetch")) {
		mmu_crash(1);	/* #PF: a call into a page just unmapped */
	} else if (!strcmp(kind, "user")) {
		i386_crash_user();	/* #PF from ring 3: a load from a kernel page (user.c) */
	}
}
