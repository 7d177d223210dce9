/*
 * mmureport-core: mmubench logs in; LMbench-style tables and comparisons
 * (a significance test with Holm's correction, counts exactly) on
 * standard output, and with --model FILE everything read as JSON, for
 * tools/mmureport (the command users run), which writes CSV, JSON, plots
 * and the page from it.
 *
 *   mmureport-core [--strict] [--no-tables] [--compare A B]... [--model FILE]
 *                  [FILE|-]...
 *   mmureport-core --lmbench [--strict] [--compare NUM/DEN NUM/DEN]... [--model FILE]
 *                  [FILE|-]...
 *   mmureport-core --mwu X1,X2,... Y1,Y2,...
 *
 * Inputs (stdin without FILE): console logs of any board and any number of
 * runs, checked line by line by lib/linecheck.c as logcheck checks them,
 * and LMbench lat_mem_rd output.  See doc/mmureport.md.
 * Exit status: 0 report written; 1 --strict and lines were lost or garbled
 * (no tables; the model says strict_failed); 2 an input was not whole: not
 * usable (not a log, empty, unreadable, unknown format version: nothing
 * from it is used) or a report cut short (the log ends, or a new report
 * begins, before its status line: its run is kept up to there, marked
 * partial) -- the report of the usable runs is written all the same,
 * unless none remains; 3 usage or I/O error.  The model is written to a
 * temporary name and renamed.  With --lmbench, --model FILE is the table
 * as JSON (lmb_write_json), for tools/mmureport's --json.
 */
#include <errno.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmureport.h"
#include "report_lmbench2.h"
#include "report_read.h"

static int help;		/* --help: the usage on stdout, status 0 */

static void usage(void)
{
	fprintf(help ? stdout : stderr,
		"usage: mmureport-core [--strict] [--no-tables] [--compare A B]... [--model FILE] [FILE|-]...\n"
		"       mmureport-core --lmbench [--strict] [--compare NUM/DEN NUM/DEN]... [--model FILE]\n"
		"                      [FILE|-]...\n"
		"       mmureport-core --mwu X1,X2,... Y1,Y2,...   (the Mann-Whitney test alone)\n"
		"A and B: a mode, a board, a run (board-N label, file, #N) or RUN:MODE\n"
		"(tools/mmureport, the command to run, adds --csv, --json, --plot and --html)\n");
	exit(help ? 0 : 3);
}

FILE *out_open(const char *path, char *tmp, size_t size)
{
	int fd;

	struct stat st;

	if (!strcmp(path, "-"))		/* standard output: nothing to rename */
		return stdout;
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		/* /dev/null, a FIFO: written as it is (renaming over it replaced it) */
		FILE *f = fopen(path, "w");
		if (!f)
			fprintf(stderr, "mmureport: %s: %s\n", path, strerror(errno));
		tmp[0] = 0;
		return f;
	}
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
	if (!tmp[0]) {			/* not a regular file: no rename */
		if (fclose(f) || !ok) {
			if (ok)
				fprintf(stderr, "mmureport: %s: write error\n", path);
			return -1;
		}
		return 0;
	}
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

/* The parser's messages about one input, for the page (and still on stderr). */
static FILE *capture_begin(int *saved)
{
	FILE *t = tmpfile();

	fflush(stderr);
	*saved = t ? dup(2) : -1;
	if (*saved >= 0)
		dup2(fileno(t), 2);
	return t;
}

