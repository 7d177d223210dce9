/* Sample storage: what probe_sample() records, by metric and repetition,
 * for each mode of the run, and the medians reported from it.  Separate
 * from the run loop, which decides when samples are taken and reported. */
#include <stdlib.h>
#include <string.h>
#include "sort.h"
#include "config.h"
#include "probe.h"
#include "report.h"
#include "samples.h"
#include "watchdog.h"

#define MAX_METRICS 512		/* curves: a point is a metric (tlb: 2 x 2 x 112) */

struct metric {
	const char *name, *unit;
	int decimals;
	int n;				/* samples taken */
	int64_t *samples;		/* by repetition: samples[rep] */
	uint8_t *taken;			/* taken[rep]: that rep gave one */
};

struct mode_samples {
	struct metric metrics[MAX_METRICS];
	int nmetrics;
};

static struct mode_samples modes[MAX_RUN_MODES];
static struct mode_samples *current;

void samples_clear(void)
{
	for (int m = 0; m < config.nmodes; m++) {
		for (int k = 0; k < modes[m].nmetrics; k++)
			free(modes[m].metrics[k].samples), free(modes[m].metrics[k].taken),
			free((char *)modes[m].metrics[k].name);
		memset(&modes[m], 0, sizeof(modes[m]));
	}
}

void samples_use(int mode) { current = &modes[mode]; }

void samples_forget(int mode, int rep)
{
	for (int k = 0; k < modes[mode].nmetrics; k++) {
		struct metric *m = &modes[mode].metrics[k];
		if (m->taken[rep])
			m->taken[rep] = 0, m->n--;
	}
}

static void sample(struct probe_ctx *ctx, const char *metric, int64_t value,
		   int decimals, const char *unit);

void probe_sample(struct probe_ctx *ctx, const char *metric, int64_t value,
		  int decimals, const char *unit)
{
	watchdog_hold();
	sample(ctx, metric, value, decimals, unit);
	watchdog_release();
}

static void sample(struct probe_ctx *ctx, const char *metric, int64_t value,
		   int decimals, const char *unit)
{
	struct mode_samples *r = current;
	struct metric *m = 0;

	for (int i = 0; i < r->nmetrics; i++)
		if (!strcmp(r->metrics[i].name, metric))
			m = &r->metrics[i];
	if (!m) {
		if (r->nmetrics == MAX_METRICS) {
			report_diag("warning: %s: more than %d metrics, '%s' dropped",
				    ctx->mode_name, MAX_METRICS, metric);
			return;
		}
		m = &r->metrics[r->nmetrics++];
		m->name = strdup(metric);	/* probes build names on the stack */
		m->unit = unit;
		m->decimals = decimals;
		m->samples = calloc(config.reps, sizeof(int64_t));
		m->taken = calloc(config.reps, 1);
		if (!m->samples || !m->taken || !m->name) {
			report_diag("warning: out of heap for samples of '%s'", metric);
			r->nmetrics--;
			return;
		}
	}
	if (ctx->rep >= 0 && ctx->rep < config.reps && !m->taken[ctx->rep]) {
		m->samples[ctx->rep] = value;	/* numbered by the rep that took it */
		m->taken[ctx->rep] = 1;
		m->n++;
	}
}

/* The median of the samples taken (sorted in a copy: samples[] stays by rep). */
static int64_t median(const struct metric *m)
{
	static int64_t sorted[MAX_REPS];
	int n = 0;

	for (int k = 0; k < config.reps; k++)
		if (m->taken[k])
			sorted[n++] = m->samples[k];
	return median_i64(sorted, n);
}

void samples_report(const char *probe, int mode)
{
	struct mode_samples *r = &modes[mode];
	const char *name = config.modes[mode]->name;

	for (int i = 0; i < r->nmetrics; i++) {
		struct metric *mt = &r->metrics[i];
		/* Each repetition's own figure, for tests over them (mmureport). */
		for (int k = 0; config.reps > 1 && k < config.reps; k++)
			if (mt->taken[k])
				report_sample(probe, name, mt->name, k + 1, mt->samples[k],
					      mt->decimals, mt->unit);
		report_measurement(probe, name, mt->name, median(mt), mt->decimals, mt->unit);
	}
}
