/* MMU modes of the e500.
 *
 *   real      the boot translation (tlb.c): one TLB1 entry over RAM 1:1,
 *             what Book-E has instead of translation off: no TLB misses
 *
 * Book-E always translates; "real" is the baseline every other mode is
 * held against, as the 405's MSR[IR,DR] = 0 is. */
#include "mmu_arch.h"
#include "e500.h"

struct mmu_counters mmu_count;

static const struct mmu_mode mode_real = { "real",
	"the boot translation: one TLB1 entry maps RAM 1:1 (Book-E has no real mode)", 0, 0 };

const struct mmu_mode *const mmu_modes[] = { &mode_real, 0 };

/* No translated mode yet: no tables but a few for the core's pool. */
uint32_t mmu_arch_pool_bytes(uintptr_t ram_end)
{
	(void)ram_end;
	return 8 * 4096;
}

int mmu_arch_live(uintptr_t a)
{
	(void)a;
	return 0;
}

unsigned mmu_arch_check_samples(void)
{
	return 0;
}

extern char e500_walk_loop[], e500_walk_loop_end[];
uint32_t e500_walk_pass(uintptr_t base, uint32_t pages, uint32_t warm, uint32_t *ticks);

/* The boot translation: the TLB1 entry covers all RAM, so nothing is
 * refilled; the miss vectors still count (vectors.S), so the walk is
 * offered as the baseline with no misses, as on the 405 with translation
 * off. */
void mmu_arch_untranslated_tlb(struct mmu_tlb_info *t)
{
	t->walk = e500_walk_pass;
	t->walk_loop_instructions = (e500_walk_loop_end - e500_walk_loop) / 4;
}

/* exceptions.c: a TLB miss or storage interrupt in a translated mode;
 * none yet, so nobody expected it. */
int e500_mmu_fault(struct e500_frame *f)
{
	(void)f;
	return 0;
}
