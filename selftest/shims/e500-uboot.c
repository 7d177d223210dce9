/*
 * A stand-in for a Freescale U-Boot (P2020RDB, MPC8548CDS, MPC8572DS) on
 * QEMU's ppce500 (-cpu e500v2): it leaves the state such a U-Boot leaves
 * at bootm and go, which QEMU's own boot does not.  QEMU boots this shim
 * with -kernel (r3 = QEMU's device tree, -append in its /chosen bootargs,
 * one TLB1 entry mapping RAM); the image is already in RAM through QEMU's
 * loader device.  The command line is [VARIANT...] COMMAND ADDR ARGS...:
 *
 *   bootm ADDR ARGS...  ePAPR entry at ADDR: r3 = the device tree as bootm
 *                       fixes it, with ARGS as its /chosen bootargs (what
 *                       U-Boot's bootargs variable puts there), r6 = the
 *                       ePAPR magic, r7 = bootm's map size (64 MiB, the
 *                       tree just below it, as boot_relocate_fdt puts it)
 *   go ADDR ARGS...     U-Boot's go: r3 = argc, r4 = argv (argv[0] "ADDR"),
 *                       r2 = gd, r13..r31 known values.  A word holding
 *                       ${fdtcontroladdr} gets the tree's address (hex, as
 *                       U-Boot prints it; the tree bootm would pass).  On
 *                       return: "## Application terminated, rc = 0x..",
 *                       what U-Boot relies on compared with before the
 *                       jump, and "shim: verdict: PASS" or "FAIL (...)"
 *
 * VARIANTs, each one item of a Freescale U-Boot's state, alone or together
 * (uboot: msr spin tlb wdt mpic):
 *   msr      U-Boot's MSR (CE, ME, DE on); bootm clears ME and CE
 *            (arch_preboot_os), go keeps them, with EE on unless mpic
 *   spin     a second core's boot page, the last 4 KiB of RAM (mp.c
 *            determine_mp_bootpg): a canary, a spin table with cpu 1's
 *            entry not released; the tree's cpu-release-addr points there
 *            and its reserve map holds the page (ft_fixup_cpu).  -smp 2
 *   tlb      U-Boot's TLB1, every entry IPROT: flash at 0xef000000, the
 *            CCSR at 0xffe00000, DDR 1:1 from 0 in entries rounded down
 *            (setup_ddr_tlbs) from TLB1[8]; a CPLD page in TLB0
 *   tlb15    tlb, and TLB1[15] valid too (a PCI I/O window)
 *   ram96    a 96 MiB board: /memory says so (DDR entries 64+16+16 MiB)
 *   wdt      the core watchdog armed to reset (init_85xx_watchdog)
 *   mpic     an MPIC IPI pending at CPU 0, CTPR 0 (interrupt_init), EE off
 *   nofdt    bootm without a tree: r3 = bd_t, r6/r7 = ARGS (the old bootm)
 *   ctltree  the tree before bootm's fixups: /memory reg and the cpus'
 *            clock-frequency and timebase-frequency are FDT_NOP tokens
 *
 * Always: the CCSR mapped at 0xffe00000 (TLB1[1]) and our vectors (IVPR).
 * Linked at 80 MiB (the Makefile), its stack just below: QEMU puts its
 * tree 24 MiB past the ELF's end, which must stay inside 128 MiB.  After
 * bootm nothing of the shim is needed but the boot page.
 */
#include <stdarg.h>
#include <stdint.h>
#include "../../arch/e500/e500.h"
#include "../../arch/e500/fdt.h"

#define EPAPR_MAGIC	0x45504150u	/* bootm's r6 with a device tree */
#define MAS3_SRWX	0x15u
#define MAS3_SRW	0x05u
#define MAS3_SRX	0x11u

/* Where U-Boot maps things (P2020RDB's 36-bit configuration), and what
 * lies there in QEMU 7.2's ppce500 (hw/ppc/e500.c, e500plat.c). */
#define CCSR_VA		0xffe00000u
#define CCSR_PA_HI	0xfu		/* the CCSR at 0xf_e000_0000 */
#define CCSR_PA_LO	0xe0000000u
#define UART		((volatile uint8_t *)(CCSR_VA + 0x4500))
#define MPIC(off)	(*(volatile uint32_t *)(CCSR_VA + 0x40000 + (off)))
#define GPIO(off)	(*(volatile uint32_t *)(CCSR_VA + 0xff000 + (off)))
#define FLASH_VA	0xef000000u	/* 16 MiB (P2020RDB's; at 0xff000000 it would
					 * overlap the CCSR), physical the same: nothing
					 * answers there in QEMU */
