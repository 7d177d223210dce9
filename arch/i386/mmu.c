/* MMU modes of i386.  `flat`: paging off, the baseline. */
#include "arch.h"
#include "mmu.h"

struct mmu_counters mmu_count;

static int flat_enter(void) { return 0; }
static void flat_leave(void) { }

static const struct mmu_mode mode_flat = {
	.name = "flat",
	.what = "paging off (CR0.PG = 0)",
	.translated = 0,
	.enter = flat_enter,
	.leave = flat_leave,
};

const struct mmu_mode *const mmu_modes[] = { &mode_flat, 0 };
