/*
 * t_vm_nomtime: boots a guest with two ext4 filesystems, the first mounted
 * with allow_nomtime and the second without, and proves O_NOMTIME end to
 * end with the in-guest nomtimetest (see guest/tests/nomtimetest/).
 *
 * Guards: the kernel takes the allow_nomtime mount option; an application
 * on the allowed filesystem gets O_NOMTIME and its writes keep mtime and
 * ctime, while one on the other filesystem (or on tmpfs) gets EPERM; the
 * owner rule, including root in a child user namespace; F_SETFL/F_GETFL;
 * openat2's unknown-flag check; every other open flag unchanged; and which
 * timestamp updates the flag skips (write, pwrite, O_DIRECT, mmap,
 * copy_file_range) and which it keeps (ftruncate, fallocate).
 *
 * Environment: KERNEL, INITRD; SLAB_LOGDIR keeps logs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nmguest.h"
#include "tap.h"
#include "vmtest.h"

int main(void)
{
	char dir[] = "/tmp/t_vm_nomtime.XXXXXX", img[64];
	struct vm_config cfg = { .mem_mb = 512, .smp = 2 };
	int guest_failed = 0, status = -1;
	struct vm vm;
	enum verdict v;

	if (!mkdtemp(dir)) {
		tap_ok(false, "temporary directory");
		return tap_done();
	}
	snprintf(img, sizeof(img), "%s/data.img", dir);
	if (!tap_ok(!nm_make_disk(img, "ext4", "ext4", 64 << 20),
		    "data disk: two ext4 partitions (nmallow, nmdeny)"))
		goto out;
	cfg.drives[cfg.n_drives++] = (struct vm_drive){ .file = img };
	v = vmtest_boot(&vm, &cfg, "nomtime");
	if (!tap_ok(v == VERDICT_OK, "guest boots to agent READY (%s)", verdict_name(v)))
		goto out;
	tap_diag("kernel %s, boot to agent READY %.2f s", vm.release,
		 vm.t_ready - vm.t_spawn);
	if (tap_ok(!nm_mount(&vm, "ext4", "ext4"),
		   "mount -o allow_nomtime " NM_ALLOW " and plain " NM_DENY)) {
		v = vm_agent_request(&vm, "RUN /bin/nomtimetest test " NM_ALLOW " " NM_DENY,
				     vmtest_relay_tap, &guest_failed, 300000, &status);
		tap_ok(v == VERDICT_OK && status == 0 && !guest_failed,
		       "guest nomtimetest exits 0 (%s, status %d, %d failed)",
		       verdict_name(v), status, guest_failed);
	}
	vm_stop(&vm);
out:
	unlink(img);
	rmdir(dir);
	return tap_done();
}
