/*
 * The O_NOMTIME guest: one data disk with two partitions, each holding a
 * filesystem (a kind of fskind.h), labelled nmallow and nmdeny; the guest mounts
 * the first with allow_nomtime at /mnt/allow and the second without it at
 * /mnt/deny.  Shared by t_vm_nomtime and nomtime-bench.
 */
#ifndef SLAB_NMGUEST_H
#define SLAB_NMGUEST_H

#include <stddef.h>
#include <stdint.h>

#include "vm.h"

#define NM_ALLOW	"/mnt/allow"
#define NM_DENY		"/mnt/deny"

/*
 * The bench's image path in img: $TMPDIR (or /var/tmp)/nomtime-bench.PID.img,
 * beside an owner record (rundir.h's) so that a later run removes it if
 * this one is killed; that sweep of dead owners' images runs first.  0, or
 * -1 after one line (the path does not fit, the record cannot be written).
 */
int nm_image_claim(char *img, size_t n);
/* Images (and their partitions) of dead owners in dir, removed; how many. */
int nm_image_sweep(const char *dir);

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
