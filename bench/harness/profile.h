/*
 * Disk profiles: the storage a guest's data disk stands for.  Bandwidth and
 * IOPS are QEMU's own block throttling; a flush latency and a volatile
 * write cache need the drive model (drive.h: nbdkit between QEMU and the
 * image).  Each number's source is in the README's profile table.
 */
#ifndef SLAB_PROFILE_H
#define SLAB_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct disk_profile {
	const char *name;	/* nvme, sata, emmc, sd, hdd, ... */
	const char *what;	/* one line for --help and the README */
	uint64_t write_bps;	/* QEMU throttling.bps-write; 0 = unthrottled */
	uint64_t write_iops;	/* throttling.iops-write; 0 = unthrottled */
	int flush_ms;		/* per cache flush (drive model); 0 = none */
	bool volatile_cache;	/* writes held until a flush (drive model) */
};

extern const struct disk_profile disk_profiles[];
const struct disk_profile *disk_profile(const char *name);
/* "nvme, sata, emmc, sd, hdd": for messages. */
const char *disk_profile_names(void);
/* The -drive option suffix that throttles writes: ",throttling...". */
void disk_profile_throttle(const struct disk_profile *p, char *buf, size_t n);

#endif
