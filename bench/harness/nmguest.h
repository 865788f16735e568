/*
 * The O_NOMTIME guest: one data disk with two partitions, each holding a
 * filesystem (a kind of fskind.h), labelled nmallow and nmdeny; the guest mounts
 * the first with allow_nomtime at /mnt/allow and the second without it at
 * /mnt/deny.  Shared by t_vm_nomtime and nomtime-bench.
 */
#ifndef SLAB_NMGUEST_H
#define SLAB_NMGUEST_H

#include <stdint.h>

#include "vm.h"

#define NM_ALLOW	"/mnt/allow"
#define NM_DENY		"/mnt/deny"

/* Creates img (sparse): an MBR, then the two filesystems of part_bytes
 * each (or the larger kind's minimum), of the kinds named.  0, or -1 with
 * a message. */
int nm_make_disk(const char *img, const char *allow_fs, const char *deny_fs,
		 uint64_t part_bytes);

/* Mounts both partitions in the guest; 0 or -1. */
int nm_mount(struct vm *vm, const char *allow_fs, const char *deny_fs);

/* Write and flush requests QEMU has completed on the drive backed by img
 * (QMP query-block names the drive, query-blockstats counts); 0 or -1. */
int nm_blockstats(struct vm *vm, const char *img, long long *writes,
		  long long *flushes);

#endif
