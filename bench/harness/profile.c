#include "profile.h"

#include <stdio.h>
#include <string.h>

#define MIB (1024ULL * 1024)

/* Write side only: the suspend sync is all writes.  Typical figures of
 * each class of device; the README says where each comes from. */
const struct disk_profile disk_profiles[] = {
	{ "nvme", "fast NVMe: no throttling", 0, 0, 1, true },
	{ "sata", "SATA SSD", 450 * MIB, 40000, 2, true },
	{ "emmc", "eMMC on a small laptop or tablet", 20 * MIB, 2000, 10, true },
	{ "sd", "SD card (class 10, no cache)", 10 * MIB, 300, 0, false },
	{ "hdd", "laptop hard disk", 100 * MIB, 150, 15, true },
	{ NULL },
};

const struct disk_profile *disk_profile(const char *name)
{
	const struct disk_profile *p;

	if (!name)
		return NULL;
	for (p = disk_profiles; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

const char *disk_profile_names(void)
{
	static char buf[128];
	const struct disk_profile *p;
	size_t len = 0;

	if (buf[0])
		return buf;
	for (p = disk_profiles; p->name; p++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				p == disk_profiles ? "" : ", ", p->name);
	return buf;
}

void disk_profile_throttle(const struct disk_profile *p, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	if (p && p->write_bps)
		len = snprintf(buf, n, ",throttling.bps-write=%llu",
			       (unsigned long long)p->write_bps);
	if (p && p->write_iops && len < n)
		snprintf(buf + len, n - len, ",throttling.iops-write=%llu",
			 (unsigned long long)p->write_iops);
}
