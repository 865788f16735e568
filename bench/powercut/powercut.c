#define _GNU_SOURCE
#include "powercut.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guestcmd.h"

#define MNT "/mnt/data"
#define FIO "/opt/tools/bin/fio"
#define FIO_BYTES (8ULL << 20)
#define APPEND_BASE (256ULL << 10)
#define KIB 1024ULL
#define MIB (1024ULL * 1024)

static char live_img[600];

void pc_emergency_cleanup(void)
{
	vm_kill_all();
	if (live_img[0])
		unlink(live_img);
}

static void add_file(struct pc_record *r, const char *path, const char *kind,
		     uint64_t seed, uint64_t size, bool fsync)
{
	struct pc_file *f = &r->files[r->n_files++];

	snprintf(f->path, sizeof(f->path), "%s", path);
	f->kind = kind;
	f->seed = seed;
	f->size = size;
	f->fsync = fsync;
	f->v = FV_NOT_JUDGED;
}

/* The dataset: varied new files, an append to a durable file, a rename, a
 * new directory, fio's own verifiable file, and one fsync'd control file. */
static void plan(const struct pc_opts *o, int index, struct pc_record *r)
{
	uint64_t s = ((uint64_t)o->seed << 32) ^ ((uint64_t)index << 8);

	r->n_files = 0;
	add_file(r, "pc/small.bin", "new", s + 1, 4 * KIB, false);
	add_file(r, "pc/odd.bin", "new", s + 2, 37 * KIB + 123, false);
	add_file(r, "pc/mid.bin", "new", s + 3, 1 * MIB, false);
	add_file(r, "pc/big.bin", "new", s + 4, o->big_bytes, false);
	add_file(r, "pc/append.log", "append", s + 5, APPEND_BASE + 512 * KIB, false);
	add_file(r, "pc/renamed.bin", "rename", s + 6, 2 * MIB, false);
	add_file(r, "pc/newdir/file.bin", "newdir", s + 7, 1 * MIB, false);
	add_file(r, "pc/fio.dat", "fio", 0, FIO_BYTES, false);
	add_file(r, "pc/control.bin", "control", s + 8, 1 * MIB, true);
}

static int make_image(const char *img, uint64_t bytes)
{
	char sz[32];
	char *mkfs[] = { "mkfs.ext4", "-q", "-F", "-L", "ssdata", "-E",
			 "lazy_itable_init=0,lazy_journal_init=0", (char *)img, sz, NULL };
	FILE *f = fopen(img, "w");

	snprintf(sz, sizeof(sz), "%lluk", (unsigned long long)(bytes >> 10));
	if (!f || fclose(f) || truncate(img, bytes))
		return -1;
	return host_run(mkfs, false) ? -1 : 0;
}

static int boot(const struct pc_opts *o, struct vm *vm, const char *img,
		bool throttled, const char *tag, int index)
{
	static char throttle[128], logdir[600];
	struct vm_config cfg = {
		.kernel = o->kernel, .initrd = o->initrd, .tools_disk = o->tools_disk,
		.data_disk = img, .accel = "tcg", .mem_mb = 1024, .smp = 2,
		.boot_timeout_ms = 120000,
	};
	enum verdict v;

	throttle[0] = '\0';
	if (throttled && o->profile->write_bps)
		snprintf(throttle, sizeof(throttle), ",throttling.bps-write=%llu",
			 (unsigned long long)o->profile->write_bps);
	cfg.data_throttle = throttle;
	if (o->keep_logs) {
		snprintf(logdir, sizeof(logdir), "%s/logs/cut-%d-%s", o->out_dir,
			 index + 1, tag);
		cfg.logdir = logdir;
	}
	v = vm_start(vm, &cfg);
	if (v != VERDICT_OK) {
		fprintf(stderr, "power-cut: %s boot failed: %s\n", tag, verdict_name(v));
		vm_report_death(vm);
		vm_stop(vm);
	}
	return v;
}

#define G(vm, secs, out, ...) guest_cmd(vm, (secs) * 1000, out, __VA_ARGS__)

