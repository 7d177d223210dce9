/* A stand-in for U-Boot on QEMU's ref405ep, for the entry-convention tests.
 * QEMU boots this shim with -kernel (r3 = bd_t, r6/r7 = the -append
 * string); the mmubench image is already in memory through QEMU's loader
 * device.  The command line is [VARIANT...] COMMAND [; COMMAND]:
 *
 *   go ADDR ARGS...    U-Boot's go: entry(argc, argv) with argv[0] = "ADDR",
 *                      r13..r31 set to known values (0x5a0000nn) and gd in
 *                      r2 (or r29): a block whose first word points to the
 *                      bd_t.  On return: print the return code, check our
 *                      registers, vectors, timer and cache registers and
 *                      that PIT ticks still arrive, print a verdict line
 *   go-nogd ADDR ...   the same with no gd (r2 = 0)
 *   bootm UIMG ARGS... U-Boot's bootm of a legacy "kernel" uImage at UIMG:
 *                      check magic and both CRCs, copy the data to its load
 *                      address, interrupts off, enter with r3 = bd_t,
 *                      r6/r7 = ARGS
 *   echo WORDS...      print "shim: echo WORDS" (a second command that
 *                      shows the shim still works after a return)
 *
 * After the first command returns, the one after ';' runs; then the shim
 * resets the core (QEMU exits).  VARIANTs play the firmware a Walnut has:
 *
 *   uboot1     U-Boot 1.x (1.1.4 on a Walnut): gd in r29 (r2 points to a
 *              word that is no bd_t), its cache registers, vectors at
 *              physical 0, a 1 ms PIT interrupt with MSR[EE] on at go
 *              (ppc405-firmware.c); bootm's bd_t and command line placed
 *              just below 8 MiB, inside the payload's free RAM, as 1.x's
 *              bootm keeps them within its boot map (CFG_BOOTMAPSZ)
 *   uboot2017  U-Boot 2017: gd in r2, its cache registers, the same
 *              vectors and live PIT interrupt
 *   mhz        clocks_in_mhz: bootm's bd_t has intfreq and busfreq in MHz
 *              (go's gd->bd stays in Hz, as U-Boot's always is)
 *   junktlb    all 64 TLB entries written with junk (TIDs, valid bits,
 *              PID) before the jump; never SIZE=1K or E=1, which QEMU
 *              aborts on
 *   ram32      a 32 MiB Walnut: the bd_t's memsize 32 MiB (how U-Boot
 *              tells its RAM size), the shim's stack moved 4 MiB below
 *              its end, as at 128 MiB; ram16 the same with 16 MiB
 *   uicirq     a UIC source U-Boot's EMAC driver leaves enabled (UIC0 input
 *              11) pending at the jump, made with MSR[EE] off (U-Boot's own
 *              handler would take it otherwise); after a return the shim
 *              turns EE on and counts its delivery (UIC0_ER given back)
 *
 * The shim's stack is near the top of RAM (0x07c00000, 0x01c00000 with
 * ram32, 0x00c00000 with ram16), where a relocated U-Boot keeps its own.
 *
 * Built by selftest/test_ppc405_boot.py: powerpc-linux-gnu-gcc -mcpu=405
 * -ffreestanding -nostdlib -Wl,-Ttext=0x100000, with ppc405-firmware.c. */
#include "ppc405-shim.h"

#define BOOTM_DATA	0x007ff000u	/* uboot1 bootm: bd_t and bootargs below 8 MiB */

void shim_main(uint32_t bd, uint32_t r4, uint32_t r5, char *cmd, char *cmd_end);

/* Our own stack, then C with the loader's r3..r7 untouched. */
__asm__(".section .text.start, \"ax\"\n"
	".globl _start\n"
	"_start:\n"
	"	lis 1, (0x07c00000 - 16)@ha\n"
	"	addi 1, 1, (0x07c00000 - 16)@l\n"
	"	li 0, 0\n"
	"	stw 0, 0(1)\n"
	"	b shim_main\n"
	".previous\n");

/* shim_restack(sp, fn): go on with fn() on a new stack (never returns). */
__asm__(".text\n"
	".globl shim_restack\n"
	"shim_restack:\n"
	"	mr 1, 3\n"		/* the new stack */
	"	li 0, 0\n"
	"	stwu 0, -16(1)\n"	/* a zero back chain */
	"	mtctr 4\n"
	"	bctr\n");
void shim_restack(uint32_t sp, void (*fn)(void)) __attribute__((noreturn));

