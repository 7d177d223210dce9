/* The boot translation: what Book-E has instead of real mode.  One TLB1
 * entry maps RAM 1:1 from 0 (the smallest TLB1 size, 4^n KiB, that covers
 * it, up to 1 GiB so that the user window at MMU_SPACE_BASE and the CCSR
 * stay outside), one maps the CCSR block (36-bit physical address) at
 * E500_CCSR_VA, caching inhibited and guarded.  Both IPROT: no
 * invalidation removes them.  The loader's TLB1 entries are read for the
 * banner, then replaced (tlbswitch.S). */
#include <stdio.h>
#include <string.h>
#include "e500.h"

uint32_t e500_tlb_switch(uint32_t ram_mas1, uint32_t ccsr_mas1, uint32_t ccsr_mas2, uint32_t ccsr_mas3,
		     uint32_t ccsr_mas7);

static char text[320];
static uint32_t ram_mapped;
unsigned e500_ram_tsize;

uint32_t e500_ram_mapped(void) { return ram_mapped; }
const char *e500_tlb_text(void) { return text; }

struct e500_tlb1_entry e500_loader_tlb1[16];

/* The loader's TLB1 entries, kept for exit=return; their count for the
 * banner. */
static void describe_loader(void)
{
	unsigned valid = 0;

	for (unsigned i = 0; i < 16; i++) {
		struct e500_tlb1_entry *e = &e500_loader_tlb1[i];
		mtspr(SPR_MAS0, MAS0_TLBSEL1 | MAS0_ESEL(i));
		__asm__ volatile("isync; tlbre; isync" ::: "memory");
		e->mas1 = mfspr(SPR_MAS1), e->mas2 = mfspr(SPR_MAS2);
		e->mas3 = mfspr(SPR_MAS3), e->mas7 = mfspr(SPR_MAS7);
		valid += !!(e->mas1 & MAS1_V);
	}
	snprintf(text, sizeof(text), "the loader's %u valid TLB1 entries replaced by ", valid);
}

void e500_boot_translation(uint64_t ram_bytes, uint64_t ccsr_pa)
{
	unsigned s = 1;		/* TSIZE: 4^s KiB */

	while (s < TSIZE_1G && (1024ull << (2 * s)) < ram_bytes)
		s++;
	ram_mapped = 1024u << (2 * s);
	describe_loader();
	uint32_t temp = e500_tlb_switch(MAS1_V | MAS1_IPROT | MAS1_TSIZE(s),
			MAS1_V | MAS1_IPROT | MAS1_TSIZE(TSIZE_1M),
			E500_CCSR_VA | MAS2_I | MAS2_G,
			((uint32_t)ccsr_pa & 0xfffff000u) | MAS3_SR | MAS3_SW,
			(uint32_t)(ccsr_pa >> 32));
	/* RAM 1:1 in address space 1 for good (IPROT): MSR[DS] = 1 is our
	 * "physical" access in every mode (selfcheck.c, mmu.c). */
	e500_tlbwe(MAS0_TLBSEL1 | MAS0_ESEL(ESEL_AS1), MAS1_V | MAS1_IPROT | MAS1_TS | MAS1_TSIZE(s), 0,
		   MAS3_SX | MAS3_SW | MAS3_SR, 0);
	if (temp != ESEL_AS1)
		e500_tlbwe(MAS0_TLBSEL1 | MAS0_ESEL(temp), 0, 0, 0, 0);
	e500_ram_tsize = s;
	mtspr(SPR_PID, 0);
	__asm__ volatile("isync");
	snprintf(text + strlen(text), sizeof(text) - strlen(text),
		 "TLB1[%d] RAM 0-0x%08lx 1:1 (one %lu MiB entry), TLB1[%d] the CCSR at 0x%08lx "
		 "(physical 0x%llx, I|G), TLB1[%d] RAM in AS1", ESEL_RAM, (unsigned long)ram_mapped - 1,
		 (unsigned long)ram_mapped >> 20, ESEL_CCSR, (unsigned long)E500_CCSR_VA,
		 (unsigned long long)ccsr_pa, ESEL_AS1);
}