#define CPLD_VA		0xffa00000u	/* TLB0: 4 KiB, the CCSR's GUTS page behind it */
#define PCIIO_VA	0xffc00000u	/* tlb15: 256 KiB, QEMU's PCI I/O 0xf_e100_0000 */
#define ESEL_FLASH	0
#define ESEL_DDR	8
#define ESEL_PCIIO	15

#define BOOTMAP		(64u << 20)	/* CONFIG_SYS_BOOTMAPSZ: bootm's r7 */
#define SPIN_OFF	0x100		/* the spin table in the boot page */
#define SPIN_ENTRY	32		/* ePAPR's 24 bytes and U-Boot's r6 (mp.h) */
#define CANARY		0xb007ca9eu
#define IPI_VECTOR	0x42u
#define MPIC_IPIVPR0	0x10a0		/* IPI 0's vector/priority; bit 30 active */
#define MPIC_CPU0	0x20000		/* CPU 0's registers: IPIDR0 0x40, CTPR 0x80 */

/* U-Boot's TCR_WDT_PERIOD(x) for the e500: the watchdog counts 2^x timebase ticks
 * (WP || WPEXT = 64 - x selects the bit, E500CORERM 2.8.1); WRC 2: chip
 * reset.  2^30 ticks: 2.7 s at QEMU's 400 MHz.  QEMU 7.2 only stores TCR
 * (hw/ppc/ppc_booke.c): its watchdog never sets TSR[ENW,WIS] or resets,
 * so nothing but the image's own report shows the watchdog serviced. */
#define WDT_PRESC	30
#define TCR_WDT_PERIOD(x)	((((64u - (x)) & 3u) << 30) | ((((64u - (x)) >> 2) & 0xfu) << 17))
#define TCR_WRC_CHIP	0x20000000u
#define TSR_ENW_WIS	0xc0000000u


static int v_msr, v_spin, v_tlb, v_tlb15, v_ram96, v_wdt, v_mpic, v_nofdt, v_ctltree;
static uint32_t ram_bytes, bootpg, tree_bytes, cpus_released;
static char line[1024], args[1024], expanded[256];
static char *words[64];
static uint8_t tree[16384] __attribute__((aligned(8)));	/* go's ${fdtcontroladdr} */
static uint32_t gd[16];
uint32_t regs_after[21], saved_sp;			/* e500-uboot.S */
volatile uint32_t ext_count, ext_vector;		/* its IVOR4 handler */
extern char shim_vec[];

uint32_t shim_call(uint32_t entry, int argc, char **argv, uint32_t r2);
void shim_msr(uint32_t msr);
void shim_main(uint8_t *qtree);
void shim_unexpected(uint32_t vec, uint32_t srr0, uint32_t csrr0, uint32_t mcsrr0);

/* GCC may call these for copies and clearing even with -ffreestanding. */
void *memcpy(void *d, const void *s, unsigned long n);
void *memset(void *d, int c, unsigned long n);
void *memcpy(void *d, const void *s, unsigned long n)
{
	uint8_t *dp = d;
	const uint8_t *sp = s;
	while (n--)
		*dp++ = *sp++;
	return d;
}

void *memset(void *d, int c, unsigned long n)
{
	uint8_t *dp = d;
	while (n--)
		*dp++ = c;
	return d;
}

static uint32_t slen(const char *s)
{
	uint32_t n = 0;
	while (s[n])
		n++;
	return n;
}

/* Hex digits, with or without 0x, as U-Boot takes addresses. */
static uint32_t hexnum(const char *s)
{
	uint32_t v = 0;
	if (s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	for (; *s; s++)
		v = v * 16 + (*s <= '9' ? *s - '0' : (*s | 0x20) - 'a' + 10);
	return v;
}

static int streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* The console: QEMU's 16550 needs no set-up (U-Boot's would be done). */
static void putc_(char c)
{
	for (int i = 0; i < 100000 && !(UART[5] & 0x20); i++)
		;
	UART[0] = c;
}

static void puts_(const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			putc_('\r');
		putc_(*s);
	}
}

/* v in hex: 8 digits with 0x (width 8), else as short as it goes. */
static char *hex(char *buf, uint32_t v, int width, int upper)
{
	const char *d = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0, i = 28;
	if (width)
		buf[n++] = '0', buf[n++] = 'x';
	while (!width && i > 0 && !(v >> i))
		i -= 4;
	for (; i >= 0; i -= 4)
		buf[n++] = d[(v >> i) & 15];
	buf[n] = 0;
	return buf;
}

/* printf's little brother: %s, %u, %x (0x and 8 digits), %X (upper case,
 * no 0x, as short as it goes: U-Boot's rc). */
