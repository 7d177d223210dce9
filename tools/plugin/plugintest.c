/* plugintest: load mmuplugin.so as QEMU would and call its
 * qemu_plugin_install() with a qemu_info_t this harness makes up, so that
 * selftest/test_plugin.py can hold its refusals (an API version it does
 * not know, a bad argument) without a QEMU of that version.  The API
 * functions install() may call are stubs here that count the calls; the
 * rest are bound lazily, so a call to one during install() fails loudly.
 *   plugintest PLUGIN.so CUR MIN TARGET VCPUS [plugin args...]
 * Prints "install: N (registered: tb K, atexit K)"; exits with install's
 * status (0 accepted, 1 refused), 2 on a harness error. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qemu_plugin_api.h"

static int tb_cbs, atexit_cbs;

/* The stubs QEMU would provide (exported: the plugin binds to them). */
#define STUB __attribute__((visibility("default")))
STUB void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb)
{
	tb_cbs++;
}
STUB void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata)
{
	atexit_cbs++;
}

int main(int argc, char **argv)
{
	int (*install)(qemu_plugin_id_t, const qemu_info_t *, int, char **);
	qemu_info_t info;
	void *h;
	int r;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: plugintest PLUGIN.so CUR MIN TARGET VCPUS [plugin args...]");
		return 0;
	}
	if (argc < 6) {
		fprintf(stderr, "usage: plugintest PLUGIN.so CUR MIN TARGET VCPUS [plugin args...]\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "plugintest: %s\n", dlerror());
		return 2;
	}
	install = (int (*)(qemu_plugin_id_t, const qemu_info_t *, int, char **))dlsym(h, "qemu_plugin_install");
	if (!install || !dlsym(h, "qemu_plugin_version")) {
		fprintf(stderr, "plugintest: %s exports no qemu_plugin_install or qemu_plugin_version\n", argv[1]);
		return 2;
	}
	memset(&info, 0, sizeof(info));
	info.version.cur = atoi(argv[2]);
	info.version.min = atoi(argv[3]);
	info.target_name = argv[4];
	info.system_emulation = true;
	info.system.smp_vcpus = info.system.max_vcpus = atoi(argv[5]);
	r = install(1, &info, argc - 6, argv + 6);
	printf("install: %d (registered: tb %d, atexit %d)\n", r, tb_cbs, atexit_cbs);
	return r ? 1 : 0;
}
