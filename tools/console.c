/*
 * console: capture an mmubench run from a serial line, a pty or stdin
 * ("-"), echo it, log it as it arrives and check every line (linecheck.c).
 *
 *   console [--baud N] [--timeout S] [--log FILE] [--quiet]
 *           [--uboot CMDS] [--prompt STR] [--uboot-timeout S] DEVICE|-
 *
 * At the status line it closes the input and exits with the run's status,
 * after ending the writer of a pipe on stdin (QEMU ignores SIGPIPE and runs
 * on after exit=halt or exit=return: `qemu | console -` would never end).
 * --uboot stops U-Boot's autoboot and types CMDS (';'-separated) one at
 * each prompt, `setenv autoload no` before a dhcp or bootp (dhcp would
 * TFTP ${bootfile}); no countdown or prompt within --uboot-timeout, or the
 * report starting before the last command, is a missed autoboot.
 * Exit: 0 pass; 1 fail; 2 lines lost, truncated or a reset mid-run; 3 usage,
 * set-up or loader error or a missed autoboot; 124 --timeout.  doc/lab.md.
 */
#define _GNU_SOURCE	/* strcasestr */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "linecheck.h"

#define MAX_CMDS 32
#define N(a) (sizeof(a) / sizeof((a)[0]))

struct options {
	long baud;
	double timeout;		/* seconds to the status line */
	double uboot_timeout;	/* seconds to U-Boot's countdown or prompt */
	const char *device, *logname, *prompt;
	char *uboot;		/* --uboot's text, split into cmds */
	const char *cmds[MAX_CMDS];
	int ncmds, quiet;
};

/* One capture as it goes. */
struct capture {
	const struct options *opt;
	int fd;
	FILE *logf;
	struct linecheck lc;
	char line[4096];	/* the line so far, CRs dropped */
	size_t n;
	int next_cmd;		/* the next --uboot command to type */
	int stopped;		/* U-Boot's countdown stopped or its prompt seen */
	double start;
	int rc;			/* the exit status; -1 while running */
};

static void usage(int help)
{
	fprintf(help ? stdout : stderr, "usage: console [--baud N] [--timeout S] [--log FILE] [--quiet]\n"
		"               [--uboot CMDS] [--prompt STR] [--uboot-timeout S] DEVICE|-\n");
	exit(help ? 0 : 3);
}

static double seconds(const char *opt, const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (*end || end == s || v <= 0) {
		fprintf(stderr, "console: %s takes seconds, not '%s'\n", opt, s);
		exit(3);
	}
	return v;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	*o = (struct options){ .baud = 115200, .timeout = 600, .uboot_timeout = 60,
			       .prompt = "=> " };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int has_value = i + 1 < argc;
		char *end;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(1);
		} else if (!strcmp(a, "--quiet")) {
			o->quiet = 1;
		} else if (has_value && !strcmp(a, "--baud")) {
			o->baud = strtol(argv[++i], &end, 10);
			if (*end || end == argv[i])
				usage(0);
		} else if (has_value && !strcmp(a, "--timeout")) {
			o->timeout = seconds(a, argv[++i]);
		} else if (has_value && !strcmp(a, "--uboot-timeout")) {
			o->uboot_timeout = seconds(a, argv[++i]);
		} else if (has_value && !strcmp(a, "--log")) {
			o->logname = argv[++i];
		} else if (has_value && !strcmp(a, "--uboot")) {
			o->uboot = argv[++i];
		} else if (has_value && !strcmp(a, "--prompt")) {
			o->prompt = argv[++i];
		} else if ((a[0] == '-' && a[1]) || o->device) {
			usage(0);
		} else {
			o->device = a;
		}
	}
	if (!o->device)
		usage(0);
}

/* The command's first word is w: "dhcp", "dhcp 1000000 x.img" but not "dhcpx". */
static int command_is(const char *cmd, const char *w)
{
	size_t n = strlen(w);
	return !strncmp(cmd, w, n) && (cmd[n] == 0 || cmd[n] == ' ' || cmd[n] == '\t');
}

