/* The ref405ep stand-in, part two: the state a U-Boot on a 405 leaves at
 * go and bootm, per version, and what it checks after a return.
 *
 *   U-Boot 1.1.4 (walnut): DCCR 0, ICCR 0x80000001, DCWR 0, SGR 0;
 *   U-Boot 2017 (4xx):     DCCR 0, ICCR 0xC0000001, DCWR 0, SGR 0;
 *   both: the exception vectors at physical 0 (EVPR 0), a 1 ms PIT tick
 *   with auto-reload, MSR[EE] on at go.
 *
 * The vectors are assembled as one block and copied to 0, so they branch
 * absolutely (ba) into the shim at 0x100000. */
#include "ppc405-shim.h"

int uboot1, uboot2017, mhz, junktlb, ram_mib, uicirq;
volatile uint32_t pit_ticks, ext_irqs, pit_tb_last, pit_period_seen;
void shim_unexpected(uint32_t vector, uint32_t srr0);

/* The PIT's handler counts ticks, keeps the timebase between the last
 * two (the tick's period as the shim sees it) and clears TSR[PIS];
 * the external one counts and clears UIC_SOURCE's status; every other
 * vector reports itself and stops.  CR is never touched (addi, subf). */
#define VEC(off) ".org " #off "\n li 3, " #off "\n mfspr 4, 26\n ba shim_unexpected\n"
__asm__(".section .text.shimvec, \"ax\"\n"	/* .org counts from here */
	".align 8\n"
	".globl shim_vectors\n"
	"shim_vectors:\n"
	VEC(0x100) VEC(0x200) VEC(0x300) VEC(0x400)
	".org 0x500\n"
	"	ba shim_ext\n"
	VEC(0x600) VEC(0x700) VEC(0x800) VEC(0x900) VEC(0xc00) VEC(0xd00) VEC(0xf00)
	".org 0x1000\n"			/* PIT: 4 words until FIT's vector */
	"	ba shim_pit\n"
	VEC(0x1010) VEC(0x1020) VEC(0x1100) VEC(0x1200) VEC(0x2000)
	".globl shim_vectors_end\n"
	"shim_vectors_end:\n"
	"shim_pit:\n"
	"	mtspr 272, 3\n"		/* SPRG0..2: scratch */
	"	mtspr 273, 4\n"
	"	mtspr 274, 5\n"
	"	lis 3, pit_ticks@ha\n"
	"	lwz 4, pit_ticks@l(3)\n"
	"	addi 4, 4, 1\n"
	"	stw 4, pit_ticks@l(3)\n"
	"	mftb 4\n"
	"	lis 3, pit_tb_last@ha\n"
	"	lwz 5, pit_tb_last@l(3)\n"
	"	stw 4, pit_tb_last@l(3)\n"
	"	subf 5, 5, 4\n"		/* this tick's timebase less the last's */
	"	lis 3, pit_period_seen@ha\n"
	"	stw 5, pit_period_seen@l(3)\n"
	"	lis 4, 0x0800\n"	/* TSR[PIS]: write 1 to clear */
	"	mtspr 984, 4\n"
	"	mfspr 5, 274\n"
	"	mfspr 4, 273\n"
	"	mfspr 3, 272\n"
	"	rfi\n"
	"shim_ext:\n"
	"	mtspr 272, 3\n"
	"	mtspr 273, 4\n"
	"	lis 3, ext_irqs@ha\n"
	"	lwz 4, ext_irqs@l(3)\n"
	"	addi 4, 4, 1\n"
	"	stw 4, ext_irqs@l(3)\n"
	"	lis 4, 0x0010\n"	/* UIC_SOURCE */
	"	mtdcr 0xc0, 4\n"	/* UIC0_SR: write 1 to clear */
	"	mfspr 4, 273\n"
	"	mfspr 3, 272\n"
	"	rfi\n"
	".previous\n");
extern char shim_vectors[], shim_vectors_end[];

/* Physical 0, through an asm so that the compiler sees no null pointer. */
static volatile uint32_t *phys0(void)
{
	volatile uint32_t *p;
	__asm__("li %0, 0" : "=r"(p));
	return p;
}

static uint32_t vectors_sum(void)
{
	uint32_t sum = 0, n = (shim_vectors_end - shim_vectors) / 4;
	for (volatile uint32_t *p = phys0(); n--; p++)
		sum = sum * 31 + *p;
	return sum;
}

void fw_read(struct fwstate *f)
{
	f->msr = mfmsr();
	f->evpr = mfspr(SPR_EVPR);
	f->tcr = mfspr(SPR_TCR);
	f->dccr = mfspr(SPR_DCCR);
	f->iccr = mfspr(SPR_ICCR);
	f->dcwr = mfspr(SPR_DCWR);
	f->sgr = mfspr(SPR_SGR);
	f->uic_er = mfdcr(DCR_UIC0_ER);
	f->vec_sum = vectors_sum();
}

