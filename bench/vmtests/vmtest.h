/* Shared set-up of the VM tests: the guest comes from the environment
 * (KERNEL, INITRD; SLAB_LOGDIR keeps logs), so any kernel can be tested. */
#ifndef SLAB_VMTEST_H
#define SLAB_VMTEST_H

#include "vm.h"

/*
 * Boots with cfg's kernel, initrd and logs taken from the environment, and
 * signal handlers that kill QEMU.  On failure prints why to stderr (QEMU's
 * stderr included) and leaves nothing running.
 */
enum verdict vmtest_boot(struct vm *vm, struct vm_config *cfg,
			 const char *logname);

#endif
