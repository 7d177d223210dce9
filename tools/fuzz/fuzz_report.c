/*
 * libFuzzer target: mmureport's log parser (tools/report_parse.c and its readers, with the
 * shared line check) and what it feeds: the tables, the model's JSON (every
 * string in it visible text: no control character, valid UTF-8); and the
 * LMbench 2.0 summary reader (tools/report_lmbench2.c) with --lmbench's
 * table and ratios.
 * Built by `make fuzz` with clang -fsanitize=fuzzer,address,undefined.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mmureport.h"
#include "report_lmbench2.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* visible_copy's promise: no control character, and UTF-8 a decoder takes. */
static void check_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = *p < 0x80 ? 1 : *p >= 0xc2 && *p <= 0xdf ? 2 : *p >= 0xe0 && *p <= 0xef ? 3 :
			*p >= 0xf0 && *p <= 0xf4 ? 4 : 0;
		if (!n || *p < 0x20 || *p == 0x7f)
			abort();
		for (int j = 1; j < n; j++)
			if ((p[j] & 0xc0) != 0x80)
				abort();
		p += n;
	}
}

static void check_run(const struct run *r)
{
	const char *text[] = { r->file, r->label, r->board, r->arch, r->version, r->cpu,
			       r->platform, r->args, r->status, r->timing };

	for (unsigned i = 0; i < sizeof(text) / sizeof(text[0]); i++)
		check_text(text[i]);
	for (int k = 0; k < r->nmodes; k++)
		check_text(r->modes[k]);
	for (int k = 0; k < r->nm; k++) {
		check_text(r->m[k].probe), check_text(r->m[k].mode);
		check_text(r->m[k].metric), check_text(r->m[k].unit);
	}
	for (int k = 0; k < r->nres; k++)
		check_text(r->res[k].name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct report rep = { 0 };

	if (!null) {
		null = fopen("/dev/null", "w");
		stderr = null;	/* the parser's messages; fd 2 stays for the sanitizers */
	}
	if (report_read_buffer(&rep, "fuzz", (const char *)data, size, "2026-01-01") != -1) {
		report_label(&rep);
		for (int i = 0; i < rep.nruns; i++)
			check_run(&rep.runs[i]);
		print_tables(null, &rep);
		write_tables_json(null, &rep);
		write_json_runs(null, &rep);
		const struct run *last = rep.nruns ? &rep.runs[rep.nruns - 1] : 0;
		if (rep.nruns && rep.runs[0].nmodes)
			print_compare(null, null, &rep, rep.runs[0].modes[0],
				      last->nmodes ? last->modes[0] : rep.runs[0].modes[0]);
	}
	report_free(&rep);

	struct lmb_table t = { 0 };
	if (lmb_read_summary(&t, "fuzz", "lmbench", (const char *)data, size) == 0 && t.n) {
		char a[40], b[40];
		lmb_print(null, &t, &rep);
		snprintf(a, sizeof(a), "%s/%s", t.rows[0].host, t.rows[t.n - 1].host);
		snprintf(b, sizeof(b), "%s/%s", t.rows[t.n - 1].host, t.rows[0].host);
		lmb_compare(null, &t, a, b);
	}
	lmb_free(&t);
	return 0;
}
