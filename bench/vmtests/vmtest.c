#include "vmtest.h"

#include <stdio.h>
#include <stdlib.h>

#include "cleanup.h"

enum verdict vmtest_boot(struct vm *vm, struct vm_config *cfg,
			 const char *logname)
{
	static char logdir[512];
	const char *dir = getenv("SLAB_LOGDIR");
	enum verdict v;

	cleanup_install();
	cfg->kernel = getenv("KERNEL");
	cfg->initrd = getenv("INITRD");
	if (!cfg->kernel || !cfg->initrd) {
		fprintf(stderr, "set KERNEL=/path/to/bzImage and INITRD=/path/to/initramfs\n");
		return VERDICT_QEMU_START_FAILED;
	}
	if (!cfg->boot_timeout_ms)
		cfg->boot_timeout_ms = 120000;
	if (dir) {
		snprintf(logdir, sizeof(logdir), "%s/%s", dir, logname);
		cfg->logdir = logdir;
	}
	v = vm_start(vm, cfg);
	if (v != VERDICT_OK) {
		fprintf(stderr, "guest did not boot: %s\n", verdict_name(v));
		vm_report_death(vm);
		vm_stop(vm);
	}
	return v;
}
