/* What the lab's writers share: provenance names. */
#define _GNU_SOURCE
#include "report.h"

#include <string.h>

#define MIB 1048576.0

const char *report_firmware_name(enum vm_firmware fw)
{
	return fw == VM_FW_UEFI ? "uefi" : "bios";
}

/* vm.c pairs the firmware with a machine type: OVMF wants q35 */
const char *report_machine_name(enum vm_firmware fw)
{
	return fw == VM_FW_UEFI ? "q35" : "pc";
}

void report_profile_limits(char *buf, size_t n, const struct disk_profile *p)
{
	size_t len = 0;

	buf[0] = '\0';
	if (!p || (!p->write_bps && !p->write_iops)) {
		snprintf(buf, n, "unthrottled");
		return;
	}
	if (p->write_bps)
		len = snprintf(buf, n, "write %g MiB/s", p->write_bps / MIB);
	if (p->write_iops && len < n)
		snprintf(buf + len, n - len, "%s%llu write IOPS", len ? ", " : "",
			 (unsigned long long)p->write_iops);
}

const char *report_accel(const struct lab_view *v)
{
	return v->r->accel ? v->r->accel : v->o->hx.accel;
}
