/* probe_os() where no OS runs under the probes (the boards): none, so the
 * OS-cost figures (include/probe.h, struct probe_os) are absent.  The
 * sandbox's arch/sandbox/os.c defines the real one. */
#include "probe.h"

__attribute__((weak)) const struct probe_os *probe_os(void)
{
	return 0;
}
