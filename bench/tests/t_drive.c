/*
 * t_drive: the drive model on the host, no guest: a real nbdkit on a
 * scratch image, driven by a tiny NBD client (nbdc.h), then killed as a
 * power cut would kill it.
 *
 * Guards: with the volatile cache on, a flushed write survives SIGKILL and
 * an unflushed one does not; with it off both survive; in drop-flush mode
 * a flushed write is lost; a flush waits the profile's latency (and not
 * without one), as the request log shows; the -drive options give QEMU
 * the cache mode and the throttling; nbdkit failing at start is one line
 * with nbdkit's reason and leaves nothing; nbdkit killed mid-use is seen
 * as dead; a stop while a client holds on still ends it; through the
 * harness (fakeqemu as QEMU), a boot starts nbdkit first, a cut kills
 * both, a bad image is NbdkitFailed with no QEMU started, nbdkit's death
 * mid-run is NbdkitFailed; nothing is left running or on disk.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "devstats.h"
#include "drive.h"
#include "fakerun.h"
#include "nbdc.h"
#include "tap.h"

#define MIB (1 << 20)

static char img[600];
static char buf[MIB];

static void fresh_image(void)
{
	int fd = open(img, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || ftruncate(fd, 64 * MIB)) {
		perror(img);
		exit(1);
	}
	close(fd);
}

/* The image holds byte b over [off, off + len). */
static bool image_has(long off, int b)
{
	int fd = open(img, O_RDONLY);
	bool ok = fd >= 0 && pread(fd, buf, MIB, off) == MIB;

	for (int i = 0; ok && i < MIB; i++)
		ok = (unsigned char)buf[i] == b;
	if (fd >= 0)
		close(fd);
	return ok;
}

static int start(struct drive *d, const struct disk_profile *p, bool drop)
{
	struct drive_config c = { .image = img, .profile = p, .drop_flushes = drop };

	fresh_image();
	return drive_start(d, &c);
}

static int client(const struct drive *d)
{
	return nbdc_open(strstr(d->uri, "socket=") + 7, NULL);
}

static int put(int fd, long off, int b, bool flush)
{
	memset(buf, b, MIB);
	return nbdc_write(fd, off, buf, MIB, false) || (flush && nbdc_flush(fd));
}

static const struct disk_profile cached = { "t", "cached", 0, 0, 0, true };
static const struct disk_profile plain = { "t", "no cache", 0, 0, 0, false };
static const struct disk_profile slow = { "t", "50 ms flush", 0, 0, 50, true };

/* A flushed 1 MiB, then an unflushed 1 MiB, then the cut. */
static void cut_case(const struct disk_profile *p, bool drop, const char *what,
		     bool want_flushed, bool want_unflushed)
{
	struct drive d;
	int fd = -1;
	bool ok;

	ok = !start(&d, p, drop) && (fd = client(&d)) >= 0 && !put(fd, 0, 0xab, true) &&
	     !put(fd, 2 * MIB, 0xcd, false);
	tap_ok(ok && drive_kill(&d), "%s: written, then nbdkit killed by SIGKILL", what);
	tap_ok(image_has(0, want_flushed ? 0xab : 0), "%s: the flushed write %s", what,
	       want_flushed ? "survived" : "was lost");
	tap_ok(image_has(2 * MIB, want_unflushed ? 0xcd : 0), "%s: the unflushed write %s",
	       what, want_unflushed ? "survived" : "was lost");
	if (fd >= 0)
		close(fd);
	drive_stop(&d);
}

static double timed_flush(int fd)
{
	double t = mono_now();

	return nbdc_flush(fd) ? -1 : mono_now() - t;
}