static char *capture_end(FILE *t, int saved)
{
	char *buf = 0;
	size_t cap = 0;

	if (!t)
		return 0;
	fflush(stderr);
	if (saved >= 0) {
		dup2(saved, 2);
		close(saved);
	}
	rewind(t);
	if (getdelim(&buf, &cap, '\0', t) < 0 && buf)
		buf[0] = 0;
	if (buf)
		fputs(buf, stderr);
	fclose(t);
	return buf;
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

struct input {
	const char *file;
	int unusable;			/* nothing usable in it (report_read_file: -1) */
	int partial;			/* a report in it was cut short (-2) */
	int first_run, nruns;		/* its runs in the report */
	char *messages;			/* what the parser said about it */
};

struct opts {
	const char **files, *(*cmp)[2], *model;
	int nfiles, ncmp, strict, tables, lmbench;
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	o->tables = 1;
	o->files = calloc(argc + 1, sizeof(*o->files));
	o->cmp = calloc(argc + 1, sizeof(*o->cmp));
	if (!o->files || !o->cmp)
		exit(3);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			help = 1, usage();
		if (!strcmp(argv[i], "--strict"))
			o->strict = 1;
		else if (!strcmp(argv[i], "--lmbench"))
			o->lmbench = 1;
		else if (!strcmp(argv[i], "--no-tables"))
			o->tables = 0;
		else if (!strcmp(argv[i], "--compare") && i + 2 < argc) {
			o->cmp[o->ncmp][0] = argv[i + 1], o->cmp[o->ncmp][1] = argv[i + 2];
			o->ncmp++, i += 2;
		} else if (!strcmp(argv[i], "--model") && i + 1 < argc)
			o->model = argv[++i];
		else if (!strcmp(argv[i], "--mwu") && i + 2 == argc - 1)
			exit(mwu_only(argv[i + 1], argv[i + 2]));
		else if (argv[i][0] != '-' || !strcmp(argv[i], "-"))
			o->files[o->nfiles++] = argv[i];
		else
			usage();
	}
	if (!o->nfiles)
		o->files[o->nfiles++] = "-";
	if (o->lmbench && !o->tables) {
		fprintf(stderr, "mmureport: --lmbench prints its table alone (with --compare, --strict)\n");
		usage();
	}
}

/* Every input, and for the model what the parser said of each. */
static void read_inputs(struct report *rep, const struct opts *o, struct input *in)
{
	for (int i = 0; i < o->nfiles; i++) {
		int saved = -1, rc;
		FILE *t = o->model ? capture_begin(&saved) : 0;
		in[i].file = o->files[i];
		in[i].first_run = rep->nruns;
		rc = report_read_file(rep, o->files[i]);
		in[i].unusable = rc == -1;
		in[i].partial = rc == -2;
		in[i].nruns = rep->nruns - in[i].first_run;
		in[i].messages = capture_end(t, saved);
		rep->errors += in[i].unusable;
	}
	report_label(rep);
}

/* A comparison's side that selects no run while an input gave none: it
 * may have named that input's run, so the comparison is left out (said
 * here) rather than the whole report.  Returns 1 when so. */
static int gone_side(const struct report *rep, const char *const cmp[2],
		     const struct input *in, int nin)
{
	int max = report_rows_max(rep), gone = 0;
	struct row *rows = calloc(max + 1, sizeof(*rows));

	if (!rows)
		exit(3);
	for (int s = 0; s < 2 && !gone; s++)
		if (!select_rows(rep, cmp[s], rows, max)) {
			fprintf(stderr, "mmureport: --compare %s %s: '%s' names no usable run (not usable:",
				cmp[0], cmp[1], cmp[s]);
			for (int i = 0; i < nin; i++)
				if (in[i].unusable)
					fprintf(stderr, " %s", in[i].file);
			fprintf(stderr, "): this comparison is left out\n");
			gone = 1;
		}
	free(rows);
	return gone;
}

/* The model (--model): what was read, the tables and comparisons as
 * data, and the status this run exits with.  0, or 3 on an I/O error. */