/* go: r13..r31 = 0x5a0000nn (r29 = gd for U-Boot 1.x), r2 = gd (2.x);
 * call; store r1, r2, r13..r31 as they came back; our own back.
 * shim_call(entry, argc, argv, r2, r29) */
uint32_t regs_after[21], saved_sp;
__asm__(".text\n"
	".globl shim_call\n"
	"shim_call:\n"
	"	stwu 1, -112(1)\n"
	"	mflr 0\n"
	"	stw 0, 116(1)\n"
	"	stmw 13, 8(1)\n"	/* ours: 8..84 */
	"	stw 2, 84(1)\n"
	"	lis 11, saved_sp@ha\n"
	"	stw 1, saved_sp@l(11)\n"
	"	mtctr 3\n"
	"	mr 3, 4\n"
	"	mr 4, 5\n"
	"	mr 2, 6\n"
	"	mr 0, 7\n"
	".irp n, 13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
	"	lis \\n, 0x5a00\n"
	"	ori \\n, \\n, \\n\n"
	".endr\n"
	"	cmpwi 0, 0\n"		/* r29 = gd when given */
	"	beq 1f\n"
	"	mr 29, 0\n"
	"1:	bctrl\n"
	"	lis 11, regs_after@ha\n"
	"	addi 11, 11, regs_after@l\n"
	"	stw 1, 0(11)\n"
	"	stw 2, 4(11)\n"
	"	stmw 13, 8(11)\n"
	"	lis 11, saved_sp@ha\n"
	"	lwz 1, saved_sp@l(11)\n"	/* ours, even if it came back wrong */
	"	lwz 2, 84(1)\n"
	"	lmw 13, 8(1)\n"
	"	lwz 0, 116(1)\n"
	"	mtlr 0\n"
	"	addi 1, 1, 112\n"
	"	blr\n");
uint32_t shim_call(uint32_t entry, int argc, char **argv, uint32_t r2, uint32_t r29);

static void putc_(char c)
{
	for (int i = 0; i < 100000 && !(UART0[5] & 0x20); i++)
		;
	UART0[0] = c;
}

void puts_(const char *s)
{
	while (*s) {
		if (*s == '\n')
			putc_('\r');
		putc_(*s++);
	}
}

void puthex(uint32_t v)
{
	puts_("0x");
	for (int i = 28; i >= 0; i -= 4)
		putc_("0123456789abcdef"[(v >> i) & 15]);
}

void reset(void)
{
	for (int i = 0; i < 100000 && !(UART0[5] & 0x40); i++)
		;
	__asm__ volatile("mtspr 1010, %0" : : "r"(0x30000000));	/* DBCR0 RST: core reset */
	for (;;)
		;
}

static uint32_t parse_hex(const char *s)
{
	uint32_t v = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++)
		v = v * 16 + (*s <= '9' ? *s - '0' : (*s | 0x20) - 'a' + 10);
	return v;
}

static uint32_t crc32(const uint8_t *p, uint32_t n)
{
	uint32_t c = 0xffffffffu;
	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = c >> 1 ^ (0xedb88320u & -(c & 1));
	}
	return ~c;
}

void shim_unexpected(uint32_t vector, uint32_t srr0)
{
	puts_("shim: unexpected exception at vector ");
	puthex(vector);
	puts_(", SRR0 ");
	puthex(srr0);
	puts_("\n");
	reset();
}

static char line[1024];
static uint32_t gd[16];		/* U-Boot's global data: gd->bd first */
static uint32_t not_a_gd[4] = { 3 };	/* uboot1's r2: its first word is no bd_t */
static uint32_t bd_hz[32];	/* QEMU's bd_t: go's gd->bd (always Hz) */
static uint32_t bd_copy[32];	/* bootm's: clocks in MHz with mhz */
static char *words[64];

/* After go's return: U-Boot's tick still arrives, at its old period
 * (within 0.1 %: a payload that lost the reload value would leave none,
 * or a period of its own); with uicirq the source is delivered once EE is
 * on again.  The number of failures. */
static int check_after_return(uint32_t ticks0, uint32_t ticks1)
{
	int bad = 0;

	if (uicirq) {
		mtmsr(mfmsr() | MSR_EE);
		for (uint32_t t0 = tb(); tb() - t0 < PIT_1MS;)
			;
		puts_("; UIC source delivered after return: ");
		puthex(ext_irqs);
		bad += ext_irqs != 1;
	}
	if (uboot1 || uboot2017) {
		uint32_t n = wait_ticks(3), p = pit_period_seen;
		puts_("; PIT ticks: ");
		puthex(ticks0);
		puts_(" at go, ");
		puthex(ticks1);
		puts_(" at return, ");
		puthex(n);
		puts_(" more since, period ");
		puthex(p);
		bad += n < 3 || p < PIT_1MS - PIT_1MS / 1000 || p > PIT_1MS + PIT_1MS / 1000;
	}
	return bad;
}