static void latency(void)
{
	struct drive d;
	struct dev_counts c;
	double t0 = clock_s(CLOCK_REALTIME), fast = -1, slow_s = -1;
	int fd = -1;

	if (!start(&d, &cached, false) && (fd = client(&d)) >= 0)
		fast = timed_flush(fd);
	tap_ok(fast >= 0 && fast < 0.040, "no flush latency: a flush takes %.1f ms", fast * 1e3);
	if (fd >= 0)
		close(fd);
	drive_stop(&d);

	fd = -1;
	if (!start(&d, &slow, false) && (fd = client(&d)) >= 0 && !put(fd, 0, 1, false))
		slow_s = timed_flush(fd);
	tap_ok(slow_s >= 0.050 && slow_s < 0.5, "flush_ms 50: a flush takes %.1f ms",
	       slow_s * 1e3);
	memset(buf, 2, 4096);
	nbdc_write(fd, 4096, buf, 4096, true);
	nbdc_close(fd);
	if (devlog_window(d.log, 0, t0, clock_s(CLOCK_REALTIME) + 1, &c))
		memset(&c, 0, sizeof(c));
	tap_ok(c.wr_ops == 2 && c.wr_bytes == MIB + 4096 && c.fua_ops == 1 &&
	       c.flush_ops == 1 && c.flush_time_s >= 0.050 && !c.failed_ops,
	       "the request log: 2 writes, %llu bytes, %llu FUA, %llu flush of %.1f ms",
	       (unsigned long long)c.wr_bytes, (unsigned long long)c.fua_ops,
	       (unsigned long long)c.flush_ops, c.flush_time_s * 1e3);
	drive_stop(&d);
}

static void options(void)
{
	struct drive d;
	struct vm_drive v;
	char o[200];

	drive_init(&d);
	v = drive_vm(&d, disk_profile("emmc"), o, sizeof(o));
	tap_ok(!strncmp(v.file, "nbd+unix:///?socket=", 20) &&
	       !strcmp(v.opts, ",cache.writeback=on,throttling.bps-write=20971520"
		       ",throttling.iops-write=2000"),
	       "emmc: QEMU gets %s%s", v.file, v.opts);
	v = drive_vm(&d, &plain, o, sizeof(o));
	tap_ok(!strcmp(v.opts, ",cache.writeback=off"), "no volatile cache: %s", v.opts);
	tap_ok(drive_wanted(disk_profile("emmc")) && drive_wanted(disk_profile("nvme")) &&
	       drive_wanted(disk_profile("sd")) && !drive_wanted(&(struct disk_profile){ 0 }) &&
	       !drive_wanted(NULL),
	       "the drive model for emmc, nvme and sd (its log times the sync), not for a"
	       " profile that models nothing");
}

static void failures(void)
{
	struct drive_config c = { .image = "/nonexistent/data.img", .profile = &cached };
	struct drive d;
	int fd;
	double t;

	tap_ok(drive_start(&d, &c) && !strchr(d.why, '\n') && strstr(d.why, "exited") &&
	       strstr(d.why, "No such file"), "bad image: one line: %s", d.why);
	tap_ok(!drive_alive(&d) && fakerun_live_children("nbdkit") == 0, "bad image: no nbdkit left");
	drive_stop(&d);

	start(&d, &cached, false);
	fd = client(&d);
	if (d.pid > 0)
		kill(d.pid, SIGKILL);	/* not drive_kill: a crash, not a cut */
	usleep(100000);
	tap_ok(fd >= 0 && drive_died(&d) && nbdc_flush(fd), "killed mid-use: dead, requests fail");
	if (fd >= 0)
		close(fd);
	drive_stop(&d);

	start(&d, &cached, false);
	fd = client(&d);
	put(fd, 0, 1, false);
	t = mono_now();
	drive_stop(&d);	/* the client never leaves: SIGTERM is not enough */
	t = mono_now() - t;
	tap_ok(fd >= 0 && fakerun_live_children("nbdkit") == 0 && t < 5,
	       "stop with a client connected: ended in %.1f s", t);
	if (fd >= 0)
		close(fd);
}

