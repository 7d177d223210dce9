/* The boot translation: what Book-E has instead of real mode.  RAM 1:1
 * from 0 in up to E500_RAM_ENTRIES TLB1 entries, each a power of 4 KiB,
 * largest first and rounded DOWN: an entry past the end of RAM is a
 * cacheable, unguarded mapping of nothing, and a speculative access there
 * can machine-check (E500CORERM 12.1.1; Linux and U-Boot round down the
 * same way).  At most 1 GiB, so that the user window at MMU_SPACE_BASE and
 * the CCSR stay outside.  The same entries in address space 1 are our
 * "physical" access in every mode; one more maps the CCSR block (36-bit
 * physical address) at E500_CCSR_VA, caching inhibited and guarded.  All
 * IPROT: no invalidation removes them.  The loader's TLB1 and TLB0 are
 * read first, for the banner and for exit=return, then replaced
 * (tlbswitch.S). */
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "e500.h"

extern char __free_ram_start[];
uint32_t e500_tlb_switch(uint32_t ram_mas1, uint32_t ccsr_mas1, uint32_t ccsr_mas2, uint32_t ccsr_mas3,
		     uint32_t ccsr_mas7);

static char text[2][200];	/* two banner lines: RAM; the CCSR and AS1 */
struct e500_ram_map e500_ram;
struct e500_loader_tlb e500_loader_tlb;

uint32_t e500_ram_mapped(void) { return e500_ram.bytes; }
const char *e500_tlb_text(int i) { return text[i]; }

static void tlb_read(struct e500_tlb_entry *e, uint32_t mas0, uint32_t mas2)
{
	mtspr(SPR_MAS0, mas0);
	mtspr(SPR_MAS2, mas2);
	__asm__ volatile("isync; tlbre; isync" ::: "memory");
	e->mas0 = mas0;
	e->mas1 = mfspr(SPR_MAS1), e->mas2 = mfspr(SPR_MAS2);
	e->mas3 = mfspr(SPR_MAS3), e->mas7 = mfspr(SPR_MAS7);
}

/* Every TLB1 entry, and TLB0's valid ones: a way of a set is read with
 * MAS0[ESEL] = the way and MAS2[EPN] naming the set (E500CORERM 12.3.2). */
void e500_read_loader_tlb(void)
{
	struct e500_loader_tlb *t = &e500_loader_tlb;

	for (unsigned i = 0; i < 16; i++)
		tlb_read(&t->tlb1[i], MAS0_TLBSEL1 | MAS0_ESEL(i), 0);
	t->n0 = 0;
	for (unsigned set = 0; set < TLB0_SETS; set++)
		for (unsigned way = 0; way < TLB0_WAYS; way++) {
			tlb_read(&t->tlb0[t->n0], MAS0_ESEL(way), set << 12);
			t->n0 += !!(t->tlb0[t->n0].mas1 & MAS1_V);
		}
}

static uint64_t tsz(unsigned s) { return 1024ull << (2 * s); }	/* TSIZE s: 4^s KiB */

static uint64_t entry_bytes(const struct e500_tlb_entry *e)
{
	return tsz((e->mas1 >> 8) & 0xf);
}

/* The loader's entry in AS0 that maps a 1:1 from 0 (U-Boot's DDR): RAM
 * that is known to exist when no device tree says more. */
uint32_t e500_loader_ram(void)
{
	uint32_t a = (uint32_t)__image_start;

	for (unsigned i = 0; i < 16; i++) {
		const struct e500_tlb_entry *e = &e500_loader_tlb.tlb1[i];
		uint64_t size = entry_bytes(e);
		if ((e->mas1 & (MAS1_V | MAS1_TS)) == MAS1_V && !(e->mas2 & 0xfffff000u) &&
		    !(e->mas3 & 0xfffff000u) && !e->mas7 && a < size)
			return size > (1u << 30) ? 1u << 30 : (uint32_t)size;
	}
	return 0;
}

/* A 16550 at a: its scratch register keeps what is written (the 16550
 * data sheet); nothing else in an 85xx CCSR at UART0's offset does. */
static int uart_answers(volatile uint8_t *a)
{
	uint8_t old = a[7];
	int ok;

	a[7] = 0x5a;
	ok = a[7] == 0x5a;
	a[7] = 0xa5;
	ok = ok && a[7] == 0xa5;
	a[7] = old;
	return ok;
}

/* The loader's CCSR mapping: a valid 1 MiB AS0 entry, caching inhibited
 * and guarded, whose UART0 answers.  U-Boot maps the CCSR so (its
 * CONFIG_SYS_CCSRBAR); only for saying why we stop. */
uint64_t e500_loader_ccsr(uint32_t *va)
{
	for (unsigned i = 0; i < 16; i++) {
		const struct e500_tlb_entry *e = &e500_loader_tlb.tlb1[i];
		if ((e->mas1 & (MAS1_V | MAS1_TS)) != MAS1_V || ((e->mas1 >> 8) & 0xf) != TSIZE_1M ||
		    (e->mas2 & (MAS2_I | MAS2_G)) != (MAS2_I | MAS2_G))
			continue;
		*va = e->mas2 & 0xfffff000u;
		if (uart_answers((volatile uint8_t *)(*va + E500_UART0_OFF)))
			return (uint64_t)e->mas7 << 32 | (e->mas3 & 0xfffff000u);
	}
	return 0;
}