static void pr(const char *fmt, ...)
{
	char b[12];
	va_list ap;

	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			char c[2] = { *fmt, 0 };
			puts_(c);
			continue;
		}
		uint32_t v = *++fmt == 's' ? 0 : va_arg(ap, uint32_t);
		int n = 11;
		switch (*fmt) {
		case 's':
			puts_(va_arg(ap, const char *));
			break;
		case 'u':
			b[n] = 0;
			do
				b[--n] = '0' + v % 10;
			while (v /= 10);
			puts_(b + n);
			break;
		default:
			puts_(hex(b, v, *fmt == 'x' ? 8 : 0, *fmt == 'X'));
		}
	}
	va_end(ap);
}

/* QEMU's gpio-poweroff (GPIO pin 0, CCSR + 0xff000): QEMU ends, status 0. */
static void __attribute__((noreturn)) power_off(void)
{
	for (int i = 0; i < 100000 && !(UART[5] & 0x40); i++)
		;
	GPIO(0) |= 0x80000000u;		/* GPDIR: pin 0 an output */
	GPIO(8) |= 0x80000000u;		/* GPDAT: high */
	for (;;)
		;
}

void shim_unexpected(uint32_t vec, uint32_t srr0, uint32_t csrr0, uint32_t mcsrr0)
{
	pr("shim: unexpected interrupt IVOR%u, SRR0 %x CSRR0 %x MCSRR0 %x\n", vec, srr0, csrr0, mcsrr0);
	power_off();
}

static void __attribute__((noreturn)) fail(const char *why)
{
	pr("shim: %s\n", why);
	power_off();
}

/* ---- TLB ---- */

struct tlbe { uint32_t mas1, mas2, mas3, mas7; };
struct tlbdump { struct tlbe t1[16], t0[512]; };
static struct tlbdump before, after;

static void tlbre(struct tlbe *e, uint32_t mas0, uint32_t mas2)
{
	mtspr(SPR_MAS0, mas0);
	mtspr(SPR_MAS2, mas2);
	__asm__ volatile("isync; tlbre; isync" ::: "memory");
	e->mas1 = mfspr(SPR_MAS1);
	e->mas2 = mfspr(SPR_MAS2);
	e->mas3 = mfspr(SPR_MAS3);
	e->mas7 = mfspr(SPR_MAS7);
}

/* All of TLB1 and TLB0: a TLB0 way is read with MAS0[ESEL] = the way and
 * MAS2[EPN] naming the set (E500CORERM 12.3.2; 128 sets of 4). */
static void tlb_dump(struct tlbdump *d)
{
	for (unsigned i = 0; i < 16; i++)
		tlbre(&d->t1[i], MAS0_TLBSEL1 | MAS0_ESEL(i), 0);
	for (unsigned set = 0; set < 128; set++)
		for (unsigned way = 0; way < 4; way++)
			tlbre(&d->t0[set * 4 + way], MAS0_ESEL(way), set << 12);
}

/* Two invalid entries are equal whatever else they hold. */
static int tlbe_same(const struct tlbe *a, const struct tlbe *b)
{
	if (!(a->mas1 & MAS1_V) && !(b->mas1 & MAS1_V))
		return 1;
	return a->mas1 == b->mas1 && a->mas2 == b->mas2 && a->mas3 == b->mas3 && a->mas7 == b->mas7;
}

static void put_tlbe(const char *before, int tlb1, unsigned i, const struct tlbe *e)
{
	if (tlb1)
		pr("%sTLB1[%u]", before, i);
	else
		pr("%sTLB0 set %u way %u", before, i / 4, i % 4);
	pr(": MAS1 %x MAS2 %x MAS3 %x MAS7 %x", e->mas1, e->mas2, e->mas3, e->mas7);
}

static void put_valid(const struct tlbdump *d, const char *prefix)
{
	for (unsigned i = 0; i < 16 + 512; i++) {
		const struct tlbe *e = i < 16 ? &d->t1[i] : &d->t0[i - 16];
		if (e->mas1 & MAS1_V) {
			put_tlbe(prefix, i < 16, i < 16 ? i : i - 16, e);
			pr("\n");
		}
	}
}

/* Entries that differ, printed (the first 20); their number. */
static unsigned tlb_diff(int tlb1, const struct tlbe *b, const struct tlbe *a, unsigned n)
{
	unsigned bad = 0;
	for (unsigned i = 0; i < n; i++) {
		if (tlbe_same(&b[i], &a[i]) || ++bad > 20)
			continue;
		put_tlbe("shim: after return: ", tlb1, i, &b[i]);
		pr(" before the jump, now MAS1 %x MAS2 %x MAS3 %x MAS7 %x\n", a[i].mas1, a[i].mas2,
		   a[i].mas3, a[i].mas7);
	}
	return bad;
}