static void cmd_go(char **argv, int argc, uint32_t bd)
{
	int nogd = argv[0][2] == '-';
	uint32_t entry = parse_hex(argv[1]);
	uint32_t r2 = nogd ? 0 : uboot1 ? (uint32_t)not_a_gd : (uint32_t)gd;
	uint32_t r29 = !nogd && uboot1 ? (uint32_t)gd : 0;
	struct fwstate before, after;

	gd[0] = nogd ? 0 : bd;
	puts_("## Starting application at ");
	puts_(argv[1]);
	puts_(" ...\n");
	if (junktlb)
		junk_tlb();
	if (uicirq) {
		mtmsr(mfmsr() & ~MSR_EE);
		uic_source_pending();
	}
	fw_read(&before);
	uint32_t ticks0 = pit_ticks;
	int rc = shim_call(entry, argc - 1, argv + 1, r2, r29);
	uint32_t ticks1 = pit_ticks;
	puts_("## Application terminated, rc = ");
	puthex(rc);
	puts_("\n");

	/* What U-Boot relies on after go: its registers, vectors, timer,
	 * cache and interrupt controller state, and its tick still arriving. */
	fw_read(&after);
	int bad = shim_check("r1", regs_after[0], saved_sp) + shim_check("r2", regs_after[1], r2);
	for (int n = 13; n <= 31; n++) {
		static char name[] = "r00";
		name[1] = '0' + n / 10, name[2] = '0' + n % 10;
		bad += shim_check(name, regs_after[2 + n - 13], n == 29 && r29 ? r29 : 0x5a000000u | n);
	}
	bad += fw_check(&before, &after);
	puts_("shim: after return: r1 r2 r13-r31 MSR EVPR TCR DCCR ICCR DCWR SGR UIC0_ER vectors: ");
	puts_(bad ? "FAIL" : "ok");
	bad += check_after_return(ticks0, ticks1);
	puts_(bad ? "\nshim: verdict: FAIL\n" : "\nshim: verdict: PASS\n");
}

static void cmd_bootm(char **argv, int argc, uint32_t bd, char *args_end)
{
	/* bootm: a legacy uImage header is 64 bytes, big-endian. */
	const uint32_t *h = (const uint32_t *)parse_hex(argv[1]);
	uint8_t hdr[64];
	for (int i = 0; i < 64; i++)
		hdr[i] = ((const uint8_t *)h)[i];
	hdr[4] = hdr[5] = hdr[6] = hdr[7] = 0;		/* header CRC is over itself zeroed */
	if (h[0] != 0x27051956u) {
		puts_("shim: bad uImage magic\n");
		reset();
	}
	if (crc32(hdr, 64) != h[1]) {
		puts_("shim: uImage header CRC mismatch\n");
		reset();
	}
	uint32_t size = h[3], load = h[4], ep = h[5];
	const uint8_t *data = (const uint8_t *)h + 64;
	if (crc32(data, size) != h[6]) {
		puts_("shim: uImage data CRC mismatch\n");
		reset();
	}
	puts_("## Booting kernel from Legacy Image at ");
	puts_(argv[1]);
	puts_(" ... load ");
	puthex(load);
	puts_(" entry ");
	puthex(ep);
	puts_("\n");
	mtmsr(mfmsr() & ~MSR_EE);	/* bootm: disable_interrupts(); TCR[PIE] stays on */
	if (uicirq)
		uic_source_pending();
	for (uint32_t i = 0; i < size; i++)
		((uint8_t *)load)[i] = data[i];
	__asm__ volatile("dcbst 0, %0; sync; icbi 0, %0; isync" : : "r"(load) : "memory");
	if (junktlb)
		junk_tlb();
	/* The bootargs: the words after the uImage address, NULs of the
	 * split turned back into spaces. */
	char *args = argc > 2 ? argv[2] : args_end;
	for (char *p = args; p < args_end; p++)
		if (!*p)
			*p = ' ';
	if (uboot1) {		/* 1.x: both just below 8 MiB, in the payload's free RAM */
		uint32_t *bd8 = (uint32_t *)BOOTM_DATA;
		char *args8 = (char *)BOOTM_DATA + 256;
		for (int i = 0; i < 32; i++)
			bd8[i] = ((const uint32_t *)bd)[i];
		uint32_t len = args_end - args;
		for (uint32_t i = 0; i < len; i++)
			args8[i] = args[i];
		args8[len] = 0;
		bd = (uint32_t)bd8, args = args8, args_end = args8 + len;
		puts_("shim: bd_t at ");
		puthex(bd);
		puts_(", bootargs at ");
		puthex((uint32_t)args);
		puts_("\n");
	}
	register uint32_t r3 __asm__("r3") = bd;
	register uint32_t r6 __asm__("r6") = (uint32_t)args;
	register uint32_t r7 __asm__("r7") = (uint32_t)args_end;
	register uint32_t r4_ __asm__("r4") = 0, r5_ __asm__("r5") = 0;
	__asm__ volatile("mtctr %0; bctr" : : "r"(ep), "r"(r3), "r"(r4_), "r"(r5_), "r"(r6), "r"(r7));
	for (;;)
		;
}