/* Wait for n more PIT ticks, at most 20 ms of timebase; the ticks seen. */
uint32_t wait_ticks(uint32_t n)
{
	uint32_t t0 = pit_ticks, start = tb();
	while (pit_ticks - t0 < n && tb() - start < 20 * PIT_1MS)
		;
	return pit_ticks - t0;
}

/* The vectors to physical 0, as U-Boot's trap_init copies its own. */
static void vectors_to_0(void)
{
	uint32_t n = shim_vectors_end - shim_vectors;
	volatile uint32_t *v = phys0();
	for (uint32_t i = 0; i < n / 4; i++)
		v[i] = ((const uint32_t *)shim_vectors)[i];
	for (uint32_t a = 0; a < n; a += 32)
		__asm__ volatile("dcbst %0, %1; sync; icbi %0, %1" : : "b"(v), "r"(a) : "memory");
	__asm__ volatile("sync; isync");
	mtspr(SPR_EVPR, 0);
}

/* U-Boot's cache registers, vectors and interrupt_init on a 405: a 1 ms
 * PIT with auto-reload, interrupts on; with uicirq, a UIC source enabled
 * as its EMAC driver leaves it (not pending yet: see uic_source_pending). */
void firmware_setup(void)
{
	if (!uboot1 && !uboot2017)
		return;
	mtspr(SPR_DCCR, 0);
	mtspr(SPR_ICCR, uboot1 ? 0x80000001u : 0xc0000001u);
	mtspr(SPR_DCWR, 0);
	mtspr(SPR_SGR, 0);
	vectors_to_0();
	if (uicirq)
		mtdcr(DCR_UIC0_ER, UIC_SOURCE);
	mtspr(SPR_PIT, PIT_1MS);
	mtspr(SPR_TCR, 0x04000000u | 0x00400000u);	/* PIE | ARE */
	mtmsr(mfmsr() | MSR_EE);
	uint32_t n = wait_ticks(2);
	puts_("shim: PIT interrupt live, MSR[EE] on: ");
	puthex(n);
	puts_(" ticks in the first wait\n");
}

/* The enabled source goes pending; the caller has MSR[EE] off (with it on
 * the shim's own handler would take it at once). */
void uic_source_pending(void)
{
	mtdcr(DCR_UIC0_SRS, UIC_SOURCE);
	puts_("shim: UIC0 source 11 (MAL RX end of buffer) enabled and pending: UIC0_ER ");
	puthex(mfdcr(DCR_UIC0_ER));
	puts_(" SR ");
	puthex(mfdcr(DCR_UIC0_SR));
	puts_("\n");
}

/* Junk in every TLB entry: TIDs 1..255, some valid, sizes 4K..16M, PID
 * left at a junk value.  Never SIZE=1K (0) or E=1: QEMU aborts on them. */
void junk_tlb(void)
{
	for (uint32_t i = 0; i < 64; i++) {
		uint32_t tid = (i * 37 + 1) & 0xff, size = 1 + i % 7;
		uint32_t hi = (i << 24 & 0xff000000u) | size << 7 | (i & 1 ? 0x40 : 0);
		uint32_t lo = ((i * 0x01230000u) & 0xfffffc00u) | 0x300;
		mtspr(SPR_PID, tid);
		__asm__ volatile("tlbwe %0, %1, 1" : : "r"(lo), "r"(i));
		__asm__ volatile("tlbwe %0, %1, 0" : : "r"(hi), "r"(i));
	}
	mtspr(SPR_PID, 0x5a);
	__asm__ volatile("isync");
	puts_("shim: TLB filled with junk (TIDs, valid bits), PID 0x5a\n");
}

int shim_check(const char *what, uint32_t got, uint32_t want)
{
	if (got == want)
		return 0;
	puts_("shim: after return: ");
	puts_(what);
	puts_(" is ");
	puthex(got);
	puts_(", was ");
	puthex(want);
	puts_("\n");
	return 1;
}

/* The registers U-Boot relies on after go; the number that differ. */
int fw_check(const struct fwstate *b, const struct fwstate *a)
{
	return shim_check("MSR", a->msr, b->msr) + shim_check("EVPR", a->evpr, b->evpr) +
	       shim_check("TCR", a->tcr, b->tcr) + shim_check("DCCR", a->dccr, b->dccr) +
	       shim_check("ICCR", a->iccr, b->iccr) + shim_check("DCWR", a->dcwr, b->dcwr) +
	       shim_check("SGR", a->sgr, b->sgr) + shim_check("UIC0_ER", a->uic_er, b->uic_er) +
	       shim_check("vector checksum", a->vec_sum, b->vec_sum);
}
