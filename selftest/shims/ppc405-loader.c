/* A stand-in for U-Boot on QEMU's ref405ep, for the entry-convention tests.
 * QEMU boots this shim with -kernel (r3 = bd_t, r6/r7 = the -append
 * string); the mmubench image is already in memory through QEMU's loader
 * device.  The first word of the command line says what to play:
 *
 *   go ADDR ARGS...    U-Boot's go: entry(argc, argv) with argv[0] = "ADDR",
 *                      r2 = a global data block whose first word points to
 *                      the bd_t (as U-Boot's gd), then print the return
 *                      code and reset (QEMU exits)
 *   go-nogd ADDR ...   the same with r2 = 0
 *   bootm UIMG ARGS... U-Boot's bootm of a legacy "kernel" uImage at UIMG:
 *                      check magic and both CRCs, copy the data to its load
 *                      address, enter with r3 = bd_t, r6/r7 = ARGS
 *
 * Built by selftest/test_ppc405_boot.py: powerpc-linux-gnu-gcc -mcpu=405
 * -ffreestanding -nostdlib -Wl,-Ttext=0x100000. */
#include <stdint.h>

#define UART0 ((volatile uint8_t *)0xEF600300)

char stack[8192] __attribute__((aligned(16)));
void shim_main(uint32_t bd, uint32_t r4, uint32_t r5, char *cmd, char *cmd_end);

/* Our own stack, then C with the loader's r3..r7 untouched. */
__asm__(".section .text.start, \"ax\"\n"
	".globl _start\n"
	"_start:\n"
	"	lis 1, (stack + 8192 - 16)@ha\n"
	"	addi 1, 1, (stack + 8192 - 16)@l\n"
	"	li 0, 0\n"
	"	stw 0, 0(1)\n"
	"	b shim_main\n"
	".previous\n");

static void putc_(char c)
{
	for (int i = 0; i < 100000 && !(UART0[5] & 0x20); i++)
		;
	UART0[0] = c;
}

static void puts_(const char *s)
{
	while (*s) {
		if (*s == '\n')
			putc_('\r');
		putc_(*s++);
	}
}

static void puthex(uint32_t v)
{
	puts_("0x");
	for (int i = 28; i >= 0; i -= 4)
		putc_("0123456789abcdef"[(v >> i) & 15]);
}

static void reset(void)
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

static char line[1024];
static uint32_t gd[16];		/* U-Boot's global data: gd->bd first */
static char *argv[40];

void shim_main(uint32_t bd, uint32_t r4, uint32_t r5, char *cmd, char *cmd_end)
{
	int argc = 0, n = 0;
	(void)r4, (void)r5;

	/* Copy and split the command line (QEMU's r6..r7). */
	while (cmd + n < cmd_end && cmd[n] && n < (int)sizeof(line) - 1) {
		line[n] = cmd[n];
		n++;
	}
	line[n] = 0;
	for (char *p = line; *p && argc < 39;) {
		while (*p == ' ')
			*p++ = 0;
		if (!*p)
			break;
		argv[argc++] = p;
		while (*p && *p != ' ')
			p++;
	}
	argv[argc] = 0;
	if (argc < 2) {
		puts_("shim: usage: go ADDR ARGS... | bootm UIMG ARGS...\n");
		reset();
	}
	if (argv[0][0] == 'g') {
		/* go: argv[0] of the application is the address string. */
		int (*entry)(int, char **) = (int (*)(int, char **))parse_hex(argv[1]);
		puts_("## Starting application at ");
		puts_(argv[1]);
		puts_(" ...\n");
		/* U-Boot keeps gd in r2 (a fixed register for the compiler). */
		gd[0] = argv[0][2] == '-' ? 0 : bd;
		register uint32_t r2 __asm__("r2") = argv[0][2] == '-' ? 0 : (uint32_t)gd;
		__asm__ volatile("" : : "r"(r2));
		int rc = entry(argc - 1, argv + 1);
		puts_("## Application terminated, rc = ");
		puthex(rc);
		puts_("\n");
		reset();
	}
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
	for (uint32_t i = 0; i < size; i++)
		((uint8_t *)load)[i] = data[i];
	__asm__ volatile("dcbst 0, %0; sync; icbi 0, %0; isync" : : "r"(load) : "memory");
	/* The bootargs: everything after the uImage address, NULs of the
	 * split turned back into spaces. */
	char *args = argc > 2 ? argv[2] : line + n;
	for (char *p = args; p < line + n; p++)
		if (!*p)
			*p = ' ';
	register uint32_t r3 __asm__("r3") = bd;
	register uint32_t r6 __asm__("r6") = (uint32_t)args;
	register uint32_t r7 __asm__("r7") = (uint32_t)(line + n);
	register uint32_t r4_ __asm__("r4") = 0, r5_ __asm__("r5") = 0;
	__asm__ volatile("mtctr %0; bctr" : : "r"(ep), "r"(r3), "r"(r4_), "r"(r5_), "r"(r6), "r"(r7));
	for (;;)
		;
}
