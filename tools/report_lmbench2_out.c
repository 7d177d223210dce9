/*
 * The LMbench 2.0 summary's layout (scripts/getsummary: its sections,
 * column heads and widths), with the rows of LMbench summaries read by
 * report_lmbench2.c and one row per mmubench run x mode.
 *
 * An mmubench figure fills an LMbench column only where it means what
 * LMbench's does (`sources` below; the notes under the table say what
 * is left blank and why): the same method, the same unit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_lmbench2.h"

const struct lmb_section lmb_sections[LMB_SECTIONS] = {
	{ "Basic system parameters", 0, 2, 1,
	  { { { "Description", "" }, 23 }, { { "Mhz", "" }, 4 } } },
	{ "Processor, Processes - times in microseconds - smaller is better", 0, 11, 0,
	  { { { "Mhz", "" }, 4 }, { { "null", "call" }, 4 }, { { "null", "I/O" }, 4 },
	    { { "", "stat" }, 4 }, { { "open", "clos" }, 4 }, { { "selct", "TCP" }, 5 },
	    { { "sig", "inst" }, 4 }, { { "sig", "hndl" }, 4 }, { { "fork", "proc" }, 4 },
	    { { "exec", "proc" }, 4 }, { { "sh", "proc" }, 4 } } },
	{ "Context switching - times in microseconds - smaller is better", 0, 7, 0,
	  { { { "2p/0K", "ctxsw" }, 5 }, { { "2p/16K", "ctxsw" }, 6 }, { { "2p/64K", "ctxsw" }, 6 },
	    { { "8p/16K", "ctxsw" }, 6 }, { { "8p/64K", "ctxsw" }, 6 },
	    { { "16p/16K", "ctxsw" }, 7 }, { { "16p/64K", "ctxsw" }, 7 } } },
	{ "*Local* Communication latencies in microseconds - smaller is better", 0, 8, 0,
	  { { { "2p/0K", "ctxsw" }, 5 }, { { "Pipe", "" }, 5 }, { { "AF", "UNIX" }, 4 },
	    { { "UDP", "" }, 5 }, { { "RPC/", "UDP" }, 5 }, { { "TCP", "" }, 5 },
	    { { "RPC/", "TCP" }, 5 }, { { "TCP", "conn" }, 4 } } },
	{ "File & VM system latencies in microseconds - smaller is better", 0, 7, 0,
	  { { { "0K File", "Create" }, 6 }, { { "", "Delete" }, 6 }, { { "10K File", "Create" }, 6 },
	    { { "", "Delete" }, 6 }, { { "Mmap", "Latency" }, 7 }, { { "Prot", "Fault" }, 5 },
	    { { "Page", "Fault" }, 5 } } },
	{ "*Local* Communication bandwidths in MB/s - bigger is better", 0, 9, 0,
	  { { { "Pipe", "" }, 4 }, { { "AF", "UNIX" }, 4 }, { { "TCP", "" }, 4 },
	    { { "File", "reread" }, 6 }, { { "Mmap", "reread" }, 6 }, { { "Bcopy", "(libc)" }, 6 },
	    { { "Bcopy", "(hand)" }, 6 }, { { "Mem", "read" }, 4 }, { { "Mem", "write" }, 5 } } },
	{ "Memory latencies in nanoseconds - smaller is better",
	  "    (WARNING - may not be correct, check graphs)", 5, 1,
	  { { { "Mhz", "" }, 4 }, { { "L1 $", "" }, 5 }, { { "L2 $", "" }, 6 },
	    { { "Main mem", "" }, 8 }, { { "Guesses", "" }, 7 } } },
};

/* The title up to " in " or " - ": "Context switching", "File & VM system latencies". */
void lmb_short_title(int sec, char *out, size_t size)
{
	const char *t = lmb_sections[sec].title, *in = strstr(t, " in "), *dash = strstr(t, " - ");
	const char *end = in && (!dash || in < dash) ? in : dash ? dash : t + strlen(t);

	snprintf(out, size, "%.*s", (int)(end - t), t);
}

void lmb_col_name(int sec, int col, char *out, size_t size)
{
	const struct lmb_col *c = &lmb_sections[sec].col[col];
	const char *h0 = c->head[0];

	if (!h0[0] && sec == LMB_FILEVM)	/* "0K File" heads Create and Delete */
		h0 = lmb_sections[sec].col[col - 1].head[0];
	snprintf(out, size, "%s%s%s", h0, h0[0] && c->head[1][0] ? " " : "", c->head[1]);
}

