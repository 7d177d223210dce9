/*
 * mmureport: mmubench logs in; LMbench-style tables, comparisons (a
 * significance test with Holm's correction, counts exactly), CSV, JSON
 * and gnuplot plots out.
 *
 *   mmureport [--strict] [--no-tables] [--compare A B]... [--csv FILE]
 *             [--json FILE] [--plot DIR] [FILE|-]...
 *   mmureport --mwu X1,X2,... Y1,Y2,...
 *
 * Inputs (stdin without FILE): console logs of any board and any number of
 * runs, checked line by line by tools/linecheck.c as logcheck checks them,
 * and LMbench lat_mem_rd output.  See README "mmureport".
 * Exit status: 0 report written; 1 --strict and lines were lost or garbled;
 * 2 an input is not a usable log (not a log, truncated, unknown format
 * version); 3 usage, I/O error, or the plots failed.  On 1 and 2 no output
 * file is written; files are written to a temporary name and renamed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmureport.h"

static int help;		/* --help: the usage on stdout, status 0 */

static void usage(void)
{
	fprintf(help ? stdout : stderr,
		"usage: mmureport [--strict] [--no-tables] [--compare A B]... [--csv FILE] [--json FILE]\n"
		"                 [--plot DIR] [FILE|-]...\n"
		"       mmureport --mwu X1,X2,... Y1,Y2,...   (the Mann-Whitney test alone)\n"
		"A and B: a mode, a board, a run (board-N label, file, #N) or RUN:MODE\n");
	exit(help ? 0 : 3);
}

FILE *out_open(const char *path, char *tmp, size_t size)
{
	int fd;

	if (!strcmp(path, "-"))		/* standard output: nothing to rename */
		return stdout;
	snprintf(tmp, size, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "mmureport: %s: %s\n", path, strerror(errno));
		return 0;
	}
	return fdopen(fd, "w");
}

int out_close(FILE *f, const char *tmp, const char *path, int ok)
{
	if (f == stdout)
		return fflush(f) || !ok ? -1 : 0;
	if (fclose(f) || !ok) {
		unlink(tmp);
		if (ok)
			fprintf(stderr, "mmureport: %s: write error\n", path);
		return -1;
	}
	if (rename(tmp, path)) {
		fprintf(stderr, "mmureport: %s: %s\n", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int parse_values(const char *s, double *v, int max)
{
	int n = 0;
	char *end;

	while (*s && n < max) {
		v[n++] = strtod(s, &end);
		if (end == s || (*end && *end != ','))
			usage();
		s = *end ? end + 1 : end;
	}
	return n;
}

static int mwu_only(const char *x, const char *y)
{
	double a[1000], b[1000];
	int n1 = parse_values(x, a, 1000), n2 = parse_values(y, b, 1000);
	struct mwu t;

	mann_whitney(a, n1, b, n2, &t);
	printf("n1 %d n2 %d U %.1f p %.10g method %s p_min %.10g\n", n1, n2, t.u, t.p,
	       t.p < 0 ? "none" : t.exact ? "exact" : "normal", t.p_min);
	return 0;
}

int main(int argc, char **argv)
{
	const char *files[256], *cmp[32][2], *csv = 0, *json = 0, *plot = 0;
	int nfiles = 0, ncmp = 0, strict = 0, tables = 1, rc = 0;
	static struct report rep;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			help = 1, usage();
		if (!strcmp(argv[i], "--strict"))
			strict = 1;
		else if (!strcmp(argv[i], "--no-tables"))
			tables = 0;
		else if (!strcmp(argv[i], "--compare") && i + 2 < argc && ncmp < 32) {
			cmp[ncmp][0] = argv[i + 1], cmp[ncmp][1] = argv[i + 2];
			ncmp++, i += 2;
		} else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
			csv = argv[++i];
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strcmp(argv[i], "--plot") && i + 1 < argc)
			plot = argv[++i];
		else if (!strcmp(argv[i], "--mwu") && i + 2 == argc - 1)
			return mwu_only(argv[i + 1], argv[i + 2]);
		else if ((argv[i][0] != '-' || !strcmp(argv[i], "-")) && nfiles < 256)
			files[nfiles++] = argv[i];
		else
			usage();
	}
	if (!nfiles)
		files[nfiles++] = "-";

	for (int i = 0; i < nfiles; i++)
		if (report_read_file(&rep, files[i]) < 0)
			rep.errors++;
	if (rep.errors) {
		fprintf(stderr, "mmureport: %d input(s) not usable: no report written\n", rep.errors);
		return 2;
	}
	report_label(&rep);
	if (rep.losses) {
		fprintf(stderr, "mmureport: %d line(s) lost or garbled (named above); no value from a "
			"garbled line is used%s\n", rep.losses,
			strict ? "; --strict: no report written" : "");
		if (strict)
			return 1;
	}

	/* Comparisons first into memory: a bad side is a usage error before any output. */
	char *cmp_text = 0, *cmp_json = 0;
	size_t cmp_len = 0, json_len = 0;
	FILE *ct = open_memstream(&cmp_text, &cmp_len), *cj = open_memstream(&cmp_json, &json_len);
	if (!ct || !cj)
		return 3;
	for (int i = 0; i < ncmp; i++) {
		if (i)
			fprintf(cj, ",\n");
		if (print_compare(ct, cj, &rep, cmp[i][0], cmp[i][1]) < 0)
			return 3;
	}
	fclose(ct);
	fclose(cj);

	for (int i = 0; i < rep.nruns; i++)
		if (rep.runs[i].losses)
			printf("Note: %s (run %d): %d line(s) lost or garbled; their values are left out\n\n",
			       rep.runs[i].file, rep.runs[i].index, rep.runs[i].losses);
	if (tables)
		print_tables(stdout, &rep);
	fputs(cmp_text, stdout);
	fflush(stdout);

	char tmp[4200];
	FILE *f;
	if (csv) {
		if (!(f = out_open(csv, tmp, sizeof(tmp))))
			return 3;
		write_csv(f, &rep);
		if (out_close(f, tmp, csv, !ferror(f)) < 0)
			rc = 3;
	}
	if (json) {
		if (!(f = out_open(json, tmp, sizeof(tmp))))
			return 3;
		fprintf(f, "{\"mmureport\": 1,\n");
		write_json_runs(f, &rep);
		fprintf(f, ",\n\"comparisons\": [%s]}\n", cmp_json);
		if (out_close(f, tmp, json, !ferror(f)) < 0)
			rc = 3;
	}
	if (plot && write_plots(&rep, plot) < 0)
		rc = 3;
	free(cmp_text);
	free(cmp_json);
	report_free(&rep);
	return rc;
}