/* --uboot's text into commands, `setenv autoload no` before the first
 * dhcp or bootp where no command before it set autoload. */
static void split_commands(struct options *o)
{
	int autoload_set = 0;

	for (char *c = strtok(o->uboot, ";"); c; c = strtok(0, ";")) {
		c += strspn(c, " \t");
		for (char *e = c + strlen(c); e > c && (e[-1] == ' ' || e[-1] == '\t');)
			*--e = 0;
		if (!*c)
			continue;
		if (!strncmp(c, "setenv autoload", 15) || !strncmp(c, "env set autoload", 16))
			autoload_set = 1;
		if (!autoload_set && (command_is(c, "dhcp") || command_is(c, "bootp"))) {
			autoload_set = 1;
			if (o->ncmds < MAX_CMDS)
				o->cmds[o->ncmds++] = "setenv autoload no";
		}
		if (o->ncmds == MAX_CMDS) {
			fprintf(stderr, "console: --uboot: more than %d commands\n", MAX_CMDS);
			exit(3);
		}
		o->cmds[o->ncmds++] = c;
	}
	if (!o->ncmds) {
		fprintf(stderr, "console: --uboot needs commands, e.g. 'tftp ...; go ...'\n");
		exit(3);
	}
}

static speed_t baud_code(long baud)
{
	static const struct { long baud; speed_t code; } rates[] = {
		{ 1200, B1200 }, { 2400, B2400 }, { 4800, B4800 }, { 9600, B9600 }, { 19200, B19200 },
		{ 38400, B38400 }, { 57600, B57600 }, { 115200, B115200 }, { 230400, B230400 },
		{ 460800, B460800 }, { 921600, B921600 },
	};
	for (size_t i = 0; i < N(rates); i++)
		if (rates[i].baud == baud)
			return rates[i].code;
	fprintf(stderr, "console: --baud %ld: not a standard rate (1200 ... 921600)\n", baud);
	exit(3);
}

/* The device opened and set to 8N1, raw (no echo, no line editing, no
 * CR/LF translation, no flow control); or standard input for "-". */
