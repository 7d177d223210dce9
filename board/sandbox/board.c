/* sandbox: the probes as a Linux program.  The console is stdout, RAM is
 * the sandbox's memfd (arch/sandbox/sandbox.h), the exit is exit(). */
#include <stdio.h>
#include <stdlib.h>
#include "board.h"
#include "mem.h"
#include "sandbox.h"

const char board_name[] = "sandbox";
const int board_has_qemu_exit = 0;

void board_console_init(const struct boot_info *bi)
{
	(void)bi;
}

void board_putc(char c)
{
	putchar(c);
}

void board_init(struct boot_info *bi)
{
	static char source[224];

	bi->ram_bytes = RAM_BYTES;
	bi->ram_base = RAM_BASE;
	snprintf(source, sizeof(source), "a memfd mapped at 0x10000000, sized by %s; the first 4 MiB "
		 "our heap and stack", sandbox_ram_source);
	bi->ram_source = source;
	bi->cpu_hz = 0;
	bi->cpu_hz_source = "a Linux process does not read the PLL; see the core clock";
	mem_set_free_ram(PROBE_START, RAM_END);
}

void board_exit(int how, int status)
{
	(void)how;			/* halt or return: a process just ends */
	fflush(stdout);
	exit(status);
}