/* RAM's entries: the largest power of 4 KiB that fits what is left, up
 * to E500_RAM_ENTRIES of them (each then aligned to its size, as the
 * ones before are multiples of it). */
static void plan_ram(uint64_t ram_bytes)
{
	struct e500_ram_map *r = &e500_ram;
	uint64_t left = ram_bytes > (1u << 30) ? 1u << 30 : ram_bytes;

	memset(r, 0, sizeof(*r));
	while (r->n < E500_RAM_ENTRIES && left >= 4096) {
		unsigned s = TSIZE_1G;
		while (tsz(s) > left)
			s--;
		r->base[r->n] = r->bytes;
		r->tsize[r->n++] = s;
		r->bytes += tsz(s);
		left -= tsz(s);
	}
	r->as1_first = 16 - r->n;
}

static unsigned ram_esel(unsigned i)
{
	return i ? ESEL_PINS + i - 1 : ESEL_RAM;
}

void e500_write_ram(int as1)
{
	const struct e500_ram_map *r = &e500_ram;

	for (unsigned i = 0; i < r->n; i++) {
		uint32_t mas1 = MAS1_V | MAS1_IPROT | MAS1_TSIZE(r->tsize[i]);
		if (as1)
			e500_tlbwe(MAS0_TLBSEL1 | MAS0_ESEL(r->as1_first + i), mas1 | MAS1_TS, r->base[i],
				   r->base[i] | MAS3_SX | MAS3_SW | MAS3_SR, 0);
		else
			e500_tlbwe(MAS0_TLBSEL1 | MAS0_ESEL(ram_esel(i)), mas1, r->base[i],
				   r->base[i] | E500_BOOT_RAM_MAS3, 0);
	}
}

void e500_clear_as1_ram(void)
{
	for (unsigned e = e500_ram.as1_first; e < 16; e++)
		e500_tlbwe(MAS0_TLBSEL1 | MAS0_ESEL(e), 0, 0, 0, 0);
}

/* 0, or why the boot translation could not be made (nothing changed). */
const char *e500_boot_translation(uint64_t ram_bytes, uint64_t ccsr_pa)
{
	struct e500_ram_map *r = &e500_ram;
	unsigned valid = 0;

	for (unsigned i = 0; i < 16; i++)
		valid += !!(e500_loader_tlb.tlb1[i].mas1 & MAS1_V);
	plan_ram(ram_bytes);
	/* The image, its stack and heap in the first entry: tlbswitch.S and
	 * return.S run on it alone in address space 1. */
	if (!r->n || (uintptr_t)__free_ram_start > tsz(r->tsize[0]))
		return "RAM too small for the image in one TLB1 entry";
	uint32_t temp = e500_tlb_switch(MAS1_V | MAS1_IPROT | MAS1_TSIZE(r->tsize[0]),
			MAS1_V | MAS1_IPROT | MAS1_TSIZE(TSIZE_1M),
			E500_CCSR_VA | MAS2_I | MAS2_G,
			((uint32_t)ccsr_pa & 0xfffff000u) | MAS3_SR | MAS3_SW,
			(uint32_t)(ccsr_pa >> 32));
	if (temp == ~0u)
		return "tlbsx finds no TLB1 entry that maps the image (the loader runs it from TLB0?)";
	/* The stepping stone goes before the AS1 entries come: two valid
	 * entries for one address give an undefined translation (E500CORERM
	 * 12.3.3, "multiple hits"). */
	e500_tlbwe(MAS0_TLBSEL1 | MAS0_ESEL(temp), 0, 0, 0, 0);
	e500_write_ram(0);
	e500_write_ram(1);
	/* e500v2 compares a TID with PID0, PID1 and PID2 (E500CORERM 12.1.6):
	 * ours are all 0, tagged spaces use PID0 alone. */
	mtspr(SPR_PID, 0);
	mtspr(SPR_PID1, 0);
	mtspr(SPR_PID2, 0);
	__asm__ volatile("isync");
	int n = snprintf(text[0], sizeof(text[0]), "the loader's %u valid TLB1 and %u valid TLB0 "
			 "entries replaced: RAM 0-0x%08lx 1:1 in %u entr%s (", valid, e500_loader_tlb.n0,
			 (unsigned long)r->bytes - 1, r->n, r->n > 1 ? "ies" : "y");
	for (unsigned i = 0; i < r->n; i++)
		n += snprintf(text[0] + n, sizeof(text[0]) - n, "%s%lu MiB at TLB1[%u]", i ? ", " : "",
			      (unsigned long)(tsz(r->tsize[i]) >> 20), ram_esel(i));
	snprintf(text[0] + n, sizeof(text[0]) - n, "; rounded down)");
	snprintf(text[1], sizeof(text[1]), "TLB1[%d] the CCSR at 0x%08lx (physical 0x%llx, I|G), "
		 "TLB1[%u-15] RAM in AS1", ESEL_CCSR, (unsigned long)E500_CCSR_VA,
		 (unsigned long long)ccsr_pa, r->as1_first);
	return 0;
}
