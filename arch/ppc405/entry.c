/* From the registers the loader left to boot_info: which entry path, the
 * command line or argv, the bd_t. */
#include <string.h>
#include "arch.h"
#include "boot_info.h"
#include "ppc405.h"

void boot_main(void) __attribute__((noreturn));

static int entered_by_go;

int arch_can_return(void)
{
	return entered_by_go;
}

void arch_return_to_loader(int status)
{
	ppc405_return_to_loader(status);
}

/* An argc is small; a bd_t pointer is a RAM address past the vectors. */
#define MAX_GO_ARGC 64

void ppc405_entry(uint32_t r3, uint32_t r4, uint32_t r5, uint32_t r6, uint32_t r7)
{
	static char cmdline[1024];	/* longer than boot_main takes: it reports overlong lines */
	struct boot_info *bi = &boot_info;

	(void)r5;
	bi->entry_ticks = arch_ticks();
	if (r3 <= MAX_GO_ARGC) {
		entered_by_go = 1;
		bi->entry = ENTRY_UBOOT_GO;
		bi->entry_name = "U-Boot go (r3 = argc, r4 = argv)";
		bi->argc = r3;
		bi->argv = (char **)r4;
	} else {
		bi->entry = ENTRY_UBOOT_BOOTM;
		bi->entry_name = "bd_t in r3, command line in r6/r7 (U-Boot bootm or QEMU -kernel)";
		bi->bd = (void *)r3;
		/* r6..r7 is the command line, end exclusive; may be NUL-terminated early. */
		size_t len = r6 && r7 > r6 ? r7 - r6 : 0;
		if (len >= sizeof(cmdline))
			len = sizeof(cmdline) - 1;
		memcpy(cmdline, (const char *)r6, len);
		cmdline[len] = 0;
		bi->cmdline = cmdline;
	}
	boot_main();
}