/* The node counters fold per-CPU deltas at the largest zone threshold. */
static int read_slack(struct vm *vm, struct pc_record *r)
{
	char *out = NULL;

	if (G(vm, 10, &out, "RUN echo cpus=$(grep -c ^processor /proc/cpuinfo)"
	      " threshold=$(awk '/vm stats threshold/ { if ($4 > m) m = $4 }"
	      " END { print m + 0 }' /proc/zoneinfo)"))
		return -1;
	r->at_risk_slack_kb = pc_counter_slack_kb(out);
	free(out);
	return 0;
}

static int write_dataset(struct vm *vm, struct pc_record *r)
{
	const struct pc_file *f;

	/* durable before the cycle: the file we append to */
	if (G(vm, 30, NULL, "RUN mkdir -p " MNT "/pc") ||
	    G(vm, 30, NULL, "WRITE " MNT "/pc/append.log %llu 0 %llu 1",
	      (unsigned long long)r->files[4].seed, APPEND_BASE) ||
	    G(vm, 30, NULL, "RUN sync"))
		return -1;
	for (int i = 0; i < r->n_files; i++) {
		f = &r->files[i];
		if (!strcmp(f->kind, "append")) {
			if (G(vm, 60, NULL, "WRITE " MNT "/%s %llu %llu %llu 0", f->path,
			      (unsigned long long)f->seed, APPEND_BASE,
			      (unsigned long long)(f->size - APPEND_BASE)))
				return -1;
			r->bytes_written += f->size - APPEND_BASE;
			continue;
		}
		if (!strcmp(f->kind, "rename")) {
			if (G(vm, 60, NULL, "WRITE " MNT "/pc/tmp.name %llu 0 %llu 0",
			      (unsigned long long)f->seed, (unsigned long long)f->size) ||
			    G(vm, 10, NULL, "RUN mv " MNT "/pc/tmp.name " MNT "/%s", f->path))
				return -1;
		} else if (!strcmp(f->kind, "fio")) {
			if (G(vm, 120, NULL, "RUN " FIO " --name=cut --filename=" MNT "/%s"
			      " --rw=write --bs=64k --size=%llu --ioengine=psync --thread"
			      " --verify=crc32c --do_verify=0 --verify_state_save=0"
			      " --output-format=terse >/dev/null", f->path,
			      (unsigned long long)f->size))
				return -1;
		} else {
			if (!strcmp(f->kind, "newdir") &&
			    G(vm, 10, NULL, "RUN mkdir -p " MNT "/pc/newdir"))
				return -1;
			if (G(vm, 120, NULL, "WRITE " MNT "/%s %llu 0 %llu %d", f->path,
			      (unsigned long long)f->seed, (unsigned long long)f->size,
			      f->fsync))
				return -1;
		}
		r->bytes_written += f->size;
	}
	return 0;
}

/* Kills QEMU at the chosen point of the suspend. */
static int cut(const struct pc_opts *o, struct vm *vm, struct pc_record *r)
{
	char line[AGENT_LINE_MAX], *rest;
	long serial_from = vm_serial_size(vm);
	double t_req;
	int n;

	if (vm_agent_send(vm, "SUSPEND %s", o->state))
		return -1;
	do {
		n = vm_agent_line(vm, line, sizeof(line), 30000);
	} while (n > 0 && agent_msg_parse(line, &rest) != AGENT_MSG_REQUEST);
	if (n <= 0)
		return -1;
	t_req = qmp_now();
	agent_kv_ll(rest, "dirty_kb", &r->dirty_kb_at_cut);

	switch (r->cut) {
	case CUT_REQUEST:
		break;
	case CUT_SYNC:
		while (qmp_now() < t_req + r->cut_offset_ms / 1000.0)
			usleep(1000);
		break;
	case CUT_SUSPENDED:
		if (!strcmp(o->state, "mem")) {
			if (qmp_wait_event(vm->qmp, "SUSPEND", 300000, NULL))
				return -1;
		} else if (!vm_serial_wait(vm, "PM: suspend-to-idle", serial_from, 300000)) {
			return -1;
		}
		break;
	default:
		return -1;
	}
	r->cut_by_sigkill = vm_kill(vm);
	/* the kernel's own figure, if it got to say it before the cut */
	if (vm_serial_find(vm, "PM: Sync skipped: ", serial_from, line, sizeof(line))) {
		long long d, w;
		char *p = strstr(line, "PM: Sync skipped: ");

		if (sscanf(p, "PM: Sync skipped: %lld kB dirty, %lld kB writeback", &d, &w) == 2)
			r->kernel_at_risk_kb = d + w;
	}
	return 0;
}

