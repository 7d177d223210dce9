/*
 * mmureport: mmubench logs in; LMbench-style tables, comparisons (a
 * significance test with Holm's correction, counts exactly), CSV, JSON
 * and gnuplot plots out.
 *
 *   mmureport [--strict] [--no-tables] [--compare A B]... [--csv FILE]
 *             [--json FILE] [--plot DIR] [--html FILE] [FILE|-]...
 *   mmureport --mwu X1,X2,... Y1,Y2,...
 *
 * Inputs (stdin without FILE): console logs of any board and any number of
 * runs, checked line by line by lib/linecheck.c as logcheck checks them,
 * and LMbench lat_mem_rd output.  See doc/mmureport.md.
 * Exit status: 0 report written; 1 --strict and lines were lost or garbled
 * (no output file but the --html page, which then shows each log's verdict
 * and no tables); 2 an input was not whole: not usable (not a log, empty,
 * unreadable, unknown format version: nothing from it is used) or a report
 * cut short (the log ends, or a new report begins, before its status line:
 * its run is kept up to there, marked partial) -- the report of the usable
 * runs is written all the same, unless none remains (then as on 1); 3
 * usage, I/O error, or the plots failed.  Files are written to a temporary
 * name and renamed.
 */
#include <dirent.h>
#include <sys/stat.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmureport.h"
#include "report_lmbench2.h"

static int help;		/* --help: the usage on stdout, status 0 */