/* The CCSR at 0xffe00000 (1 MiB, I|G), always: QEMU's own boot maps RAM
 * only, and U-Boot's console lives here. */
static void map_ccsr(void)
{
	e500_tlbwe(MAS0_TLBSEL1 | MAS0_ESEL(ESEL_CCSR), MAS1_V | MAS1_IPROT | MAS1_TSIZE(5),
	      CCSR_VA | MAS2_I | MAS2_G, CCSR_PA_LO | MAS3_SRW, CCSR_PA_HI);
}

/* U-Boot's TLB: DDR as setup_ddr_tlbs maps it (the largest 4^n KiB page,
 * up to 1 GiB, that fits what is left: rounded down, never past RAM),
 * then QEMU's own RAM entry (TLB1[0]) becomes the flash's.  Until then it
 * and the DDR entries map the same addresses identically: QEMU takes the
 * first match, real hardware would want the AS switch U-Boot's start.S
 * makes. */
static void uboot_tlb(void)
{
	uint32_t a = 0;
	unsigned esel = ESEL_DDR;

	while (a < ram_bytes && esel < 14) {
		unsigned s = 10;
		while ((1024u << 2 * s) > ram_bytes - a || (a & ((1024u << 2 * s) - 1)))
			s--;
		e500_tlbwe(MAS0_TLBSEL1 | MAS0_ESEL(esel++), MAS1_V | MAS1_IPROT | MAS1_TSIZE(s), a | MAS2_M,
		      a | MAS3_SRWX, 0);
		a += 1024u << 2 * s;
	}
	e500_tlbwe(MAS0_TLBSEL1 | MAS0_ESEL(ESEL_FLASH), MAS1_V | MAS1_IPROT | MAS1_TSIZE(7),
	      FLASH_VA | MAS2_I | MAS2_G, FLASH_VA | MAS3_SRX, 0);
	/* A CPLD/PIXIS page, as the MPC8572DS's board tlb.c puts in TLB0
	 * (set 0 by its EPN, way 1); no IPROT in TLB0. */
	e500_tlbwe(MAS0_ESEL(1), MAS1_V | MAS1_TSIZE(1), CPLD_VA | MAS2_I | MAS2_G,
	      (CCSR_PA_LO + 0xe0000) | MAS3_SRW, CCSR_PA_HI);
	if (v_tlb15)
		e500_tlbwe(MAS0_TLBSEL1 | MAS0_ESEL(ESEL_PCIIO), MAS1_V | MAS1_IPROT | MAS1_TSIZE(4),
		      PCIIO_VA | MAS2_I | MAS2_G, 0xe1000000u | MAS3_SRW, CCSR_PA_HI);
}

/* ---- the device tree ---- */

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24, p[1] = v >> 16, p[2] = v >> 8, p[3] = v;
}

static uint32_t up4(uint32_t n)
{
	return (n + 3) & ~3u;
}

/* name is what, or what@unit */
static int node_is(const char *name, const char *what)
{
	while (*what && *name == *what)
		name++, what++;
	return !*what && (!*name || *name == '@');
}

/* A property's words, its token included, as FDT_NOPs (the
 * devicetree.org specification 5.4.1: a reader skips them). */
static void nop_out(uint8_t *tok, uint32_t from, uint32_t to)
{
	for (uint32_t o = from; o < to; o += 4)
		put32(tok + o, FDT_NOP);
}

typedef void prop_fn(const char *parent, const char *node, const char *name, uint8_t *val,
		     uint32_t len, uint8_t *tok);

/* Every property with its node's and parent's names (the root's is "");
 * fn may rewrite it in place, never longer.  0, or why not. */
static const char *fdt_walk(uint8_t *b, prop_fn *fn)
{
	uint32_t total = be32(b + 4), p = be32(b + 8), strings = be32(b + 12);
	const char *name[10] = { "" };
	int depth = 0;

	if (be32(b) != FDT_MAGIC)
		return "no device tree (magic)";
	while (p + 4 <= total) {
		uint32_t tok = be32(b + p), len;
		switch (tok) {
		case FDT_BEGIN_NODE:
			if (++depth >= 10)
				return "device tree nested too deep";
			name[depth] = (const char *)b + p + 4;
			p = up4(p + 4 + slen(name[depth]) + 1);
			break;
		case FDT_END_NODE:
			depth--;
			p += 4;
			break;
		case FDT_PROP:
			len = be32(b + p + 4);
			fn(name[depth - 1], name[depth], (const char *)b + strings + be32(b + p + 8),
			   b + p + 12, len, b + p);
			p = up4(p + 12 + len);
			break;
		case FDT_NOP:
			p += 4;
			break;
		case FDT_END:
			return 0;
		default:
			return "device tree: unknown token";
		}
	}
	return "device tree runs past its end";
}

