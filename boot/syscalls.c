/* The system calls newlib needs, and nothing more: the console for
 * stdout/stderr, a bounded heap, and the board's exit. */
#include <errno.h>
#include <sys/stat.h>
#include "arch.h"
#include "board.h"
#include "config.h"
#include "mem.h"

/* These are newlib's system calls: it declares them only for its own
 * build (_COMPILING_NEWLIB), so there is no header to include. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

int _write(int fd, const char *buf, int len)
{
	if (fd != 1 && fd != 2) {
		errno = EBADF;
		return -1;
	}
	for (int i = 0; i < len; i++) {
		if (buf[i] == '\n')
			board_putc('\r');
		board_putc(buf[i]);
	}
	return len;
}

int _read(int fd, char *buf, int len)
{
	(void)fd, (void)buf, (void)len;
	errno = EBADF;
	return -1;
}

void *_sbrk(int incr)
{
	return heap_sbrk(incr);		/* boot/mem.c */
}

void _exit(int status)
{
	board_exit(config.exit, status);
}

int _close(int fd) { (void)fd; errno = EBADF; return -1; }
int _lseek(int fd, int off, int whence) { (void)fd, (void)off, (void)whence; errno = ESPIPE; return -1; }
int _isatty(int fd) { return fd <= 2; }
int _getpid(void) { return 1; }
int _kill(int pid, int sig) { (void)pid, (void)sig; errno = EINVAL; return -1; }

int _fstat(int fd, struct stat *st)
{
	(void)fd;
	st->st_mode = S_IFCHR;
	return 0;
}

/* Some newlib targets (powerpc-eabi) call the names without underscore. */
int write(int, const char *, int) __attribute__((alias("_write")));
int read(int, char *, int) __attribute__((alias("_read")));
void *sbrk(int) __attribute__((alias("_sbrk")));
int close(int) __attribute__((alias("_close")));
int lseek(int, int, int) __attribute__((alias("_lseek")));
int isatty(int) __attribute__((alias("_isatty")));
int fstat(int, struct stat *) __attribute__((alias("_fstat")));
int getpid(void) __attribute__((alias("_getpid")));
int kill(int, int) __attribute__((alias("_kill")));
