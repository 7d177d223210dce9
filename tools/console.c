/*
 * console: capture an mmubench run from a serial line, a pty or stdin.
 *
 *   console [--baud N] [--timeout S] [--log FILE] [--quiet]
 *           [--uboot CMDS] [--prompt STR] DEVICE|-
 *
 * Reads the console of a board (a serial device such as /dev/ttyS0 or
 * /dev/ttyUSB0, set to N baud 8N1 raw; a pty; or "-", standard input, as in
 * `qemu ... -serial stdio | console -`), echoes it to stdout, writes it to
 * FILE as it arrives, and checks every line's sequence number and CRC
 * (tools/linecheck.c, the check of logcheck).  It stops at the status line.
 *
 * --uboot drives U-Boot first: it waits for the autoboot countdown, stops
 * it with a key, and at each prompt (STR, default "=> ") sends the next of
 * the ';'-separated commands CMDS, e.g.
 *   --uboot 'setenv bootargs probes=all exit=halt; tftp 1000000 mmubench.uimg; bootm 1000000'
 *
 * Exit: 0 intact and passed; 1 intact and failed; 2 lines lost or garbled,
 * the log truncated (input ended, device vanished) or the board reset in
 * the middle of the run; 3 usage or set-up error, or the loader failed
 * before the image started (TFTP error, bad image CRC, ...); 124 no status
 * line within S seconds (default 600).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "linecheck.h"

#define MAX_CMDS 32

static const char *device = 0;
static FILE *logf;
static int quiet;

static int help;		/* --help: the usage on stdout, status 0 */

static void usage(void)
{
	fprintf(help ? stdout : stderr, "usage: console [--baud N] [--timeout S] [--log FILE] [--quiet]\n"
		"               [--uboot CMDS] [--prompt STR] DEVICE|-\n");
	exit(help ? 0 : 3);
}

static speed_t baud_code(long baud)
{
	static const struct { long baud; speed_t code; } rates[] = {
		{ 1200, B1200 }, { 2400, B2400 }, { 4800, B4800 }, { 9600, B9600 },
		{ 19200, B19200 }, { 38400, B38400 }, { 57600, B57600 },
		{ 115200, B115200 }, { 230400, B230400 }, { 460800, B460800 },
		{ 921600, B921600 },
	};
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (rates[i].baud == baud)
			return rates[i].code;
	fprintf(stderr, "console: --baud %ld: not a standard rate (1200 ... 921600)\n", baud);
	exit(3);
}

