/* MMU modes of the 405.  `real`: translation off, the baseline every other
 * mode is compared against. */
#include "arch.h"
#include "mmu.h"

struct mmu_counters mmu_count;

static int real_enter(void) { return 0; }
static void real_leave(void) { }

static const struct mmu_mode mode_real = {
	.name = "real",
	.what = "translation off (MSR[IR,DR] = 0)",
	.translated = 0,
	.enter = real_enter,
	.leave = real_leave,
};

const struct mmu_mode *const mmu_modes[] = { &mode_real, 0 };
