/* What the entry code learned about how we were started.  Filled by arch/
 * (registers at entry) and board/ (memory, clocks); read by boot/. */
#ifndef BOOT_INFO_H
#define BOOT_INFO_H
#include <stdint.h>

enum entry_kind {
	ENTRY_QEMU_KERNEL,	/* QEMU -kernel: ppc bd_t + r6/r7, or i386 multiboot */
	ENTRY_UBOOT_BOOTM,	/* U-Boot bootm: r3 = bd_t, r6/r7 = bootargs */
	ENTRY_UBOOT_GO,		/* U-Boot go: argc/argv */
	ENTRY_MULTIBOOT,	/* multiboot loader (GRUB, QEMU -kernel on i386) */
	ENTRY_PROGRAM,		/* the sandbox: a Linux program's main(argc, argv) */
};

enum exit_how { EXIT_QEMU, EXIT_RETURN, EXIT_HALT };

#define BOOT_MAX_ARGS 32

struct boot_info {
	enum entry_kind entry;
	const char *entry_name;		/* "qemu -kernel", "u-boot go", ... */
	uint64_t entry_ticks;		/* arch_ticks() at the first C instruction */

	/* Exactly one of these is set by the entry code. */
	const char *cmdline;		/* one string of words */
	int cmdline_has_argv0;		/* its first word is the image's path (multiboot) */
	int argc;			/* or an argv from U-Boot go */
	char **argv;

	void *bd;			/* ppc: U-Boot bd_t, else 0 */
	void *multiboot;		/* i386: multiboot info, else 0 */
	uintptr_t loader_stack;		/* the loader's stack pointer at entry */

	uint64_t ram_bytes;		/* filled by board_init (mem= may lower it) */
	uintptr_t ram_base;		/* where RAM starts: 0 but on the sandbox */
	const char *ram_source;

	uint32_t cpu_hz;		/* 0 when unknown */
	const char *cpu_hz_source;
	uint32_t tick_hz;		/* arch_ticks() rate; 0 until calibrated */
	const char *tick_hz_source;
	uint32_t core_hz;		/* measured core clock (boot/timing.c); 0 unknown */
	const char *platform;		/* "bare hardware", "KVM", "QEMU TCG -icount", ... */
	const char *timing;		/* what a time figure is: boot/timing.c */
	enum { TIMING_INSTRUCTIONS, TIMING_HOST, TIMING_REAL } timing_kind;
	uint32_t load_factor100;	/* budgets' scale for a shared CPU (x100); 100 alone */
};

extern struct boot_info boot_info;

#endif