/* 8N1, raw (no echo, no line editing, no CR/LF translation, no flow control). */
static void set_raw(int fd, speed_t speed)
{
	struct termios t;

	if (tcgetattr(fd, &t)) {
		fprintf(stderr, "console: %s: not a terminal: %s\n", device, strerror(errno));
		exit(3);
	}
	cfmakeraw(&t);
	t.c_cflag &= ~(CSTOPB | PARENB | CRTSCTS);
	t.c_cflag |= CS8 | CLOCAL | CREAD;
	t.c_iflag &= ~(IXON | IXOFF);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	cfsetispeed(&t, speed);
	cfsetospeed(&t, speed);
	if (tcsetattr(fd, TCSANOW, &t)) {
		fprintf(stderr, "console: %s: cannot set %s: %s\n", device, "8N1 raw", strerror(errno));
		exit(3);
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A line that starts a board's or a loader's boot: a reset, if it comes in
 * the middle of a run. */
static int is_reset(const char *line)
{
	static const char *const banners[] = {
		"U-Boot ", "U-Boot SPL ", "PPCBoot ", "SeaBIOS ", "iPXE ", "KTAP version 1",
	};
	for (size_t i = 0; i < sizeof(banners) / sizeof(banners[0]); i++)
		if (!strncmp(line, banners[i], strlen(banners[i])))
			return 1;
	return 0;
}

/* A loader's message that the image will not start (before the report). */
static const char *loader_error(const char *line)
{
	static const char *const errors[] = {
		"TFTP error", "Retry count exceeded", "Bad Data CRC", "Bad Header Checksum",
		"Wrong Image Format", ": not started", "## Application terminated",
		"Could not find a valid setup.bin", "No such file or directory (http",
	};
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (strstr(line, errors[i]))
			return errors[i];
	return 0;
}

/* Send a U-Boot command slowly: old boards' UARTs have no FIFO. */
static void send(int fd, const char *s)
{
	for (; *s; s++) {
		if (write(fd, s, 1) != 1) {
			fprintf(stderr, "console: %s: write failed: %s\n", device, strerror(errno));
			exit(2);
		}
		usleep(2000);
	}
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	char *e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = 0;
	return s;
}

int main(int argc, char **argv)
{
	long baud = 115200;
	double timeout = 600;
	const char *logname = 0, *prompt = "=> ";
	char *uboot = 0, *cmds[MAX_CMDS];
	int ncmds = 0, next_cmd = 0, fd;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			help = 1;
			usage();
		} else if (!strcmp(a, "--quiet")) {
			quiet = 1;
		} else if (i + 1 < argc && !strcmp(a, "--baud")) {
			baud = strtol(argv[++i], &end, 10);
			if (*end || end == argv[i])
				usage();
		} else if (i + 1 < argc && !strcmp(a, "--timeout")) {
			timeout = strtod(argv[++i], &end);
			if (*end || end == argv[i] || timeout <= 0) {
				fprintf(stderr, "console: --timeout takes seconds, not '%s'\n", argv[i]);
				return 3;
			}
		} else if (i + 1 < argc && !strcmp(a, "--log")) {
			logname = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--uboot")) {
			uboot = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--prompt")) {
			prompt = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			usage();
		} else if (!device) {
			device = a;
		} else {
			usage();
		}
	}
	if (!device)
		usage();
	speed_t speed = baud_code(baud);

	if (uboot) {
		for (char *c = strtok(uboot, ";"); c; c = strtok(0, ";"))
			if (*(c = trim(c)) && ncmds < MAX_CMDS)
				cmds[ncmds++] = c;
		if (!ncmds) {
			fprintf(stderr, "console: --uboot needs commands, e.g. 'tftp ...; go ...'\n");
			return 3;
		}
	}
	if (!strcmp(device, "-")) {
		if (uboot) {
			fprintf(stderr, "console: --uboot needs a device to write to, not standard input\n");
			return 3;
		}
		device = "standard input";
		fd = 0;
	} else {
		fd = open(device, O_RDWR | O_NOCTTY);
		if (fd < 0) {
			fprintf(stderr, "console: %s: %s\n", device, strerror(errno));
			return 3;
		}
		set_raw(fd, speed);
	}
	if (logname && !(logf = fopen(logname, "w"))) {
		fprintf(stderr, "console: %s: %s\n", logname, strerror(errno));
		return 3;
	}

	struct linecheck lc;
	char line[4096];
	size_t n = 0;
	int waiting_autoboot = uboot != 0, rc = -1;
	double deadline = now() + timeout;

	linecheck_init(&lc, "console");
	while (rc < 0) {
		double left = deadline - now();
		if (left <= 0) {
			fprintf(stderr, "console: timed out after %g s: %s (line %lu, sequence %lu)\n",
				timeout, lc.in_ktap ? "the run stalled, no status line" :
				"the image never started its report", lc.lineno, lc.seq);
			rc = 124;
			break;
		}
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, left > 1 ? 1000 : (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			continue;
		char buf[512];
		ssize_t got = r < 0 ? -1 : read(fd, buf, sizeof(buf));
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0) {
			if (got < 0 || fd != 0)
				fprintf(stderr, "console: %s vanished: %s\n", device,
					got < 0 ? strerror(errno) : "end of file");
			else
				fprintf(stderr, "console: standard input ended\n");
			rc = linecheck_finish(&lc);
			if (rc == 0 || rc == 1)	/* ended after a complete report */
				break;
			rc = 2;
			break;
		}
		if (logf) {
			fwrite(buf, 1, got, logf);
			fflush(logf);
		}
		if (!quiet) {
			fwrite(buf, 1, got, stdout);
			fflush(stdout);
		}
		for (ssize_t i = 0; i < got && rc < 0; i++) {
			char c = buf[i];
			if (c == '\r')
				continue;	/* CR LF from U-Boot and the image: LF ends a line */
			if (c != '\n' && n < sizeof(line) - 1) {
				line[n++] = c;
				line[n] = 0;
				/* U-Boot's countdown and prompt end without a newline. */
				if (waiting_autoboot && strstr(line, "stop autoboot")) {
					send(fd, " ");
					waiting_autoboot = 0;
				} else if (uboot && !waiting_autoboot && next_cmd < ncmds &&
					   n >= strlen(prompt) && !strcmp(line + n - strlen(prompt), prompt)) {
					send(fd, cmds[next_cmd++]);
					send(fd, "\r");
				}
				continue;
			}
			line[n] = 0;
			n = 0;
			if (lc.in_ktap && !lc.ended && is_reset(line)) {
				fprintf(stderr, "console: the board reset in the middle of the run, after "
					"line %lu (sequence %lu): '%s'; what arrived is kept\n",
					lc.lineno, lc.seq, line);
				rc = 2;
				break;
			}
			const char *err;
			if (!lc.in_ktap && (err = loader_error(line))) {
				fprintf(stderr, "console: the loader failed before the image started "
					"('%s' in line %lu): %s\n", err, lc.lineno + 1, line);
				rc = 3;
				break;
			}
			linecheck_line(&lc, line);
			if (lc.ended)
				rc = linecheck_finish(&lc);
		}
	}
	if (logf)
		fclose(logf);
	return rc;
}
