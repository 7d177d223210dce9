/* From the registers the loader left to boot_info: multiboot or U-Boot go. */
#include <string.h>
#include "arch.h"
#include "boot_info.h"
#include "i386.h"

void i386_return_to_loader(int status) __attribute__((noreturn));

#define MULTIBOOT_BOOTED	0x2BADB002
#define MB_INFO_CMDLINE		0x04

static int entered_by_go;

int arch_can_return(void)
{
	return entered_by_go;
}

void arch_return_to_loader(int status)
{
	__asm__ volatile("cli" ::: "memory");	/* start.S's iret gives back the loader's IF */
	i386_timers_restore();
	i386_return_to_loader(status);
}

extern uint32_t loader_esp;		/* start.S: ESP at entry */

void i386_entry(uint32_t eax, uint32_t ebx, uint32_t edx)
{
	struct boot_info *bi = &boot_info;

	bi->entry_ticks = arch_ticks();
	bi->loader_stack = loader_esp;
	i386_timers_save();
	if (eax == MULTIBOOT_BOOTED) {
		const struct multiboot_info *mb = (const void *)ebx;
		bi->entry = ENTRY_MULTIBOOT;
		bi->entry_name = "multiboot (EAX = 0x2BADB002, EBX = info)";
		bi->multiboot = (void *)ebx;
		bi->cmdline = (mb->flags & MB_INFO_CMDLINE) ? (const char *)mb->cmdline : "";
		bi->cmdline_has_argv0 = (mb->flags & MB_INFO_CMDLINE) != 0;	/* QEMU, GRUB: path first */
	} else {
		entered_by_go = 1;
		bi->entry = ENTRY_UBOOT_GO;
		bi->entry_name = "U-Boot go (EAX = argc, EDX = argv)";
		bi->argc = eax;
		bi->argv = (char **)edx;
	}
	boot_main();
}
