/* What vm.c, vm_argv.c and vm_serial.c share; not part of vm.h. */
#ifndef SLAB_VM_PRIV_H
#define SLAB_VM_PRIV_H

#include <stddef.h>

#include "vm.h"

/* dir/name into buf */
void vm_path_in(char *buf, size_t n, const char *dir, const char *name);
/* frees the QEMU command line vm_build_argv() made */
void vm_free_argv(struct vm *vm);

#endif
