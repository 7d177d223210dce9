/*
 * libFuzzer target: mmureport's log parser (tools/report_parse.c and its readers, with the
 * shared line check) and what it feeds: the tables, CSV and JSON; and the
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
		print_tables(null, &rep);
		write_csv(null, &rep);
		write_json_runs(null, &rep);
		if (rep.nruns && rep.runs[0].nmodes)
			print_compare(null, null, &rep, rep.runs[0].modes[0],
				      rep.runs[rep.nruns - 1].modes[0]);
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