/* The harness: nbdkit under fakeqemu, which only boots. */
static void harness(void)
{
	struct hx_opts o;
	struct hx h;
	enum verdict v;
	const char *err;
	char cmd[4096];

	fakerun_opts(&o);
	o.drive_model = HX_DRIVE_AUTO;
	hx_init(&h, &o);
	h.base = fakerun_timeouts;
	snprintf(h.img, sizeof(h.img), "%s", img);
	fresh_image();
	v = hx_boot(&h, "drive", true);
	vm_format_command(&h.vm, cmd, sizeof(cmd));
	tap_ok(!v && drive_alive(&h.drive) && strstr(cmd, h.drive.uri) &&
	       strstr(cmd, "cache.writeback=on") && !strstr(cmd, "cache=none"),
	       "hx_boot: nbdkit first, QEMU on its socket (%s)", verdict_name(v));
	tap_ok(hx_cut(&h) == VERDICT_OK && h.drive.reaped && h.vm.reaped,
	       "hx_cut: nbdkit and QEMU both killed by SIGKILL");
	hx_stop(&h);

	v = hx_boot(&h, "drive", true);
	if (h.drive.pid > 0)
		kill(h.drive.pid, SIGKILL);
	usleep(100000);
	fakerun_stderr_begin();
	v = hx_drive_verdict(&h, v);
	err = fakerun_stderr_end();
	tap_ok(v == VERDICT_NBDKIT_FAILED && strstr(err, "NbdkitFailed") &&
	       strstr(err, "signal 9"), "nbdkit dead mid-run: NbdkitFailed, reported");
	tap_ok(hx_cut(&h) == VERDICT_NBDKIT_FAILED, "a cut after nbdkit's death: NbdkitFailed");
	hx_stop(&h);

	snprintf(h.img, sizeof(h.img), "/nonexistent/data.img");
	fakerun_stderr_begin();
	v = hx_boot(&h, "drive", true);
	err = fakerun_stderr_end();
	tap_ok(v == VERDICT_NBDKIT_FAILED && !h.up && fakerun_live_children("fakeqemu") == 0 &&
	       strstr(err, "No such file") && h.boot_failures == 1,
	       "bad image: NbdkitFailed, a failed boot, no QEMU started");
	fakerun_stderr_begin();
	hx_fail(&h, v, "boot failed");
	err = fakerun_stderr_end();
	tap_ok(strstr(err, "NbdkitFailed") && !strstr(err, "QEMU (pid") &&
	       !strstr(err, "serial console"),
	       "its report names no QEMU and no console of an earlier boot: %.200s", err);
	h.img[0] = '\0';
	hx_stop(&h);
	tap_ok(fakerun_live_children("nbdkit") == 0 && fakerun_live_children("fakeqemu") == 0 &&
	       fakerun_count(fakerun_dir(), "slab") == 0,
	       "no nbdkit, no QEMU, no private directory left");
}

int main(void)
{
	const char *dir = fakerun_dir();
	char exe[600];

	snprintf(img, sizeof(img), "%s/data.img", dir);
	setenv("TMPDIR", dir, 1);	/* private directories land here, to be counted */
	if (system("command -v nbdkit >/dev/null")) {
		tap_skip("nbdkit is not installed (apt-get install nbdkit)", "the drive model");
		fakerun_done();
		return tap_done();
	}
	memset(exe, 0, sizeof(exe));
	if (readlink("/proc/self/exe", exe, sizeof(exe) - 64) < 0 ||
	    !strcpy(strrchr(exe, '/') + 1, DRIVE_FILTER_NAME) || access(exe, R_OK)) {
		tap_skip("no filter next to the test (make builds it)", "the drive model");
		fakerun_done();
		return tap_done();
	}
	options();
	cut_case(&cached, false, "volatile cache", true, false);
	cut_case(&plain, false, "no cache", true, true);
	cut_case(&cached, true, "drop-flush mode", false, false);
	latency();
	failures();
	harness();
	unlink(img);
	fakerun_done();
	return tap_done();
}
