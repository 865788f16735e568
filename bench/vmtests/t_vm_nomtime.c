/*
 * t_vm_nomtime: O_NOMTIME end to end, one guest per filesystem of the lab
 * (fskind.h), each with two partitions: the filesystem under test, mounted
 * with allow_nomtime, and ext4 without it.  The in-guest nomtimetest
 * (guest/tests/nomtimetest/) proves what the series promises on each
 * filesystem that opted in; on one that did not (btrfs), the test here
 * checks that allow_nomtime is refused and the flag with it.
 *
 * Guards: the allow_nomtime gate and the owner rule, F_SETFL/F_GETFL,
 * openat2 as the one open call that takes the flag, the O_CREAT gate, the
 * opt-in (ramfs, overlayfs and btrfs refuse the option), which timestamp
 * updates the flag skips and keeps, i_version still moving for IMA, and
 * FMODE_NOCMTIME on XFS.
 *
 * Environment: KERNEL, INITRD; NOMTIME_FS (default "ext4 xfs f2fs btrfs")
 * names the filesystems; SLAB_LOGDIR keeps logs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fskind.h"
#include "guestcmd.h"
#include "nmguest.h"
#include "tap.h"
#include "vmtest.h"

/* The filesystem refuses allow_nomtime, and the flag without it. */
static void refused(struct vm *vm, const struct fs_kind *k)
{
	char *out = NULL;
	int status = -1;
	enum verdict v;

	v = guest_req(vm, 60000, &out, &status,
		      "RUN mkdir -p " NM_ALLOW " && mount -t %s -o allow_nomtime "
		      "$(findfs LABEL=nmallow) " NM_ALLOW " 2>&1; echo status=$?", k->name);
	for (char *p = out; p && *p; p++)	/* one TAP line */
		if (*p == '\n')
			*p = ' ';
	tap_ok(v == VERDICT_OK && out && strstr(out, "Invalid argument") &&
	       !strstr(out, "status=0"),
	       "%s (not opted in): mount -o allow_nomtime is refused (%s, status %d: %s)",
	       k->name, verdict_name(v), status, out ? out : "");
	free(out);
	out = NULL;
	v = guest_req(vm, 60000, &out, &status,
		      "RUN mount -t %s $(findfs LABEL=nmallow) " NM_ALLOW " && "
		      "grep -c allow_nomtime /proc/mounts; true", k->name);
	tap_ok(v == VERDICT_OK && out && !strcmp(out, "0"),
	       "%s: mounts without the option, and nothing shows allow_nomtime (%s: %s)",
	       k->name, verdict_name(v), out ? out : "");
	free(out);
}

static void one(const struct fs_kind *k)
{
	char dir[] = "/tmp/t_vm_nomtime.XXXXXX", img[64];
	struct vm_config cfg = { .mem_mb = 512, .smp = 2 };
	int guest_failed = 0, status = -1;
	struct vm vm;
	enum verdict v;

	if (!mkdtemp(dir)) {
		tap_ok(false, "%s: temporary directory", k->name);
		return;
	}
	snprintf(img, sizeof(img), "%s/data.img", dir);
	if (!tap_ok(!nm_make_disk(img, k->name, "ext4", 64 << 20),
		    "data disk: %s (nmallow) and ext4 (nmdeny)", k->name))
		goto out;
	cfg.drives[cfg.n_drives++] = (struct vm_drive){ .file = img };
	v = vmtest_boot(&vm, &cfg, k->name);
	if (!tap_ok(v == VERDICT_OK, "%s: guest boots to agent READY (%s)", k->name,
		    verdict_name(v)))
		goto out;
	tap_diag("kernel %s, boot to agent READY %.2f s", vm.release,
		 vm.t_ready - vm.t_spawn);
	if (!k->nomtime) {
		refused(&vm, k);
	} else if (tap_ok(!nm_mount(&vm, k->name, "ext4"),
			  "mount %s -o allow_nomtime%s on " NM_ALLOW ", ext4 on " NM_DENY,
			  k->name, k->nomtime_opts)) {
		v = vm_agent_request(&vm, "RUN /bin/nomtimetest test " NM_ALLOW " " NM_DENY,
				     vmtest_relay_tap, &guest_failed, 300000, &status);
		tap_ok(v == VERDICT_OK && status == 0 && !guest_failed,
		       "%s: guest nomtimetest exits 0 (%s, status %d, %d failed)", k->name,
		       verdict_name(v), status, guest_failed);
	}
	vm_stop(&vm);
out:
	unlink(img);
	rmdir(dir);
}

int main(void)
{
	const char *list = getenv("NOMTIME_FS");
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list && *list ? list : "ext4 xfs f2fs btrfs");
	for (char *t = strtok_r(buf, " ,", &save); t; t = strtok_r(NULL, " ,", &save)) {
		const struct fs_kind *k = fs_kind_find(t);

		if (tap_ok(k != NULL, "NOMTIME_FS names %s, a filesystem of the lab (%s)", t,
			   fs_kind_names("|")))
			one(k);
	}
	return tap_done();
}
