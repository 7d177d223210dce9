/* The sandbox's entry: a Linux program's main().  It maps the sandbox's
 * RAM, then runs boot_main() on the stack in the image's area (so the
 * boot probe and the self-check see it as on the boards), as the boards'
 * start-up code does on theirs. */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>
#include "arch.h"
#include "sandbox.h"

int main(int argc, char **argv)
{
	static ucontext_t run, back;
	struct boot_info *bi = &boot_info;

	bi->entry_ticks = arch_ticks();
	bi->entry = ENTRY_PROGRAM;
	bi->entry_name = "Linux exec (main's argc/argv)";
	bi->argc = argc;
	bi->argv = argv;
	sandbox_ram_init();
	if (getcontext(&run) < 0) {
		perror("mmubench: getcontext");
		return 3;
	}
	run.uc_stack.ss_sp = (void *)STACK_BOTTOM;
	run.uc_stack.ss_size = STACK_TOP - STACK_BOTTOM;
	run.uc_link = &back;
	makecontext(&run, boot_main, 0);
	swapcontext(&back, &run);	/* boot_main ends with exit() */
	return 3;
}

/* Nothing to return to but the shell, which exit() does. */
int arch_can_return(void)
{
	return 0;
}

void arch_return_to_loader(int status)
{
	exit(status);
}

void arch_halt(void)
{
	fflush(stdout);
	exit(1);
}