/* One command: words[0..n), its text ending at `end` (for bootargs). */
static void run_command(char **argv, int argc, uint32_t bd, char *end)
{
	argv[argc] = 0;
	if (argc >= 1 && argv[0][0] == 'e' && argv[0][1] == 'c') {
		puts_("shim: echo");
		for (int i = 1; i < argc; i++) {
			puts_(" ");
			puts_(argv[i]);
		}
		puts_("\n");
		return;
	}
	if (argc < 2) {
		puts_("shim: usage: [uboot1|uboot2017|mhz|junktlb|ram32|ram16|uicirq]... go ADDR ARGS... | "
		      "bootm UIMG ARGS... | echo WORDS... [; COMMAND]\n");
		reset();
	}
	if (argv[0][0] == 'g')
		cmd_go(argv, argc, (uint32_t)bd_hz);
	else
		cmd_bootm(argv, argc, bd, end);
}

static int word_is(const char *w, const char *s)
{
	while (*w && *w == *s)
		w++, s++;
	return *w == *s;
}

static int nwords, n, first_word;
static char *ends[64];
static void shim_commands(void);

void shim_main(uint32_t bd, uint32_t r4, uint32_t r5, char *cmd, char *cmd_end)
{
	(void)r4, (void)r5;

	/* Copy and split the command line (QEMU's r6..r7), and QEMU's bd_t
	 * (both lie in RAM the image may use). */
	while (cmd + n < cmd_end && cmd[n] && n < (int)sizeof(line) - 1) {
		line[n] = cmd[n];
		n++;
	}
	line[n] = 0;
	for (int i = 0; i < 32; i++)
		bd_hz[i] = bd_copy[i] = ((const uint32_t *)bd)[i];
	for (char *p = line; *p && nwords < 63;) {
		while (*p == ' ')
			*p++ = 0;
		if (!*p)
			break;
		words[nwords] = p;
		while (*p && *p != ' ')
			p++;
		ends[nwords++] = p;
	}
	int first = 0;
	for (; first < nwords; first++) {
		const char *w = words[first];
		if (word_is(w, "uboot1")) uboot1 = 1;
		else if (word_is(w, "uboot2017")) uboot2017 = 1;
		else if (word_is(w, "mhz")) mhz = 1;
		else if (word_is(w, "junktlb")) junktlb = 1;
		else if (word_is(w, "ram32")) ram_mib = 32;
		else if (word_is(w, "ram16")) ram_mib = 16;
		else if (word_is(w, "uicirq")) uicirq = 1;
		else break;
	}
	if (mhz) {		/* clocks_in_mhz: intfreq (44) and busfreq (48) in MHz */
		bd_copy[11] /= 1000000;
		bd_copy[12] /= 1000000;
	}
	first_word = first;
	if (ram_mib) {
		bd_copy[1] = bd_hz[1] = (uint32_t)ram_mib << 20;	/* memsize */
		shim_restack((((uint32_t)ram_mib - 4) << 20) - 16, shim_commands);
	}
	shim_commands();
}

/* The commands, on the stack a U-Boot of this RAM size would use. */
static void shim_commands(void)
{
	int first = first_word;

	firmware_setup();
	int semi = first;
	while (semi < nwords && !word_is(words[semi], ";"))
		semi++;
	char *end1 = semi < nwords ? words[semi] : line + n;
	if (semi < nwords)
		*words[semi] = 0;	/* bootargs of the first command end there */
	run_command(words + first, semi - first, (uint32_t)bd_copy,
		    semi > first ? ends[semi - 1] : end1);
	if (semi + 1 < nwords)
		run_command(words + semi + 1, nwords - semi - 1, (uint32_t)bd_copy, line + n);
	reset();
}