static int write_model(const char *path, const struct report *rep, const struct input *in,
		       int nin, const char *cmp_json, int status, int strict_failed)
{
	char tmp[4200];
	FILE *f = out_open(path, tmp, sizeof(tmp));

	if (!f)
		return 3;
	fprintf(f, "{\"mmureport\": 1, \"status\": %d, \"strict_failed\": %s,\n\"inputs\": [",
		status, strict_failed ? "true" : "false");
	for (int i = 0; i < nin; i++) {
		fprintf(f, "%s\n {\"file\": ", i ? "," : "");
		json_str(f, in[i].file);
		fprintf(f, ", \"usable\": %s, \"partial\": %s, \"first_run\": %d, \"runs\": %d, "
			"\"messages\": ", in[i].unusable ? "false" : "true", in[i].partial ? "true" : "false",
			in[i].nruns ? in[i].first_run + 1 : 0, in[i].nruns);
		json_str(f, in[i].messages ? in[i].messages : "");
		fprintf(f, "}");
	}
	fprintf(f, "],\n");
	write_json_runs(f, rep);
	fprintf(f, ",\n\"runs_listed\": %s,\n", rep->nruns && runs_listed(rep) ? "true" : "false");
	write_tables_json(f, rep);
	fprintf(f, ",\n\"comparisons\": [%s]}\n", cmp_json ? cmp_json : "");
	return out_close(f, tmp, path, !ferror(f)) < 0 ? 3 : 0;
}

int main(int argc, char **argv)
{
	static struct opts o;
	static struct report rep;
	struct input *in;

	parse_args(argc, argv, &o);
	if (o.lmbench)
		return lmbench_main(o.files, o.nfiles, o.cmp, o.ncmp, o.strict, o.model);
	if (!(in = calloc(o.nfiles, sizeof(*in))))
		return 3;
	read_inputs(&rep, &o, in);
	int partial = 0;
	for (int i = 0; i < rep.nruns; i++)
		partial += !!rep.runs[i].partial;
	if (!rep.nruns) {
		fprintf(stderr, "mmureport: no usable run in the input(s): no report written\n");
		return o.model && write_model(o.model, &rep, in, o.nfiles, 0, 2, 0) ? 3 : 2;
	}
	/* One broken log never hides the others: the rest is reported, status 2. */
	int broken = rep.errors || partial;
	if (broken) {
		fprintf(stderr, "mmureport: ");
		if (rep.errors)
			fprintf(stderr, "%d input(s) not usable (nothing from them used)%s", rep.errors,
				partial ? ", " : "");
		if (partial)
			fprintf(stderr, "%d run(s) cut short (kept, marked partial)", partial);
		fprintf(stderr, ": the report is of the usable runs; status 2\n");
	}
	if (rep.losses) {
		fprintf(stderr, "mmureport: %d line(s) lost or garbled (named above); no value from a "
			"garbled line is used%s\n", rep.losses,
			o.strict ? "; --strict: no report written" : "");
		if (o.strict) {
			int rc = broken ? 2 : 1;
			return o.model && write_model(o.model, &rep, in, o.nfiles, 0, rc, 1) ? 3 : rc;
		}
	}

	/* Comparisons first into memory: a bad side is a usage error before any output,
	 * but a side that may have been an unusable input's run leaves out only its own. */
	char *cmp_text = 0, *cmp_json = 0;
	size_t cmp_len = 0, json_len = 0;
	FILE *ct = open_memstream(&cmp_text, &cmp_len), *cj = open_memstream(&cmp_json, &json_len);
	int made = 0;
	if (!ct || !cj)
		return 3;
	for (int i = 0; i < o.ncmp; i++) {
		if (rep.errors && gone_side(&rep, o.cmp[i], in, o.nfiles))
			continue;
		if (made++)
			fprintf(cj, ",\n");
		if (print_compare(ct, cj, &rep, o.cmp[i][0], o.cmp[i][1]) < 0)
			return 3;
	}
	fclose(ct);
	fclose(cj);

	/* (A partial run is marked in the tables' Runs block, listed whenever one is.) */
	for (int i = 0; i < rep.nruns; i++)
		if (rep.runs[i].losses)
			printf("Note: %s (run %d): %d line(s) lost or garbled; their values are left out\n\n",
			       rep.runs[i].file, rep.runs[i].index, rep.runs[i].losses);
	if (o.tables)
		print_tables(stdout, &rep);
	fputs(cmp_text, stdout);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "mmureport: standard output: write error\n");
		return 3;
	}
	int status = broken ? 2 : 0;
	int rc = o.model ? write_model(o.model, &rep, in, o.nfiles, cmp_json, status, 0) : 0;
	free(cmp_text);
	free(cmp_json);
	report_free(&rep);
	return rc ? rc : status;
}
