/*
 * logcheck: check an mmubench console log for integrity and outcome.
 *
 *   logcheck [--echo] [FILE]
 *
 * Reads the log (FILE or stdin), optionally echoing every line to stdout as
 * it arrives.  From "KTAP version 1" to the status line every line must carry
 * "  @<seq>:<crc32>" with consecutive sequence numbers and a matching CRC;
 * table lines between "# tables begin" and "# tables end" are checked by the
 * end line's count and CRC (tools/linecheck.c, shared with tools/console).
 * Exit status:
 *   0  intact, and the run passed
 *   1  intact, and the run failed (status fail, or Totals with failures)
 *   2  not intact: lost, garbled, reordered or truncated lines
 *   3  usage or I/O error
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "linecheck.h"

int main(int argc, char **argv)
{
	struct linecheck lc;
	int echo = 0;
	char line[4096];
	FILE *in = stdin;

	for (int i = 1; i < argc; i++) {
		int help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
		if (!strcmp(argv[i], "--echo"))
			echo = 1;
		else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(help ? stdout : stderr, "usage: logcheck [--echo] [FILE]\n");
			return help ? 0 : 3;
		} else if (!(in = fopen(argv[i], "r"))) {
			fprintf(stderr, "logcheck: %s: %s\n", argv[i], strerror(errno));
			return 3;
		}
	}

	linecheck_init(&lc, "logcheck");
	while (fgets(line, sizeof(line), in)) {
		size_t n = strlen(line);
		if (echo) {
			fputs(line, stdout);
			fflush(stdout);
		}
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		linecheck_line(&lc, line);
	}
	if (ferror(in)) {
		fprintf(stderr, "logcheck: read error\n");
		return 3;
	}
	return linecheck_finish(&lc);
}