static int verify(struct vm *vm, struct pc_record *r)
{
	char *out = NULL;
	long long sz, good, ex;

	for (int i = 0; i < r->n_files; i++) {
		struct pc_file *f = &r->files[i];

		if (!strcmp(f->kind, "fio"))
			continue;	/* fio judges its own file below */
		if (G(vm, 120, &out, "VERIFY " MNT "/%s %llu %llu", f->path,
		      (unsigned long long)f->seed, (unsigned long long)f->size))
			return -1;
		if (!agent_kv_ll(out, "exists", &ex) || !agent_kv_ll(out, "size", &sz) ||
		    !agent_kv_ll(out, "good", &good)) {
			free(out);
			return -1;
		}
		free(out);
		f->actual = sz;
		f->good = good;
		f->v = pc_judge(f->size, ex, sz, good);
	}
	return 0;
}

/* fio's own oracle: its verify headers, read back after the reboot. */
static void verify_fio(struct vm *vm, struct pc_record *r)
{
	struct pc_file *f = NULL;
	char *out = NULL;
	long long sz = 0, ex = 0;

	for (int i = 0; i < r->n_files; i++)
		if (!strcmp(r->files[i].kind, "fio"))
			f = &r->files[i];
	if (!f)
		return;
	if (!G(vm, 30, &out, "RUN if [ -e " MNT "/%s ]; then echo exists=1 size=$(stat -c %%s "
	       MNT "/%s); else echo exists=0 size=0; fi", f->path, f->path)) {
		agent_kv_ll(out, "exists", &ex);
		agent_kv_ll(out, "size", &sz);
		free(out);
	}
	f->actual = sz;
	r->fio_verify = 0;
	out = NULL;
	if (ex && sz == (long long)f->size &&
	    !G(vm, 120, &out, "RUN " FIO " --name=cut --filename=" MNT "/%s --rw=write"
	       " --bs=64k --size=%llu --ioengine=psync --thread --verify=crc32c"
	       " --verify_only --verify_state_load=0 --output-format=terse"
	       " >/dev/null 2>&1 && echo verify=ok || echo verify=failed",
	       f->path, (unsigned long long)f->size))
		r->fio_verify = !strcmp(out, "verify=ok");
	free(out);
	f->good = r->fio_verify ? f->size : 0;
	f->v = !ex ? FV_MISSING : r->fio_verify ? FV_INTACT :
	       sz < (long long)f->size ? FV_TRUNCATED : FV_CORRUPTED;
}

