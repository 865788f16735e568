/*
 * t_msg_opts: option messages that named the wrong thing (issue 33, items
 * 8 and 9).
 *
 * Guards: nomtime-bench refuses an --fs list with an empty item (",ext4",
 * "ext4,,xfs") and names the item given twice ("xfs,ext4,xfs"), in one
 * line, exit 2; "--fs btrfs" says btrfs does not opt in to O_NOMTIME;
 * suspend-lab's "--workload all,bigfile" says 'all' cannot be combined,
 * not that 'all' is not a workload; a guest RAM the host cannot give
 * blames --mem, naming the host's limit, when --mem set it, and the
 * --dirty list only when the list sized it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cliopt.h"
#include "fakerun.h"
#include "progrun.h"
#include "tap.h"

static char kernel[600];

/* nomtime-bench --fs arg: exit 2, one line holding want */
static void nm_fs(const char *opt, const char *arg, const char *want, const char *what)
{
	int rc = progrun("nomtime-bench", (char *[]){ "--kernel", kernel, "--initrd", kernel,
			 (char *)opt, (char *)arg, NULL }, 0, 0);

	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, want),
	       "nomtime-bench %s '%s': %s: rc %d, %d line(s): %.*s", opt, arg, what, rc,
	       progrun_lines(progrun_err), (int)strcspn(progrun_err, "\n"), progrun_err);
}

static void mem_blame(void)
{
	int given, sized, fits, unknown;
	char err[1024];

	fakerun_stderr_begin();
	given = cli_host_mem(65536, true, "this --dirty list", 23310);
	sized = cli_host_mem(4608, false, "this --dirty list", 2000);
	fits = cli_host_mem(1024, true, "this --dirty list", 2000);
	unknown = cli_host_mem(65536, true, "this --dirty list", -1);
	snprintf(err, sizeof(err), "%s", fakerun_stderr_end());
	tap_ok(given == 2 && !strncmp(strchr(err, ':') + 2, "--mem: '65536' is more than", 27) &&
	       strstr(err, "at most 23310 MiB"),
	       "--mem 65536 on a host with 23310 MiB: blames --mem with the limit: %.*s",
	       (int)strcspn(err, "\n"), err);
	tap_ok(sized == 2 && strstr(err, "4608 MiB of RAM for this --dirty list"),
	       "a RAM size from the --dirty list: blames the list (rc %d)", sized);
	tap_ok(fits == 0 && unknown == 0, "fits: %d, host's memory unknown: %d", fits, unknown);
}

int main(int argc, char **argv)
{
	const char *dir = fakerun_dir();
	int rc;

	(void)argc;
	progrun_init(argv[0]);
	snprintf(kernel, sizeof(kernel), "%s/bzImage", dir);
	setenv("TMPDIR", dir, 1);

	nm_fs("--fs", "ext4,,xfs", "'ext4,,xfs' has an empty item at offset 5", "empty item");
	nm_fs("--fs", ",ext4", "has an empty item at offset 0", "empty first item");
	nm_fs("--fs", "ext4,", "has an empty item at offset 5", "empty last item");
	nm_fs("--fs", "xfs,ext4,xfs", "names xfs twice", "the duplicate named");
	nm_fs("--fs", "btrfs", "btrfs does not opt in to O_NOMTIME", "btrfs explained");
	nm_fs("--fs", "ntfs", "'ntfs' is not a filesystem opted in to O_NOMTIME",
	      "unknown name");
	nm_fs("--cache", "nowc,,wc", "has an empty item", "--cache empty item");
	nm_fs("--cache", "wc,wc", "names wc twice", "--cache duplicate");

	rc = progrun("suspend-lab", (char *[]){ "--kernel", kernel, "--initrd", kernel,
		     "--tools-disk", kernel, "--out", (char *)dir, "--workload", "all,bigfile",
		     NULL }, 0, 0);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 &&
	       strstr(progrun_err, "'all' cannot be combined with other names") &&
	       !strstr(progrun_err, "is not a workload"),
	       "--workload all,bigfile: rc %d: %.*s", rc, (int)strcspn(progrun_err, "\n"),
	       progrun_err);
	mem_blame();
	fakerun_done();
	return tap_done();
}