/* QEMU's tree: the command line (-append), RAM. */
static void scan(const char *parent, const char *node, const char *name, uint8_t *val,
		 uint32_t len, uint8_t *tok)
{
	(void)tok;
	if (!*parent && node_is(node, "chosen") && streq(name, "bootargs"))
		for (uint32_t i = 0; i < len && val[i] && i < sizeof(line) - 1; i++)
			line[i] = val[i];
	if (!*parent && node_is(node, "memory") && streq(name, "reg"))
		ram_bytes = len == 16 ? be32(val + 12) : len == 8 ? be32(val + 4) : 0;
}

/* bootm's fixups on our copy: bootargs (fdt_chosen), /memory for ram96
 * (fdt_fixup_memory), each cpu's cpu-release-addr at its spin table entry
 * (ft_fixup_cpu); ctltree undoes /memory and the clocks instead. */
static void fixup(const char *parent, const char *node, const char *name, uint8_t *val,
		  uint32_t len, uint8_t *tok)
{
	if (!*parent && node_is(node, "chosen") && streq(name, "bootargs")) {
		uint32_t n = slen(args) + 1;
		if (n > len)
			fail("bootargs longer than QEMU's -append");
		put32(tok + 4, n);
		memset(val, 0, up4(n));
		memcpy(val, args, n);
		nop_out(tok, 12 + up4(n), 12 + up4(len));
	} else if (!*parent && node_is(node, "memory") && streq(name, "reg")) {
		if (v_ctltree)
			nop_out(tok, 0, 12 + up4(len));
		else if (len == 16)
			put32(val + 12, ram_bytes);
	} else if (streq(parent, "cpus") && v_ctltree &&
		   (streq(name, "clock-frequency") || streq(name, "timebase-frequency"))) {
		nop_out(tok, 0, 12 + up4(len));
	} else if (streq(parent, "cpus") && v_spin && streq(name, "cpu-release-addr") && len == 8) {
		const char *unit = node;	/* PowerPC,8544@1: cpu 1 */
		while (*unit && *unit++ != '@')
			;
		uint32_t cpu = hexnum(unit);
		put32(val, 0);
		put32(val + 4, bootpg + SPIN_OFF + SPIN_ENTRY * cpu);
		cpus_released++;
	}
}

/* QEMU's tree into dst, cut to its contents (QEMU pads it to 1 MiB), with
 * one more reserve map entry when size: fdt_add_mem_rsv's result, the
 * structure and strings blocks 16 bytes further.  Its size, or 0. */
static uint32_t tree_copy(uint8_t *dst, uint32_t room, const uint8_t *src, uint32_t addr,
			  uint32_t size)
{
	uint32_t rsv = be32(src + 16), st = be32(src + 8), str = be32(src + 12);
	uint32_t end = str + be32(src + 32), p = rsv, add = size ? 16 : 0;

	while (p < st && (be32(src + p + 4) | be32(src + p + 12)))
		p += 16;		/* to the terminating entry (sizes below 4 GiB) */
	if (be32(src) != FDT_MAGIC || p + 16 > st || st > str || end + add > room)
		return 0;
	memcpy(dst, src, p);
	if (add) {
		put32(dst + p, 0);
		put32(dst + p + 4, addr);
		put32(dst + p + 8, 0);
		put32(dst + p + 12, size);
	}
	memcpy(dst + p + add, src + p, end - p);
	put32(dst + 4, end + add);	/* totalsize */
	put32(dst + 8, st + add);
	put32(dst + 12, str + add);
	return end + add;
}

/* ---- the rest of U-Boot's state ---- */

/* A second core's boot page (mp.c, release.S): code U-Boot copied there,
 * here nops with a canary first and the reset vector's branch last; the
 * spin table, one entry a core: 64-bit entry address (1: not released),
 * r3, reserved, PIR (ePAPR 1.1 5.5.2), then r6. */
static void bootpg_setup(void)
{
	volatile uint32_t *p = (volatile uint32_t *)bootpg;

	for (unsigned i = 0; i < 1024; i++)
		p[i] = 0x60000000u;		/* nop */
	p[0] = CANARY;
	p[1023] = 0x48000000u;			/* b . */
	for (unsigned cpu = 0; cpu < 2; cpu++) {
		volatile uint32_t *e = p + (SPIN_OFF + SPIN_ENTRY * cpu) / 4;
		e[0] = 0, e[1] = 1;
		e[2] = e[3] = e[4] = 0;
		e[5] = cpu;
		e[6] = e[7] = 0;
	}
}

