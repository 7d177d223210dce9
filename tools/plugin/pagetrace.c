/* pagetrace: a QEMU TCG plugin that writes the instruction and data
 * address stream of one stretch of a run, for tests that replay it
 * through a model of a TLB (selftest/test_proc_pagefault.py).  It models
 * nothing: it says which addresses the guest used, in order.
 *
 *   -plugin pagetrace.so,arm=PC,armn=N,on=PC,skip=N,span=N,out=FILE
 *
 * Armed at the armn-th execution of `arm`, it records from the
 * (skip+1)-th execution of `on` after that up to the (skip+span+1)-th
 * (span whole stretches between executions of `on`).  Lines:
 *   I FIRST LAST HOST	instructions at consecutive addresses FIRST..LAST,
 *			the first's bytes at HOST in QEMU (host memory: RAM
 *			is one block there, so HOST less a known page's
 *			tells the physical page: which process's text)
 *   R|W VADDR PC PHYS	a load or store, the instruction that made it, and
 *			the physical address
 * Addresses in hex.  QEMU 7.2 shows no access its helpers make (lmw,
 * stmw, dcbz: doc/modelled-time.md); the guest's translation state is
 * not visible here (the test infers it from the image's code). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qemu_plugin_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_API_KNOWN;

struct insn { uint64_t pc, host; };

static uint64_t arm_pc, on_pc, first, last, first_host;
static unsigned long armn = 1, skip, span = 1, arms, ons;
static int armed, recording, done;
static FILE *out;

static void run_end(void)
{
	if (first)
		fprintf(out, "I %llx %llx %llx\n", (unsigned long long)first, (unsigned long long)last,
			(unsigned long long)first_host);
	first = 0;
}

static void insn_exec(unsigned int vcpu, void *udata)
{
	const struct insn *in = udata;
	uint64_t pc = in->pc;

	if (done)
		return;
	if (pc == arm_pc && !armed)
		armed = ++arms == armn;
	if (armed && pc == on_pc) {
		ons++;
		recording = ons > skip && ons <= skip + span;
		if (ons > skip + span) {
			run_end();
			fclose(out);
			done = 1;
			return;
		}
	}
	if (!recording)
		return;
	if (first && pc == last + 4) {
		last = pc;
		return;
	}
	run_end();
	first = last = pc;
	first_host = in->host;
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	if (!recording || done)
		return;
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);

	run_end();		/* the next instruction begins a run: the order stays exact */
	fprintf(out, "%c %llx %llx %llx\n", qemu_plugin_mem_is_store(info) ? 'W' : 'R',
		(unsigned long long)vaddr, (unsigned long long)((const struct insn *)udata)->pc,
		(unsigned long long)(hw ? qemu_plugin_hwaddr_phys_addr(hw) : 0));
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	for (size_t i = 0; i < qemu_plugin_tb_n_insns(tb); i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		struct insn *in = malloc(sizeof(*in));	/* kept: QEMU holds the TB */

		if (!in)
			abort();
		in->pc = qemu_plugin_insn_vaddr(insn);
		in->host = (uintptr_t)qemu_plugin_insn_haddr(insn);
		qemu_plugin_register_vcpu_insn_exec_cb(insn, insn_exec, QEMU_PLUGIN_CB_NO_REGS, in);
		qemu_plugin_register_vcpu_mem_cb(insn, mem_access, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, in);
	}
}

static int number(const char *arg, const char *key, unsigned long long *v)
{
	size_t n = strlen(key);
	char *end;

	if (strncmp(arg, key, n) || !arg[n])
		return 0;
	*v = strtoull(arg + n, &end, strcmp(key, "arm=") && strcmp(key, "on=") ? 10 : 16);
	return *end ? -1 : 1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	unsigned long long v[5] = { 0, 0, 1, 0, 1 };	/* arm, on, armn, skip, span */
	static const char *const keys[5] = { "arm=", "on=", "armn=", "skip=", "span=" };
	const char *file = 0;

	if (info->version.cur != QEMU_API_KNOWN) {
		fprintf(stderr, "pagetrace: this QEMU's plugin API is version %d; pagetrace knows "
			"version %d only (QEMU 7.2): refusing to load\n", info->version.cur, QEMU_API_KNOWN);
		return 1;
	}
	for (int i = 0; i < argc; i++) {
		int r = 0;
		for (int k = 0; k < 5 && !r; k++)
			r = number(argv[i], keys[k], &v[k]);
		if (!r && !strncmp(argv[i], "out=", 4) && argv[i][4]) {
			file = argv[i] + 4;
			r = 1;
		}
		if (r != 1) {
			fprintf(stderr, "pagetrace: bad argument '%s' (arm=PC on=PC [armn=N skip=N "
				"span=N] out=FILE)\n", argv[i]);
			return 1;
		}
	}
	if (!v[0] || !v[1] || !file || !v[2] || !v[4]) {
		fprintf(stderr, "pagetrace: arm=PC, on=PC and out=FILE are required\n");
		return 1;
	}
	arm_pc = v[0], on_pc = v[1], armn = v[2], skip = v[3], span = v[4];
	out = fopen(file, "w");
	if (!out) {
		fprintf(stderr, "pagetrace: cannot write %s\n", file);
		return 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
