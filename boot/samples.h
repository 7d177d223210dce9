/* The samples probes record (boot/samples.c), kept per mode of the run
 * until the run loop reports them. */
#ifndef BOOT_SAMPLES_H
#define BOOT_SAMPLES_H

void samples_clear(void);		/* before a probe: every mode's samples gone */
void samples_use(int mode);		/* probe_sample() records for this mode */
void samples_forget(int mode, int rep);	/* a repetition cut short: its samples go */
/* Each repetition's sample (when reps > 1) and the median of each metric. */
void samples_report(const char *probe, int mode);

#endif