/* Overwrites 4 KiB of the control file's first block in the image. */
static int corrupt_image(const char *img)
{
	char cmd[700], junk[4096];
	long long blk = -1;
	FILE *p;
	int fd, ok;

	snprintf(cmd, sizeof(cmd), "debugfs -R 'bmap /pc/control.bin 0' '%s' 2>/dev/null", img);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	ok = fscanf(p, "%lld", &blk) == 1 && blk > 0;
	pclose(p);
	if (!ok)
		return -1;
	memset(junk, 0x5a, sizeof(junk));
	fd = open(img, O_WRONLY);
	ok = fd >= 0 && pwrite(fd, junk, sizeof(junk), blk * 4096) == sizeof(junk);
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static void tally(struct pc_record *r)
{
	memset(r->n, 0, sizeof(r->n));
	r->bytes_lost = 0;
	r->fsync_intact = true;
	for (int i = 0; i < r->n_files; i++) {
		struct pc_file *f = &r->files[i];

		r->n[f->v]++;
		r->bytes_lost += f->size > f->good ? f->size - f->good : 0;
		if (f->fsync && f->v != FV_INTACT)
			r->fsync_intact = false;
	}
}

int pc_cycle(const struct pc_opts *o, int index, struct pc_record *r)
{
	uint64_t img_bytes = 4 * o->big_bytes + (512ULL << 20);
	char img[600];
	char *fsck[] = { "e2fsck", "-fn", img, NULL };
	struct vm vm;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	r->state = o->state;
	r->sync = o->sync;
	r->cut = o->mix ? (enum cut_point)(index % CUT__COUNT) : o->cut;
	r->cut_offset_ms = -1;
	r->kernel_at_risk_kb = -1;
	r->at_risk_slack_kb = -1;
	r->fio_verify = -1;
	r->verdict = VERDICT_OK;
	if (r->cut == CUT_SYNC) {
		/* within the time the sync of the whole dataset would take */
		double est = (o->big_bytes + 16 * MIB) /
			(double)(o->profile->write_bps ? o->profile->write_bps : 200 * MIB);

		unsigned int rs = o->seed * 7919u + index;

		r->cut_offset_ms = o->cut_offset_ms >= 0 ? o->cut_offset_ms :
			(int)(rand_r(&rs) % (unsigned int)(est * 1000 + 1));
	}
	plan(o, index, r);

	snprintf(img, sizeof(img), "%s/cut-%d.img", o->out_dir, index + 1);
	snprintf(live_img, sizeof(live_img), "%s", img);
	if (make_image(img, img_bytes)) {
		fprintf(stderr, "power-cut: cannot make %s\n", img);
		goto out;
	}

	/* 1. before the cut */
	r->verdict = boot(o, &vm, img, true, "before", index);
	if (r->verdict)
		goto out;
	snprintf(r->kernel_release, sizeof(r->kernel_release), "%s", vm.release);
	snprintf(r->qemu_version, sizeof(r->qemu_version), "%s",
		 qmp_qemu_version(vm.qmp) ? qmp_qemu_version(vm.qmp) : "?");
	snprintf(r->knob, sizeof(r->knob), "%s", vm.knob);
	if (G(&vm, 30, NULL, "RUN mount -t ext4 LABEL=ssdata " MNT " && "
	      "sysctl -q -w vm.dirty_writeback_centisecs=0 vm.dirty_expire_centisecs=360000 "
	      "vm.dirty_ratio=90 vm.dirty_background_ratio=80 && "
	      "echo 1 > /sys/power/pm_debug_messages && echo 8 > /proc/sys/kernel/printk") ||
	    G(&vm, 10, NULL, "SET %s %d", strcmp(vm.knob, "suspend_sync") ?
	      "/sys/power/sync_on_suspend" : "/proc/sys/kernel/suspend_sync", o->sync) ||
	    read_slack(&vm, r) || write_dataset(&vm, r)) {
		r->verdict = vm_alive(&vm) ? VERDICT_PROTOCOL : VERDICT_QEMU_DIED;
		vm_report_death(&vm);
		vm_stop(&vm);
		goto out;
	}
	if (o->tamper == TAMPER_MANIFEST)
		r->files[0].seed ^= 1;	/* the oracle must call this corrupted */

	/* 2. the cut */
	if (cut(o, &vm, r) || !r->cut_by_sigkill) {
		r->verdict = r->cut_by_sigkill ? VERDICT_NO_SUSPEND_EVENT : VERDICT_QEMU_DIED;
		if (!r->cut_by_sigkill)
			vm_report_death(&vm);
		vm_stop(&vm);
		goto out;
	}
	vm_stop(&vm);
	if (o->tamper == TAMPER_IMAGE && corrupt_image(img))
		fprintf(stderr, "power-cut: could not corrupt the image\n");

	/* 3. after: a fresh QEMU on the same disk; mounting replays the journal */
	r->verdict = boot(o, &vm, img, false, "after", index);
	if (r->verdict)
		goto out;
	if (G(&vm, 60, NULL, "RUN mount -t ext4 LABEL=ssdata " MNT)) {
		r->verdict = VERDICT_FS_UNMOUNTABLE;
		vm_stop(&vm);
		goto fsck;
	}
	r->fs_mounted = true;
	if (verify(&vm, r)) {
		r->verdict = VERDICT_PROTOCOL;
		vm_stop(&vm);
		goto out;
	}
	verify_fio(&vm, r);
	if (G(&vm, 60, NULL, "RUN umount " MNT))
		r->verdict = VERDICT_PROTOCOL;
	vm_stop(&vm);
	tally(r);
fsck:
	r->fs_clean = host_run(fsck, true) == 0;
	rc = 0;
out:
	if (!o->keep_logs)
		unlink(img);
	live_img[0] = '\0';
	return rc;
}
