/* What CPUID said (cpuid.h), as banner lines and as cpuid.<mode>.*
 * measurements; a size nothing reported is left out, never printed as 0. */
#include <stdio.h>
#include <string.h>
#include "cpuid.h"
#include "report.h"

static const char *const page_name[X86_PAGE_KINDS] = { "4K", "2M/4M", "1G" };

/* "4K 64 (4-way) 2M/4M 32 (full) ..." for the sizes reported at a level. */
static void level_text(const struct x86_tlb *t, char *buf, size_t size)
{
	buf[0] = 0;
	for (int p = 0; p < X86_PAGE_KINDS; p++) {
		size_t n = strlen(buf);
		char ways[24];
		if (!t[p].entries)
			continue;
		if (!t[p].ways)
			snprintf(ways, sizeof(ways), "ways ?");
		else if (t[p].ways == t[p].entries)
			snprintf(ways, sizeof(ways), "fully assoc.");
		else
			snprintf(ways, sizeof(ways), "%s%lu-way", t[p].ways_at_least ? ">=" : "",
				 (unsigned long)t[p].ways);
		snprintf(buf + n, size - n, "%s%s %lu (%s)", n ? " " : "", page_name[p],
			 (unsigned long)t[p].entries, ways);
	}
	if (!buf[0])
		snprintf(buf, size, "not reported");
}

void x86_describe_cpuid(const struct x86_cpu_desc *d)
{
	char l1[96], l2[96], it[32] = "";

	report_diag("cpu caches (%s): L1d %lu KiB, L1i %lu KiB, L2 %lu KiB, L3 %lu KiB, line %lu B",
		    d->cache_src ? d->cache_src : "not reported by CPUID",
		    (unsigned long)d->l1d >> 10, (unsigned long)d->l1i >> 10,
		    (unsigned long)d->l2 >> 10, (unsigned long)d->l3 >> 10, (unsigned long)d->line);
	level_text(d->dtlb[X86_TLB_L1], l1, sizeof(l1));
	level_text(d->dtlb[X86_TLB_L2], l2, sizeof(l2));
	if (d->itlb)
		snprintf(it, sizeof(it), "; iTLB 4K %lu", (unsigned long)d->itlb);
	if (d->tlb_src)
		report_diag("cpu TLBs (%s): dTLB %s; STLB %s%s", d->tlb_src, l1, l2, it);
	else
		report_diag("cpu TLBs (not reported by CPUID): none: TLB sizes unknown, measured "
			    "by the tlb probe");
	if (d->tlb_note[0])
		report_diag("cpu TLBs: %s", d->tlb_note);
}

/* cpuid.<mode>.*: l1d_bytes ... line_bytes, then per level (dtlb = L1,
 * stlb = L2) and page size (4K, large = 2M/4M, 1g) entries and ways. */
void x86_report_cpuid(const struct x86_cpu_desc *d, const char *mode)
{
	static const char *const level[X86_TLB_LEVELS] = { "dtlb", "stlb" };
	static const char *const page[X86_PAGE_KINDS] = { "", "_large", "_1g" };
	const struct { const char *name; uint32_t v; } caches[] = {
		{ "l1d_bytes", d->l1d }, { "l1i_bytes", d->l1i }, { "l2_bytes", d->l2 },
		{ "l3_bytes", d->l3 }, { "line_bytes", d->line },
	};
	const struct { const char *name; uint32_t v; } ways[] = {
		{ "l1d_ways", d->l1d_ways }, { "l2_ways", d->l2_ways }, { "l3_ways", d->l3_ways },
	};
	char name[40];

	for (unsigned i = 0; i < sizeof(caches) / sizeof(caches[0]); i++)
		if (caches[i].v)
			report_measurement("cpuid", mode, caches[i].name, caches[i].v, 0, "bytes");
	for (unsigned i = 0; i < sizeof(ways) / sizeof(ways[0]); i++)
		if (ways[i].v)
			report_measurement("cpuid", mode, ways[i].name, ways[i].v, 0, "count");
	for (int l = 0; l < X86_TLB_LEVELS; l++)
		for (int p = 0; p < X86_PAGE_KINDS; p++) {
			const struct x86_tlb *t = &d->dtlb[l][p];
			if (!t->entries)
				continue;
			snprintf(name, sizeof(name), "%s%s_entries", level[l], page[p]);
			report_measurement("cpuid", mode, name, t->entries, 0, "count");
			if (!t->ways || t->ways_at_least)
				continue;	/* a bound is not the figure */
			snprintf(name, sizeof(name), "%s%s_ways", level[l], page[p]);
			report_measurement("cpuid", mode, name, t->ways, 0, "count");
		}
	if (d->itlb)
		report_measurement("cpuid", mode, "itlb_entries", d->itlb, 0, "count");
}