/* A row's cells as a JSON object: "<section>: <column>" (short title and
 * column name), a figure in LMbench's unit (a text column's text), null
 * where unknown, absent where blank. */
static void json_cells(FILE *f, const struct lmb_row *r)
{
	char sec_name[64], col_name[48], key[128];
	int first = 1;

	fputs("{", f);
	for (int s = 0; s < LMB_SECTIONS; s++)
		for (int c = 0; c < lmb_sections[s].ncols; c++) {
			const struct lmb_cell *x = &r->cell[s][c];
			/* Text: Basic's Description (its first column), Guesses */
			int text = s == LMB_BASIC ? c == 0 :
				   lmb_sections[s].text_last && c == lmb_sections[s].ncols - 1;
			if (x->state == LMB_BLANK)
				continue;
			lmb_short_title(s, sec_name, sizeof(sec_name));
			lmb_col_name(s, c, col_name, sizeof(col_name));
			snprintf(key, sizeof(key), "%s: %s", sec_name, col_name);
			fputs(first ? "" : ", ", f);
			json_str(f, key);
			fputs(": ", f);
			if (text)
				json_str(f, x->text);
			else
				json_num(f, x->state == LMB_VALUE ? x->value : NAN);
			first = 0;
		}
	fputs("}", f);
}

/* The table as JSON, for tools that join it with other figures
 * (tools/model-ratios): a row per row, its cells (json_cells); an
 * mmubench row has its run's modes in the run's order (which mode index
 * is which). */
void lmb_write_json(FILE *f, const struct lmb_table *t)
{
	fputs("{\"mmureport_lmbench\": 1, \"rows\": [", f);
	for (int i = 0; i < t->n; i++) {
		const struct lmb_row *r = &t->rows[i];
		fputs(i ? ",\n {\"source\": " : "\n {\"source\": ", f);
		json_str(f, r->source);
		fputs(", \"host\": ", f);
		json_str(f, r->host);
		fputs(", \"os\": ", f);
		json_str(f, r->os);
		fprintf(f, ", \"lmbench\": %s, \"modes\": [", r->lmbench ? "true" : "false");
		for (int m = 0; r->run && m < r->run->nmodes; m++) {
			fputs(m ? ", " : "", f);
			json_str(f, r->run->modes[m]);
		}
		fputs("], \"cells\": ", f);
		json_cells(f, r);
		fputs("}", f);
	}
	fputs("]}\n", f);
}

struct lmb_row *lmb_new_row(struct lmb_table *t)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 32;
		t->rows = realloc(t->rows, t->cap * sizeof(*t->rows));
		if (!t->rows) {
			fprintf(stderr, "mmureport: out of memory\n");
			exit(3);
		}
	}
	memset(&t->rows[t->n], 0, sizeof(t->rows[0]));
	return &t->rows[t->n++];
}