static void usage(void)
{
	fprintf(help ? stdout : stderr,
		"usage: mmureport [--strict] [--no-tables] [--compare A B]... [--csv FILE] [--json FILE]\n"
		"                 [--plot DIR] [--html FILE] [FILE|-]...\n"
		"       mmureport --lmbench [--strict] [--compare NUM/DEN NUM/DEN]... [FILE|-]...\n"
		"                 (LMbench 2.0 summaries and logs in the LMbench 2.0 summary's layout)\n"
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

/* The page's plots go to a directory of their own beside the page. */
static char *plot_dir(const char *page)
{
	static char dir[4200];
	const char *slash = strrchr(page, '/');

	snprintf(dir, sizeof(dir), "%.*s.mmureport-html.XXXXXX", slash ? (int)(slash - page + 1) : 0,
		 page);
	return mkdtemp(dir);
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4500];

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* The page: plots drawn first (into a private directory), then written
 * through a temporary file.  Returns 0, or 3 on failure. */
static int html_out(const char *path, struct report *rep, struct html_page *pg)
{
	char tmp[4200], *dir = 0;
	int rc = 0, pr = -2;
	FILE *f;

	if (pg->tables) {
		if (!(dir = plot_dir(path))) {
			fprintf(stderr, "mmureport: --html %s: cannot create a directory for its plots\n", path);
			return 3;
		}
		pr = write_plots(rep, dir, 1);
		pg->svgdir = pr ? 0 : dir;
		pg->why_no_plots = pr == -2 ? "nothing to plot (no lat_mem, tlb, bw_mem or demand figures)" :
				   "gnuplot failed (its messages are on mmureport's stderr)";
		if (pr == -1)
			rc = 3;
	}
	mode_t mask = umask(0);
	umask(mask);
	if (!(f = out_open(path, tmp, sizeof(tmp))))
		rc = 3;
	else if (f != stdout && fchmod(fileno(f), 0666 & ~mask))	/* a page to share, not mkstemp's 0600 */
		rc = 3, out_close(f, tmp, path, 0);
	else if (out_close(f, tmp, path, !write_html(f, rep, pg) && !ferror(f)) < 0)
		rc = 3;
	if (dir)
		remove_dir(dir);
	return rc;
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

struct opts {
	const char *files[256], *cmp[32][2], *csv, *json, *plot, *html;
	int nfiles, ncmp, strict, tables, lmbench;
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	o->tables = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			help = 1, usage();
		if (!strcmp(argv[i], "--strict"))
			o->strict = 1;
		else if (!strcmp(argv[i], "--lmbench"))
			o->lmbench = 1;
		else if (!strcmp(argv[i], "--no-tables"))
			o->tables = 0;
		else if (!strcmp(argv[i], "--compare") && i + 2 < argc && o->ncmp < 32) {
			o->cmp[o->ncmp][0] = argv[i + 1], o->cmp[o->ncmp][1] = argv[i + 2];
			o->ncmp++, i += 2;
		} else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
			o->csv = argv[++i];
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			o->json = argv[++i];
		else if (!strcmp(argv[i], "--plot") && i + 1 < argc)
			o->plot = argv[++i];
		else if (!strcmp(argv[i], "--html") && i + 1 < argc)
			o->html = argv[++i];
		else if (!strcmp(argv[i], "--mwu") && i + 2 == argc - 1)
			exit(mwu_only(argv[i + 1], argv[i + 2]));
		else if ((argv[i][0] != '-' || !strcmp(argv[i], "-")) && o->nfiles < 256)
			o->files[o->nfiles++] = argv[i];
		else
			usage();
	}
	if (!o->nfiles)
		o->files[o->nfiles++] = "-";
	if (o->lmbench && (o->csv || o->json || o->plot || o->html || !o->tables)) {
		fprintf(stderr, "mmureport: --lmbench prints its table alone (with --compare, --strict)\n");
		usage();
	}
}

/* Every input, and for the page what the parser said of each. */
static void read_inputs(struct report *rep, const struct opts *o, struct html_input *in)
{
	for (int i = 0; i < o->nfiles; i++) {
		int saved = -1;
		FILE *t = o->html ? capture_begin(&saved) : 0;
		in[i].file = o->files[i];
		in[i].first_run = rep->nruns;
		in[i].unusable = report_read_file(rep, o->files[i]) == -1;
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
		     const struct html_input *in, int nin)
{
	static struct row rows[512];

	for (int s = 0; s < 2; s++)
		if (!select_rows(rep, cmp[s], rows, 512)) {
			fprintf(stderr, "mmureport: --compare %s %s: '%s' names no usable run (not usable:",
				cmp[0], cmp[1], cmp[s]);
			for (int i = 0; i < nin; i++)
				if (in[i].unusable)
					fprintf(stderr, " %s", in[i].file);
			fprintf(stderr, "): this comparison is left out\n");
			return 1;
		}
	return 0;
}

/* The whole page: the tables as print_tables gives them, the comparisons. */
static int html_full(const char *path, struct report *rep, struct html_page *pg, const char *cmp)
{
	char *text = 0;
	size_t len = 0;
	FILE *t = open_memstream(&text, &len);
	int rc;

	if (!t)
		return 3;
	print_tables(t, rep);
	fclose(t);
	pg->tables = text, pg->compare = cmp;
	rc = html_out(path, rep, pg);
	free(text);
	return rc;
}

/* The files asked for (--csv, --json, --plot, --html): each written whole or
 * not at all (out_open/out_close); 0, or 3 where one could not be written. */
static int write_files(const struct opts *o, struct report *rep, struct html_page *pg,
		       const char *cmp_text, const char *cmp_json)
{
	char tmp[4200];
	FILE *f;
	int rc = 0;

	if (o->csv) {
		if (!(f = out_open(o->csv, tmp, sizeof(tmp))))
			return 3;
		write_csv(f, rep);
		if (out_close(f, tmp, o->csv, !ferror(f)) < 0)
			rc = 3;
	}
	if (o->json) {
		if (!(f = out_open(o->json, tmp, sizeof(tmp))))
			return 3;
		fprintf(f, "{\"mmureport\": 1,\n");
		write_json_runs(f, rep);
		fprintf(f, ",\n\"comparisons\": [%s]}\n", cmp_json);
		if (out_close(f, tmp, o->json, !ferror(f)) < 0)
			rc = 3;
	}
	if (o->plot && write_plots(rep, o->plot, 0) < 0)
		rc = 3;
	if (o->html && html_full(o->html, rep, pg, cmp_text))
		rc = 3;
	return rc;
}

int main(int argc, char **argv)
{
	static struct opts o;
	static struct html_input in[256];
	static struct report rep;
	struct html_page pg = { 0 };
	char command[2000];

	parse_args(argc, argv, &o);
	if (o.lmbench)
		return lmbench_main(o.files, o.nfiles, o.cmp, o.ncmp, o.strict);
	int n = snprintf(command, sizeof(command), "mmureport");
	for (int i = 1; i < argc && n < (int)sizeof(command); i++)
		n += snprintf(command + n, sizeof(command) - n, " %s", argv[i]);
	pg.command = command, pg.inputs = in, pg.ninputs = o.nfiles;

	read_inputs(&rep, &o, in);
	int partial = 0;
	for (int i = 0; i < rep.nruns; i++)
		partial += !!rep.runs[i].partial;
	if (!rep.nruns) {
		fprintf(stderr, "mmureport: no usable run in the input(s): no report written%s\n",
			o.html ? " but the page's verdicts" : "");
		pg.verdict = "No input is a usable log: no tables, comparisons or plots (see each "
			     "log's verdict).";
		return o.html && html_out(o.html, &rep, &pg) ? 3 : 2;
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
		pg.verdict = "--strict, and lines were lost or garbled: no tables, comparisons or plots "
			     "(see each log's verdict).";
		if (o.strict)
			return o.html && html_out(o.html, &rep, &pg) ? 3 : broken ? 2 : 1;
		pg.verdict = 0;
	}

	/* Comparisons first into memory: a bad side is a usage error before any output,
	 * but a side that may have been an unusable input's run leaves out only its own. */
	char *cmp_text = 0, *cmp_json = 0;
	size_t cmp_len = 0, json_len = 0;
	FILE *ct = open_memstream(&cmp_text, &cmp_len), *cj = open_memstream(&cmp_json, &json_len);
	int made = 0, unmade = 0;
	if (!ct || !cj)
		return 3;
	for (int i = 0; i < o.ncmp; i++) {
		if (rep.errors && gone_side(&rep, o.cmp[i], in, o.nfiles)) {
			unmade++;
			continue;
		}
		if (made++)
			fprintf(cj, ",\n");
		if (print_compare(ct, cj, &rep, o.cmp[i][0], o.cmp[i][1]) < 0)
			return 3;
	}
	fclose(ct);
	fclose(cj);

	if (broken) {
		static char verdict[400];
		snprintf(verdict, sizeof(verdict), "Not every log is whole (%d not usable: nothing from "
			 "it is used; %d run(s) cut short: marked PARTIAL)%s; the tables, comparisons and "
			 "plots are of the usable runs (see each log's verdict).", rep.errors, partial,
			 unmade ? ", a comparison naming no usable run left out" : "");
		pg.verdict = verdict;
	}
	/* (A partial run is marked in the tables' Runs block, listed whenever one is.) */
	for (int i = 0; i < rep.nruns; i++)
		if (rep.runs[i].losses)
			printf("Note: %s (run %d): %d line(s) lost or garbled; their values are left out\n\n",
			       rep.runs[i].file, rep.runs[i].index, rep.runs[i].losses);
	if (o.tables)
		print_tables(stdout, &rep);
	fputs(cmp_text, stdout);
	fflush(stdout);

	int rc = write_files(&o, &rep, &pg, cmp_text, cmp_json);
	free(cmp_text);
	free(cmp_json);
	report_free(&rep);
	return rc ? rc : broken ? 2 : 0;
}