static uint32_t bootpg_sum(void)
{
	uint32_t s = 0;
	if (v_spin)
		for (unsigned i = 0; i < 1024; i++)
			s = s * 31 + ((volatile uint32_t *)bootpg)[i];
	return s;
}

/* Our vectors: IVPR their 64 KiB page, an IVOR per stub, 16 bytes apart
 * (e500-uboot.S); IVOR32-35 the SPE's and performance monitor's. */
static void vectors(void)
{
	uint32_t v = (uint32_t)shim_vec;
#define IVOR(spr, k) mtspr(spr, (v + 16 * (k)) & 0xfff0u)
	mtspr(SPR_IVPR, v & 0xffff0000u);
	IVOR(400, 0); IVOR(401, 1); IVOR(402, 2); IVOR(403, 3); IVOR(404, 4); IVOR(405, 5);
	IVOR(406, 6); IVOR(407, 7); IVOR(408, 8); IVOR(409, 9); IVOR(410, 10); IVOR(411, 11);
	IVOR(412, 12); IVOR(413, 13); IVOR(414, 14); IVOR(415, 15);
	IVOR(528, 16); IVOR(529, 17); IVOR(530, 18); IVOR(531, 19);
#undef IVOR
}

struct state { uint32_t msr, tcr, ivpr, pid, ctpr, ipivpr, bootpg, ivor[20]; };

static void state_read(struct state *s)
{
#define GET(spr, k) s->ivor[k] = mfspr(spr)
	GET(400, 0); GET(401, 1); GET(402, 2); GET(403, 3); GET(404, 4); GET(405, 5);
	GET(406, 6); GET(407, 7); GET(408, 8); GET(409, 9); GET(410, 10); GET(411, 11);
	GET(412, 12); GET(413, 13); GET(414, 14); GET(415, 15);
	GET(528, 16); GET(529, 17); GET(530, 18); GET(531, 19);
#undef GET
	s->msr = mfmsr();
	s->tcr = mfspr(SPR_TCR);
	s->ivpr = mfspr(SPR_IVPR);
	s->pid = mfspr(SPR_PID);
	s->ctpr = MPIC(MPIC_CPU0 + 0x80);
	s->ipivpr = MPIC(MPIC_IPIVPR0);
	s->bootpg = bootpg_sum();
}

/* interrupt_init: CTPR 0, every priority through; IPI 0 unmasked at
 * priority 5 and dispatched to CPU 0 (its IPIDR0), so it is pending with
 * MSR[EE] off (MPC8544ERM "Interprocessor interrupt dispatch"). */
static void mpic_setup(void)
{
	MPIC(MPIC_CPU0 + 0x80) = 0;
	MPIC(MPIC_IPIVPR0) = 5u << 16 | IPI_VECTOR;
	MPIC(MPIC_CPU0 + 0x40) = 1;
}

static void put_state(const char *what, const struct state *s)
{
	pr("shim: %s: MSR %x TCR %x TSR %x IVPR %x PID %u MPIC CTPR %u IPI0 IVPR %x", what, s->msr,
	   s->tcr, mfspr(SPR_TSR), s->ivpr, s->pid, s->ctpr, s->ipivpr);
	if (v_spin)
		pr(" canary %x", *(volatile uint32_t *)bootpg);
	pr("\n");
}

/* What failed after go's return, each once, for the verdict line. */
static const char *fails[16];
static unsigned nfails;

static void bad(const char *what)
{
	for (unsigned i = 0; i < nfails; i++)
		if (streq(fails[i], what))
			return;
	if (nfails < 16)
		fails[nfails++] = what;
}

static void check(const char *what, uint32_t got, uint32_t want, const char *fail_as)
{
	if (got == want)
		return;
	pr("shim: after return: %s is %x, was %x\n", what, got, want);
	bad(fail_as);
}

/* ---- the commands ---- */