void lmb_free(struct lmb_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

/* Where an mmubench figure is LMbench's: the column, the figure, the
 * divisor to LMbench's unit, and what the run must be for it to hold. */
enum need { ANY, PROCESS };		/* PROCESS: aspace switched processes (older logs' ring) */
static const struct source {
	int sec, col;
	const char *probe, *metric;
	double per;			/* the figure per LMbench unit: 1000 (ns a us), or 1 */
	enum need need;
} sources[] = {
	{ LMB_BASIC, 1, "cpu", "mhz", 1, ANY },			/* LMbench's mhz method */
	{ LMB_PROC, 0, "cpu", "mhz", 1, ANY },
	{ LMB_PROC, 1, "trap", "null_call_ns", 1000, ANY },	/* a trap and back (getppid) */
	/* Logs before the sandbox's ctx, pipe, signal, pagefault: its lat_sig,
	 * lat_pagefault in demand, its lat_ctx ring in aspace (switch_kind 3).
	 * The new names come later in this table, so they win where both are. */
	{ LMB_PROC, 7, "demand", "lat_sig_catch_ns", 1000, ANY },	/* lat_sig catch */
	{ LMB_PROC, 8, "fork", "fork_us", 1, ANY },		/* fork, exit, wait */
	{ LMB_PROC, 9, "exec", "exec_us", 1, ANY },		/* fork, exec, exit, wait */
	{ LMB_PROC, 10, "exec", "sh_us", 1, ANY },		/* the same through sh -c */
	{ LMB_CTX, 0, "aspace", "2p_0k_ns", 1000, PROCESS },	/* lat_ctx -s K N */
	{ LMB_CTX, 1, "aspace", "2p_16k_ns", 1000, PROCESS },
	{ LMB_CTX, 2, "aspace", "2p_64k_ns", 1000, PROCESS },
	{ LMB_CTX, 3, "aspace", "8p_16k_ns", 1000, PROCESS },
	{ LMB_CTX, 4, "aspace", "8p_64k_ns", 1000, PROCESS },
	{ LMB_CTX, 5, "aspace", "16p_16k_ns", 1000, PROCESS },
	{ LMB_CTX, 6, "aspace", "16p_64k_ns", 1000, PROCESS },
	{ LMB_LAT, 0, "aspace", "2p_0k_ns", 1000, PROCESS },	/* LMbench repeats it there */
	{ LMB_FILEVM, 5, "demand", "lat_sig_prot_ns", 1000, ANY },	/* lat_sig prot */
	{ LMB_FILEVM, 6, "demand", "lat_pagefault_ns", 1000, ANY },	/* lat_pagefault */
	/* The boards' processes, pipes, signals and file faults (boot/proc.c);
	 * the sandbox's the same by LMbench's methods under Linux. */
	{ LMB_FILEVM, 6, "pagefault", "pagefault_ns", 1000, ANY },	/* lat_pagefault */
	{ LMB_PROC, 7, "signal", "catch_ns", 1000, ANY },	/* lat_sig catch */
	{ LMB_FILEVM, 5, "signal", "prot_ns", 1000, ANY },	/* lat_sig prot, catch subtracted */
	{ LMB_LAT, 1, "pipe", "pipe_ns", 1000, ANY },		/* lat_pipe: a round trip */
	{ LMB_CTX, 0, "ctx", "2p_0k_ns", 1000, ANY },		/* lat_ctx -s K N */
	{ LMB_CTX, 1, "ctx", "2p_16k_ns", 1000, ANY },
	{ LMB_CTX, 2, "ctx", "2p_64k_ns", 1000, ANY },
	{ LMB_CTX, 3, "ctx", "8p_16k_ns", 1000, ANY },
	{ LMB_CTX, 4, "ctx", "8p_64k_ns", 1000, ANY },
	{ LMB_CTX, 5, "ctx", "16p_16k_ns", 1000, ANY },
	{ LMB_CTX, 6, "ctx", "16p_64k_ns", 1000, ANY },
	{ LMB_LAT, 0, "ctx", "2p_0k_ns", 1000, ANY },
	{ LMB_FILEVM, 4, "mmap", "lat_mmap_us", 1, ANY },	/* boards: lat_mmap, largest fitting */
	{ LMB_BW, 5, "bw_mem", "cp_libc_mbs", 1, ANY },		/* bw_mem bcopy, beyond the caches */
	/* LMbench 2.0's loops (512-byte blocks, fwr descending); the older
	 * cp_hand, rd, wr (8 words ascending; wr 3-4x fwr on a Zen 3) are not */
	{ LMB_BW, 6, "bw_mem", "fcp_mbs", 1, ANY },		/* bw_mem fcp */
	{ LMB_BW, 7, "bw_mem", "frd_mbs", 1, ANY },		/* bw_mem frd */
	{ LMB_BW, 8, "bw_mem", "fwr_mbs", 1, ANY },		/* bw_mem fwr */
	{ LMB_MEM, 0, "cpu", "mhz", 1, ANY },
};

static int holds(const struct run *r, const char *mode, enum need need)
{
	const struct meas *k = run_find(r, "aspace", mode, "switch_kind");

	return need == ANY || (k && k->value == 3);	/* table_defs.c's "process" */
}

void lmb_add_runs(struct lmb_table *t, const struct report *rep)
{
	for (int i = 0; i < rep->nruns; i++) {
		const struct run *r = &rep->runs[i];
		for (int k = 0; k < r->nmodes; k++) {
			struct lmb_row *row = lmb_new_row(t);
			snprintf(row->source, sizeof(row->source), "%s", r->label);
			snprintf(row->host, sizeof(row->host), "%s", r->label);
			snprintf(row->os, sizeof(row->os), "%s", r->modes[k]);
			row->run = r;
			struct lmb_cell *d = &row->cell[LMB_BASIC][0];
			d->state = LMB_VALUE;
			snprintf(d->text, sizeof(d->text), "mmubench %s", r->arch[0] ? r->arch : r->board);
			for (size_t s = 0; s < sizeof(sources) / sizeof(sources[0]); s++) {
				const struct source *src = &sources[s];
				const struct meas *m = run_find(r, src->probe, r->modes[k], src->metric);
				if (!m || !(m->value > 0) || !holds(r, r->modes[k], src->need))
					continue;
				row->cell[src->sec][src->col].state = LMB_VALUE;
				row->cell[src->sec][src->col].value = m->value / src->per;
			}
		}
	}
}

/* As getsummary's num(): K and M above 10 thousand and 10 million, one
 * decimal above 10, else as many decimals as fit; cut to the width. */
void lmb_format(double v, int width, int whole, char *out, size_t size)
{
	char s[64];
	int w = width;

	if (!(v > 0) || !isfinite(v)) {
		out[0] = 0;
		return;
	}
	if (whole)
		snprintf(s, sizeof(s), "%.0f", v);
	else if (v >= 1e7 || v >= 1e4) {
		snprintf(s, sizeof(s), "%.1f", v >= 1e7 ? v / 1e6 : v / 1e3);
		w = width - 1;
		snprintf(s + (strlen(s) < (size_t)w ? strlen(s) : (size_t)w), 2, "%c", v >= 1e7 ? 'M' : 'K');
		w = width;
	} else if (v >= 10)
		snprintf(s, sizeof(s), "%.1f", v);
	else if (v < 0.001)
		snprintf(s, sizeof(s), "%.0e", v);
	else
		snprintf(s, sizeof(s), "%.*f", width > 2 ? width - 2 : 0, v);
	snprintf(out, size, "%.*s", w, s);
}

static int whole(int sec, int col)	/* the Mhz columns: LMbench prints them %4.0f */
{
	return (sec == LMB_BASIC && col == 1) || (sec == LMB_PROC && col == 0) ||
	       (sec == LMB_MEM && col == 0);
}

/* Head lines and the rule: each head at its column's start, pushed right
 * where the one before ran long (as "0K File" does in LMbench's). */
static void print_heads(FILE *f, const struct lmb_section *sd)
{
	int n = fprintf(f, "%s\n%s%s", sd->title, sd->extra ? sd->extra : "", sd->extra ? "\n" : "");

	n = strlen(sd->title);
	while (n--)
		fputc('-', f);
	fputc('\n', f);
	for (int h = 0; h < 2; h++) {
		char line[300];
		int at = 24, end = 0, any = !h;
		memset(line, ' ', sizeof(line));
		if (!h)
			memcpy(line, "Host", 4), memcpy(line + 21, "OS", 2), end = 23;
		for (int c = 0; c < sd->ncols; c++) {
			const char *s = sd->col[c].head[h];
			int p = at > end + 1 ? at : end + 1, len = strlen(s);
			if (len && p + len < (int)sizeof(line))
				memcpy(line + p, s, len), end = p + len, any = 1;
			at += 1 + sd->col[c].width;
		}
		if (any)
			fprintf(f, "%.*s\n", end, line);
	}
	fprintf(f, "--------- -------------");
	for (int c = 0; c < sd->ncols; c++) {
		fputc(' ', f);
		for (int k = 0; k < sd->col[c].width; k++)
			fputc('-', f);
	}
	fputc('\n', f);
}

static void print_row(FILE *f, int sec, const struct lmb_row *r)
{
	const struct lmb_section *sd = &lmb_sections[sec];
	char line[400], cell[64];
	int n = snprintf(line, sizeof(line), "%-9.9s %13.13s", r->host, r->os);

	for (int c = 0; c < sd->ncols && n < (int)sizeof(line) - 80; c++) {
		const struct lmb_cell *x = &r->cell[sec][c];
		int w = sd->col[c].width;
		if (x->state == LMB_UNKNOWN)
			snprintf(cell, sizeof(cell), "?");
		else if (x->text[0])
			snprintf(cell, sizeof(cell), "%s", x->text);
		else
			lmb_format(x->state == LMB_VALUE ? x->value : 0, w, whole(sec, c), cell, sizeof(cell));
		if (sd->text_last && c == sd->ncols - 1 && sec != LMB_BASIC)
			n += snprintf(line + n, sizeof(line) - n, " %s", cell);	/* Guesses: text */
		else
			n += snprintf(line + n, sizeof(line) - n, " %*s", w, cell);
	}
	while (n && line[n - 1] == ' ')
		n--;
	fprintf(f, "%.*s\n", n, line);
}

/* What the rows are, what a blank means, and which figures are not
 * LMbench's although named alike. */
static void print_notes(FILE *f, const struct lmb_table *t, const struct report *rep)
{
	fprintf(f, "\nRows:\n");
	for (int i = 0; i < t->n; i++)
		if (t->rows[i].lmbench && (!i || strcmp(t->rows[i - 1].source, t->rows[i].source)))
			fprintf(f, "  %s: an LMbench 2.0 summary's rows, as it printed them\n",
				t->rows[i].source);
	for (int i = 0; i < rep->nruns; i++)
		fprintf(f, "  %s: mmubench (%s), Host the board, OS the MMU mode;\n    figures from %s\n",
			rep->runs[i].label, rep->runs[i].file, rep->runs[i].platform[0] ?
			rep->runs[i].platform : "an unnamed platform");
	fprintf(f, "Blank: no such figure.  An mmubench row fills a column only with a figure that "
		"means what LMbench's does:\n"
		"  Mhz (cpu: LMbench's mhz method); null call (trap: a system-call trap from user "
		"mode and back, its\n  handler touching trap_kb of kernel data; getppid() under an "
		"OS); fork proc (fork: a copy-on-write\n  fork of a fork_kb parent, the child's "
		"fork_writes page writes, its exit; fork()+_exit+wait under an\n  OS); exec proc "
		"(exec: that fork, an exec of a 64 KiB image, its run and exit; fork+execve+wait\n"
		"  of a static program under an OS); sh proc (exec's sh_us: the same through /bin/sh -c, "
		"under an OS\n  only); sig hndl, "
		"Prot Fault, Page Fault (signal's catch\n  and prot, pagefault: lat_sig catch, lat_sig prot, "
		"lat_pagefault; older sandbox logs' demand\n  lat_sig_*, lat_pagefault); ctxsw and Pipe "
		"(ctx, pipe: lat_ctx's ring, lat_pipe; older\n  sandbox logs' aspace where it switched "
		"processes); Bcopy (libc), Bcopy (hand), Mem\n  read, Mem write (bw_mem beyond "
		"the caches: memcpy as bcopy; fcp_mbs,\n  frd_mbs, fwr_mbs: LMbench's fcp, frd, fwr loops; "
		"a log without them, Bcopy (hand), Mem read,\n  Mem write blank: its cp_hand, rd, wr are "
		"8-word ascending loops, not LMbench's).\n"
		"Left blank on purpose (mmureport's own tables have them): a board's demand and "
		"protect faults\n  (an exception into mmubench's hook: no kernel, no signal to a user "
		"handler) are not Page Fault or\n  Prot Fault; remap_batch (16 pages, no file, no "
		"system call) and mmap (every page of mmap_kb written) are\n  not Mmap Latency (LMbench 2 writes a byte per 16 KiB of the first tenth); a board's aspace\n  (an address-space switch, no "
		"scheduler) is not ctxsw; lat_mem's L1/L2/memory are levels of its\n  random chase, "
		"LMbench's the stride-128 chase at 1 KiB, 128 KiB and 8 MiB (a log does not say\n"
		"  lat_mem's stride); a board's sh proc: no shell.\n");
	if (t->unknown)
		fprintf(f, "?: the summary has a figure here or in a column next to it, but its text "
			"cannot say which\n  (its spacing was lost): %d cell(s), named on stderr.\n",
			t->unknown);
}

void lmb_print(FILE *f, const struct lmb_table *t, const struct report *rep)
{
	fprintf(f, "                 L M B E N C H  2 . 0   S U M M A R Y\n"
		   "                 ------------------------------------\n");
	for (int s = 0; s < LMB_SECTIONS; s++) {
		fputc('\n', f);
		print_heads(f, &lmb_sections[s]);
		for (int i = 0; i < t->n; i++)
			print_row(f, s, &t->rows[i]);
	}
	print_notes(f, t, rep);
}
