/* The run loop (boot/run.c), for boot/main.c: the plan and the run. */
#ifndef BOOT_RUN_H
#define BOOT_RUN_H

void run_probes(void);
int run_planned(void);
void run_planned_name(int index, char *buf, int size);

#endif