static void cmd_go(uint32_t entry, int argc, char **argv)
{
	struct state sb, sa;

	pr("## Starting application at %x ...\n", entry);
	if (v_msr && !v_mpic)
		mtmsr(mfmsr() | MSR_EE);	/* U-Boot runs with interrupts on */
	state_read(&sb);
	tlb_dump(&before);
	uint32_t rc = shim_call(entry, argc, argv, (uint32_t)gd);
	tlb_dump(&after);
	state_read(&sa);
	/* Our console and vectors back first, whatever came back. */
	mtmsr(mfmsr() & ~MSR_EE);
	map_ccsr();
	vectors();
	pr("## Application terminated, rc = 0x%X\n", rc);
	put_valid(&after, "shim: after return: ");	/* the dump before, again */
	put_state("after return", &sa);

	check("r1", regs_after[0], saved_sp, "registers");
	check("r2", regs_after[1], (uint32_t)gd, "registers");
	for (int r = 13; r <= 31; r++) {
		char name[4] = { 'r', '0' + r / 10, '0' + r % 10, 0 };
		check(name, regs_after[2 + r - 13], 0x5a000000u | r, "registers");
	}
	if (tlb_diff(1, before.t1, after.t1, 16))
		bad("TLB1");
	if (tlb_diff(0, before.t0, after.t0, 512))
		bad("TLB0");
	check("MSR", sa.msr, sb.msr, "MSR");
	check("TCR", sa.tcr, sb.tcr, "TCR");
	check("IVPR", sa.ivpr, sb.ivpr, "vectors");
	for (int i = 0; i < 20; i++) {
		int n = i < 16 ? i : i + 16;
		char name[7] = { 'I', 'V', 'O', 'R', '0' + n / 10, '0' + n % 10, 0 };
		check(name, sa.ivor[i], sb.ivor[i], "vectors");
	}
	check("PID", sa.pid, sb.pid, "PID");
	check("MPIC CTPR", sa.ctpr, sb.ctpr, "CTPR");
	check("MPIC IPI0 IVPR", sa.ipivpr, sb.ipivpr, "IPI0");
	check("boot page checksum", sa.bootpg, sb.bootpg, "boot page");
	if (v_mpic) {
		/* The IPI still pending: taken once EE is on again. */
		mtmsr(mfmsr() | MSR_EE);
		for (uint32_t t0 = mfspr(268); mfspr(268) - t0 < 400000;)
			;
		mtmsr(mfmsr() & ~MSR_EE);
		pr("shim: after return: the pending IPI delivered %u time(s), vector %x\n", ext_count,
		   ext_vector);
		if (ext_count != 1 || ext_vector != IPI_VECTOR)
			bad("IPI not delivered once");
	}
	pr("shim: verdict: %s", nfails ? "FAIL (" : "PASS\n");
	for (unsigned i = 0; i < nfails; i++)
		pr("%s%s", i ? ", " : "", fails[i]);
	if (nfails)
		pr(")\n");
	power_off();
}

static void __attribute__((noreturn)) cmd_bootm(uint32_t entry)
{
	uint32_t r3, r6, r7;

	if (v_nofdt) {
		/* The old bootm: a bd_t (struct bd_info: RAM, flash, IMMR,
		 * the core clock at their places) and the command line,
		 * inside the boot map. */
		uint32_t *bd = (uint32_t *)(BOOTMAP - 4096);
		char *cmd = (char *)bd + 256;
		memset(bd, 0, 256);
		bd[1] = ram_bytes;
		bd[2] = FLASH_VA, bd[3] = 16u << 20;
		bd[7] = CCSR_VA;
		bd[12] = 400000000;
		memcpy(cmd, args, slen(args) + 1);
		r3 = (uint32_t)bd, r6 = (uint32_t)cmd, r7 = (uint32_t)cmd + slen(args);
		pr("## bootm without a device tree: r3 = bd_t at %x, r6/r7 = the command line\n", r3);
	} else {
		r3 = (BOOTMAP - tree_bytes) & ~0xfffu;
		memcpy((void *)r3, tree, tree_bytes);
		r6 = EPAPR_MAGIC, r7 = BOOTMAP;
		pr("   Booting using the fdt blob at %x\n", r3);
	}
	/* bootm_disable_interrupts, then arch_preboot_os: no EE, ME, CE. */
	uint32_t msr = mfmsr() & ~(MSR_EE | MSR_ME | MSR_CE);
	shim_msr(msr);
	pr("shim: bootm: MSR %x at the jump to %x\n", msr, entry);
	for (int i = 0; i < 100000 && !(UART[5] & 0x40); i++)
		;
	__asm__ volatile("msync; isync");
	register uint32_t a3 __asm__("r3") = r3, a4 __asm__("r4") = 0, a5 __asm__("r5") = 0;
	register uint32_t a6 __asm__("r6") = r6, a7 __asm__("r7") = r7;
	__asm__ volatile("mtctr %0; bctr" : : "r"(entry), "r"(a3), "r"(a4), "r"(a5), "r"(a6), "r"(a7));
	for (;;)
		;
}

/* ${fdtcontroladdr} in a word: the tree's address, hex (env's format),
 * the word rebuilt in what is left of `expanded`. */
