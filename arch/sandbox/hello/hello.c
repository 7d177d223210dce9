/* The program the sandbox's exec figure runs (arch/sandbox/os_proc.c, as
 * LMbench's lat_proc exec runs its hello): it writes a line and exits with
 * HELLO_STATUS (42) only if the write worked, so that the parent knows it
 * ran.  Built static by the Makefile: no dynamic loader in the figure. */
#include <unistd.h>

int main(void)
{
	static const char line[] = "Hello world\n";

	return write(1, line, sizeof(line) - 1) == sizeof(line) - 1 ? 42 : 1;
}