static int open_device(const struct options *o)
{
	speed_t speed = baud_code(o->baud);
	struct termios t;

	if (!strcmp(o->device, "-")) {
		if (o->uboot) {
			fprintf(stderr, "console: --uboot needs a device to write to, not standard input\n");
			exit(3);
		}
		return 0;
	}
	int fd = open(o->device, O_RDWR | O_NOCTTY);
	if (fd < 0) {
		fprintf(stderr, "console: %s: %s\n", o->device, strerror(errno));
		exit(3);
	}
	if (tcgetattr(fd, &t)) {
		fprintf(stderr, "console: %s: not a terminal: %s\n", o->device, strerror(errno));
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
		fprintf(stderr, "console: %s: cannot set 8N1 raw: %s\n", o->device, strerror(errno));
		exit(3);
	}
	return fd;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The first of words that line starts with (prefix) or contains, in any
 * case (U-Boot's versions spell "Bad Data CRC" "Bad data crc" too). */
static const char *find_word(const char *line, const char *const *words, size_t n, int prefix)
{
	for (size_t i = 0; i < n; i++)
		if (prefix ? !strncmp(line, words[i], strlen(words[i])) : !!strcasestr(line, words[i]))
			return words[i];
	return 0;
}

/* Banners that start a board's or a loader's boot: a reset, in mid-run. */
static const char *const resets[] = {
	"U-Boot ", "U-Boot SPL ", "PPCBoot ", "SeaBIOS ", "iPXE ", "KTAP version 1",
};
/* A loader's messages that the image will not start (before the report). */
static const char *const loader_errors[] = {
	"TFTP error", "Retry count exceeded", "Bad Data CRC", "Bad Header Checksum",
	"Wrong Image Format", ": not started", "## Application terminated",
	"Could not find a valid setup.bin", "No such file or directory (http",
};

/* Send to U-Boot slowly: old boards' UARTs have no FIFO. */
static void send(struct capture *c, const char *s)
{
	for (; *s; s++) {
		if (write(c->fd, s, 1) != 1) {
			fprintf(stderr, "console: %s: write failed: %s\n", c->opt->device,
				strerror(errno));
			exit(2);
		}
		usleep(2000);
	}
}

/* A line not ended yet: U-Boot's countdown and prompt have no newline. */
static void on_partial_line(struct capture *c)
{
	const struct options *o = c->opt;
	size_t plen = strlen(o->prompt);

	if (!o->uboot || c->next_cmd == o->ncmds)
		return;
	if (!c->stopped && strstr(c->line, "stop autoboot")) {
		send(c, " ");
		c->stopped = 1;
	} else if (c->n >= plen && !strcmp(c->line + c->n - plen, o->prompt)) {
		c->stopped = 1;
		send(c, o->cmds[c->next_cmd++]);
		send(c, "\r");
	}
}

/* A whole line: a reset, a loader's error, a missed autoboot, or the
 * next line of the report. */
static void on_line(struct capture *c)
{
	struct linecheck *lc = &c->lc;
	const char *err;

	if (lc->in_ktap && !lc->ended && find_word(c->line, resets, N(resets), 1)) {
		fprintf(stderr, "console: the board reset in the middle of the run, after "
			"line %lu (sequence %lu): '%s'; what arrived is kept\n",
			lc->lineno, lc->seq, c->line);
		c->rc = 2;
	} else if (!lc->in_ktap && (err = find_word(c->line, loader_errors, N(loader_errors), 0))) {
		fprintf(stderr, "console: the loader failed before the image started "
			"('%s' in line %lu): %s\n", err, lc->lineno + 1, c->line);
		c->rc = 3;
	} else if (!lc->in_ktap && c->opt->uboot && c->next_cmd < c->opt->ncmds &&
		   !strcmp(c->line, "KTAP version 1")) {
		fprintf(stderr, "console: autoboot missed: the report started with %d of %d --uboot "
			"commands typed (%s)\n", c->next_cmd, c->opt->ncmds, c->stopped ?
			"one of them started the image" : "no countdown or prompt seen: attached late?");
		c->rc = 3;
	} else {
		linecheck_line(lc, c->line);
		if (lc->ended)
			c->rc = linecheck_finish(lc);
	}
}

static void on_bytes(struct capture *c, const char *buf, ssize_t got)
{
	if (c->logf) {
		fwrite(buf, 1, got, c->logf);
		fflush(c->logf);
	}
	if (!c->opt->quiet) {
		fwrite(buf, 1, got, stdout);
		fflush(stdout);
	}
	for (ssize_t i = 0; i < got && c->rc < 0; i++) {
		if (buf[i] == '\r')
			continue;	/* CR LF from U-Boot and the image: LF ends a line */
		if (buf[i] != '\n' && c->n < sizeof(c->line) - 1) {
			c->line[c->n++] = buf[i];
			c->line[c->n] = 0;
			on_partial_line(c);
			continue;
		}
		c->line[c->n] = 0;
		c->n = 0;
		on_line(c);
	}
}

/* A deadline passed: U-Boot's (no countdown, no prompt) or the run's. */
static int timed_out(struct capture *c)
{
	const struct options *o = c->opt;
	double t = now() - c->start;

	if (o->uboot && !c->stopped && !c->lc.in_ktap && t >= o->uboot_timeout) {
		fprintf(stderr, "console: autoboot missed: no U-Boot countdown ('stop autoboot') "
			"or prompt ('%s') within %g s (--uboot-timeout): the board did not reach "
			"U-Boot, or booted on before console was attached\n", o->prompt,
			o->uboot_timeout);
		return 3;
	}
	if (t < o->timeout)
		return -1;
	fprintf(stderr, "console: timed out after %g s: %s (line %lu, sequence %lu)\n",
		o->timeout, c->lc.in_ktap ? "the run stalled, no status line" :
		"the image never started its report", c->lc.lineno, c->lc.seq);
	return 124;
}

/* Read until the verdict: the status line, an error, the input's end or a
 * timeout. */
static void capture_run(struct capture *c)
{
	while (c->rc < 0) {
		if ((c->rc = timed_out(c)) >= 0)
			break;
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		int r = poll(&p, 1, 200);
		if (r == 0 || (r < 0 && errno == EINTR))
			continue;
		char buf[512];
		ssize_t got = r < 0 ? -1 : read(c->fd, buf, sizeof(buf));
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got > 0) {
			on_bytes(c, buf, got);
			continue;
		}
		if (got < 0 || c->fd != 0)
			fprintf(stderr, "console: %s vanished: %s\n", c->opt->device,
				got < 0 ? strerror(errno) : "end of file");
		else
			fprintf(stderr, "console: standard input ended\n");
		c->rc = linecheck_finish(&c->lc);
		if (c->rc != 0 && c->rc != 1)	/* 0, 1: ended after a complete report */
			c->rc = 2;
	}
}

/* The parent of pid, from /proc/PID/stat ("pid (comm) state ppid ..."). */
static long parent_of(long pid)
{
	char path[64], buf[512], *p;
	long ppid = 0;
	size_t n = 0;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	FILE *f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && sscanf(p + 1, " %*c %ld", &ppid) == 1 ? ppid : 0;
}

/* Does pid hold the pipe `want` ("pipe:[inode]") open for writing? */
static int writes_to(long pid, const char *want)
{
	char path[80], link[64];
	unsigned flags;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%ld/fd", pid);
	DIR *d = opendir(path);
	for (struct dirent *e; d && !found && (e = readdir(d));) {
		snprintf(path, sizeof(path), "/proc/%ld/fd/%.20s", pid, e->d_name);
		ssize_t n = readlink(path, link, sizeof(link) - 1);
		if (n < 0 || (link[n] = 0, strcmp(link, want)))
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/fdinfo/%.20s", pid, e->d_name);
		FILE *f = fopen(path, "r");
		found = f && fscanf(f, "pos: %*d flags: %o", &flags) == 1 &&
			(flags & O_ACCMODE) == O_WRONLY;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/* `qemu ... | console -`: end (SIGTERM) the writers of standard input's
 * pipe, but none of console's ancestors (a shell or a test feeding it). */
static void end_pipe_writers(void)
{
	struct stat st;
	char want[64];
	DIR *proc = opendir("/proc");

	if (!proc || fstat(0, &st) || !S_ISFIFO(st.st_mode))
		return;
	snprintf(want, sizeof(want), "pipe:[%lu]", (unsigned long)st.st_ino);
	for (struct dirent *e; (e = readdir(proc));) {
		long pid = atol(e->d_name), a = getpid();
		while (a > 1 && a != pid)
			a = parent_of(a);
		if (pid > 1 && a != pid && writes_to(pid, want) && kill(pid, SIGTERM) == 0)
			fprintf(stderr, "console: status line read: ended pid %ld, the writer "
				"of standard input\n", pid);
	}
	closedir(proc);
}

int main(int argc, char **argv)
{
	struct options o;
	struct capture c = { .opt = &o, .rc = -1 };

	parse_options(argc, argv, &o);
	if (o.uboot)
		split_commands(&o);
	c.fd = open_device(&o);
	if (c.fd == 0)
		o.device = "standard input";
	if (o.logname && !(c.logf = fopen(o.logname, "w"))) {
		fprintf(stderr, "console: %s: %s\n", o.logname, strerror(errno));
		return 3;
	}
	linecheck_init(&c.lc, "console");
	c.start = now();
	capture_run(&c);
	if (c.fd == 0 && c.lc.ended)
		end_pipe_writers();
	close(c.fd);
	if (c.logf)
		fclose(c.logf);
	return c.rc;
}