static char *expand(char *w)
{
	static const char var[] = "${fdtcontroladdr}";
	static uint32_t used;
	for (char *s = w; *s; s++) {
		uint32_t i = 0, n = s - w;
		while (var[i] && s[i] == var[i])
			i++;
		if (var[i])
			continue;
		char *e = expanded + used;
		if (used + n + 9 + slen(s + i) + 1 > sizeof(expanded))
			fail("go: words with ${fdtcontroladdr} too long");
		memcpy(e, w, n);
		hex(e + n, (uint32_t)tree, 0, 0);
		n = slen(e);
		memcpy(e + n, s + i, slen(s + i) + 1);
		used += slen(e) + 1;
		return e;
	}
	return w;
}

void shim_main(uint8_t *qtree)
{
	struct state s;
	int nw = 0, first = 0;
	const char *why;

	map_ccsr();		/* the console first */
	vectors();
	pr("\nshim: e500 U-Boot stand-in (QEMU's tree at %x)\n", (uint32_t)qtree);
	if ((why = fdt_walk(qtree, scan)))
		fail(why);
	for (char *p = line; *p && nw < 63;) {
		while (*p == ' ')
			*p++ = 0;
		if (*p)
			words[nw++] = p;
		while (*p && *p != ' ')
			p++;
	}
	for (; first < nw; first++) {
		const char *w = words[first];
		if (streq(w, "uboot"))
			v_msr = v_spin = v_tlb = v_wdt = v_mpic = 1;
		else if (streq(w, "msr")) v_msr = 1;
		else if (streq(w, "spin")) v_spin = 1;
		else if (streq(w, "tlb")) v_tlb = 1;
		else if (streq(w, "tlb15")) v_tlb = v_tlb15 = 1;
		else if (streq(w, "ram96")) v_ram96 = 1;
		else if (streq(w, "wdt")) v_wdt = 1;
		else if (streq(w, "mpic")) v_mpic = 1;
		else if (streq(w, "nofdt")) v_nofdt = 1;
		else if (streq(w, "ctltree")) v_ctltree = 1;
		else break;
	}
	if (nw - first < 2 || !(streq(words[first], "go") || streq(words[first], "bootm")))
		fail("usage: [uboot|msr|spin|tlb|tlb15|ram96|wdt|mpic|nofdt|ctltree]... "
		     "bootm ADDR ARGS... | go ADDR ARGS...");
	uint32_t entry = hexnum(words[first + 1]);
	for (int i = first + 2, n = 0; i < nw; i++) {
		uint32_t l = slen(words[i]);
		if (n)
			args[n++] = ' ';
		memcpy(args + n, words[i], l + 1);
		n += l;
	}
	if (!ram_bytes)
		fail("QEMU's tree gives no /memory");
	if (v_ram96)
		ram_bytes = 96u << 20;
	bootpg = ram_bytes - 4096;

	/* The tree bootm passes (go's ${fdtcontroladdr}), while QEMU's entry
	 * still maps QEMU's tree. */
	tree_bytes = tree_copy(tree, sizeof(tree), qtree, v_spin ? bootpg : 0, v_spin ? 4096 : 0);
	if (!tree_bytes)
		fail("QEMU's tree: not a layout this shim copies, or too big");
	if ((why = fdt_walk(tree, fixup)))
		fail(why);
	if (v_spin && !cpus_released)
		fail("spin: QEMU's tree has no cpu with cpu-release-addr (run QEMU with -smp 2)");

	if (v_tlb)
		uboot_tlb();
	if (v_spin)
		bootpg_setup();
	shim_msr(v_msr ? MSR_CE | MSR_ME | MSR_DE : 0);
	if (v_wdt) {
		mtspr(SPR_TSR, TSR_ENW_WIS);	/* a fresh period (reset_85xx_watchdog) */
		mtspr(SPR_TCR, TCR_WDT_PERIOD(WDT_PRESC) | TCR_WRC_CHIP);
	}
	if (v_mpic)
		mpic_setup();

	tlb_dump(&before);
	put_valid(&before, "shim: ");
	state_read(&s);
	put_state("state", &s);
	pr("shim: device tree at %x, %u bytes; RAM %u MiB\n", (uint32_t)tree, tree_bytes, ram_bytes >> 20);
	if (v_spin)
		pr("shim: boot page %x: canary %x, cpu 1 spins at %x (in the reserve map)\n", bootpg,
		   CANARY, bootpg + SPIN_OFF + SPIN_ENTRY);
	if (streq(words[first], "bootm"))
		cmd_bootm(entry);
	for (int i = first + 2; i < nw; i++)
		words[i] = expand(words[i]);
	words[nw] = 0;
	cmd_go(entry, nw - first - 1, words + first + 1);
}
