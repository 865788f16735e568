/*
 * nomtime-bench: the seed's O_NOMTIME claim, measured.
 *
 * Boots the guest on a throttled data disk whose first partition (a
 * filesystem opted in to O_NOMTIME: ext4, xfs, f2fs) is mounted with allow_nomtime, and times 4 KiB O_DIRECT overwrites
 * of allocated data, each followed by fsync, fdatasync or syncfs, with and
 * without O_NOMTIME.  The device's write and flush requests come from QMP
 * query-blockstats on the data drive, before and after each run; a run
 * ends with a settle time, so journal commits that a run deferred are
 * counted too.  Overwrites are spaced (--gap-ms) so that each one sees a
 * new timestamp, as a single overwrite and sync would.
 *
 * Two disk models: "wc", the lab's cache=none, where the guest sees a
 * volatile write cache and sends flushes; and "nowc", the same with
 * cache.writeback=off, a disk without a volatile cache (flushes are no-ops
 * and never reach the device), closer to the storage of the seed's
 * "serial write round trips".
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "guestcmd.h"
#include "hx.h"
#include "nmguest.h"
#include "nmopts.h"

#define FILE_PATH	NM_ALLOW "/bench.dat"
#define MAX_RUNS	NM_MAX_RUNS
#define MAX_FS		NM_MAX_FS

struct cell {
	long long writes, flushes, ops;
	double op_us[MAX_RUNS], write_us[MAX_RUNS], sync_us[MAX_RUNS];
	int n, mtime_bad;
};

#define N_SYNC	3
static const char *const syncs[N_SYNC] = { "fsync", "fdatasync", "syncfs" };
static char img[PATH_MAX];

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double s[MAX_RUNS];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_d);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* One run of count overwrites; adds to c.  0 or -1. */
static int one_run(struct vm *vm, const struct nm_opts *o, int flag, const char *sync,
		   struct cell *c)
{
	long long w0, f0, w1, f1, n, wus, sus, ous, moved;
	char *out = NULL;
	int ms = o->count * (o->gap_ms + 200) + o->settle_s * 1000 + 60000;

	if (nm_blockstats(vm, img, &w0, &f0) ||
	    guest_cmd(vm, ms, &out, "RUN /bin/nomtimetest bench " FILE_PATH " %d %d %s %d %d",
		      o->count, flag, sync, o->gap_ms, o->settle_s) ||
	    nm_blockstats(vm, img, &w1, &f1)) {
		free(out);
		return -1;
	}
	if (!agent_kv_ll(out, "n", &n) || !agent_kv_ll(out, "write_us", &wus) ||
	    !agent_kv_ll(out, "sync_us", &sus) || !agent_kv_ll(out, "op_us", &ous) ||
	    !agent_kv_ll(out, "mtime_moved", &moved)) {
		fprintf(stderr, "nomtime-bench: unexpected guest output: %s\n", out);
		free(out);
		return -1;
	}
	free(out);
	c->writes += w1 - w0;
	c->flushes += f1 - f0;
	c->ops += n;
	c->op_us[c->n] = ous;
	c->write_us[c->n] = wus;
	c->sync_us[c->n] = sus;
	c->n++;
	/* the flag must keep mtime; without it, mtime must move */
	if (moved != !flag)
		c->mtime_bad++;
	return 0;
}

static const char *throttle_for(const struct nm_opts *o, const char *cache)
{
	static char t[160];

	snprintf(t, sizeof(t), "%s%s", !strcmp(cache, "nowc") ? ",cache.writeback=off" : "",
		 !strcmp(o->profile, "emmc") ?
		 ",throttling.bps-write=20971520,throttling.iops-write=2000" : "");
	return t;
}

/* cells[sync][flag] for one filesystem and disk model */
static int measure(const struct nm_opts *o, const char *fs, const char *cache,
		   struct cell cells[N_SYNC][2], char *release, size_t rn, char *qemu, size_t qn)
{
	static char logdir[600];
	struct vm_config cfg = {
		.kernel = o->kernel, .initrd = o->initrd, .mem_mb = 512, .smp = 2,
		.drives = { { .file = img } }, .n_drives = 1, .boot_timeout_ms = 120000,
	};
	struct vm vm;
	enum verdict v;
	int r = -1;

	if (nm_make_disk(img, fs, "ext4", 512ULL << 20))
		return -1;
	cfg.drives[0].opts = throttle_for(o, cache);
	if (o->keep_logs) {
		/* this run's folder: an earlier run's logs are never mixed in */
		snprintf(logdir, sizeof(logdir), "results/%s/nomtime-bench/%s-%s",
			 hx_logs_subdir(&(struct hx_opts){ .keep_logs = true }), fs, cache);
		cfg.logdir = logdir;
	}
	v = vm_start(&vm, &cfg);
	if (v != VERDICT_OK) {
		fprintf(stderr, "nomtime-bench: guest did not boot: %s\n", verdict_name(v));
		vm_report_death(&vm);
		vm_stop(&vm);
		return -1;
	}
	snprintf(release, rn, "%s", vm.release);
	snprintf(qemu, qn, "%s", qmp_qemu_version(vm.qmp));
	if (nm_mount(&vm, fs, "ext4") ||
	    guest_cmd(&vm, 120000, NULL, "RUN /bin/nomtimetest prep " FILE_PATH " 4 && sleep %d",
		      o->settle_s))
		goto out;
	memset(cells, 0, sizeof(struct cell) * N_SYNC * 2);
	for (int run = 0; run < o->runs; run++)
		for (int s = 0; s < N_SYNC; s++)
			for (int f = 0; f < 2; f++) {
				/* alternate which flag goes first */
				int flag = (run + s) % 2 ? !f : f;

				fprintf(stderr, "nomtime-bench: %s %s %s O_NOMTIME=%d, run %d of %d\n",
					fs, cache, syncs[s], flag, run + 1, o->runs);
				if (one_run(&vm, o, flag, syncs[s], &cells[s][flag]))
					goto out;
			}
	r = 0;
out:
	vm_stop(&vm);
	unlink(img);
	return r;
}

static double per_op(long long x, const struct cell *c)
{
	return c->ops ? (double)x / c->ops : 0;
}

int main(int argc, char **argv)
{
	static struct cell cells[MAX_FS][2][N_SYNC][2];	/* fs, cache, sync, flag */
	char release[128] = "?", qemu[64] = "?";
	struct nm_opts o;
	int r = nm_parse_args(argc, argv, &o), bad = 0;

	if (r)
		return r == 1 ? 0 : 2;
	cleanup_install();
	/* beside an owner record: a later run sweeps it if this one is killed */
	if (nm_image_claim(img, sizeof(img)))
		return 2;
	cleanup_file(img);
	for (int f = 0; f < o.n_fs; f++)
		for (int k = 0; k < o.n_cache; k++)
			if (measure(&o, o.fs[f], o.cache[k], cells[f][k], release, sizeof(release),
				    qemu, sizeof(qemu)))
				return 1;

	printf("O_NOMTIME: 4 KiB O_DIRECT overwrites of allocated data, each followed by\n"
	       "a sync (make nomtime-bench)\n"
	       "kernel %s, QEMU %s (TCG), data disk profile %s%s,\n"
	       "%d runs x %d overwrites per setting, %d ms apart; requests per overwrite from\n"
	       "QMP query-blockstats, including commits up to %d s after the run.\n\n",
	       release, qemu, o.profile,
	       !strcmp(o.profile, "emmc") ? " (20 MiB/s, 2000 write IOPS)" : "",
	       o.runs, o.count, o.gap_ms, o.settle_s);
	if (o.keep_logs)
		printf("guest logs: results/%s/nomtime-bench (this run's)\n\n",
		       hx_logs_subdir(&(struct hx_opts){ .keep_logs = true }));
	printf("  fs    cache  sync       O_NOMTIME  writes  flushes  requests  ms/op  (write + sync)\n");
	for (int f = 0; f < o.n_fs; f++)
		for (int k = 0; k < o.n_cache; k++)
			for (int s = 0; s < N_SYNC; s++)
				for (int fl = 0; fl < 2; fl++) {
					const struct cell *c = &cells[f][k][s][fl];

					printf("  %-5s %-5s  %-9s  %-9s  %6.2f  %7.2f  %8.2f  %5.2f  (%.2f + %.2f)%s\n",
					       o.fs[f], o.cache[k], syncs[s], fl ? "yes" : "no",
					       per_op(c->writes, c), per_op(c->flushes, c),
					       per_op(c->writes + c->flushes, c),
					       median(c->op_us, c->n) / 1000,
					       median(c->write_us, c->n) / 1000,
					       median(c->sync_us, c->n) / 1000,
					       c->mtime_bad ? "  MTIME WRONG" : "");
					bad += c->mtime_bad;
				}
	printf("\n  writes, flushes, requests: device requests per overwrite; ms/op: median\n"
	       "  over the runs of each run's median time for the write and its sync.\n"
	       "  cache wc: the guest sees a volatile write cache (cache=none) and flushes it;\n"
	       "  nowc: no volatile cache (cache.writeback=off), so flushes never reach it.\n\n");
	printf("The seed's claim (2015): an O_DIRECT|O_NOMTIME overwriting write followed by a\n"
	       "sync went from 4 serial IO round trips to 1 in ext4 and from 2 to 1 in XFS;\n"
	       "dropping mtime updates can reduce the I/O of a write by a factor of two or more.\n"
	       "Measured, requests per overwrite and its sync, without -> with O_NOMTIME:\n");
	for (int f = 0; f < o.n_fs; f++)
		for (int k = 0; k < o.n_cache; k++)
			for (int s = 0; s < N_SYNC; s++) {
				const struct cell *a = &cells[f][k][s][0], *b = &cells[f][k][s][1];
				double x = per_op(a->writes + a->flushes, a);
				double y = per_op(b->writes + b->flushes, b);

				printf("  %-4s %-4s %-9s %5.2f -> %4.2f requests (x%.1f), %5.2f -> %4.2f ms\n",
				       o.fs[f], o.cache[k], syncs[s], x, y, y > 0 ? x / y : 0,
				       median(a->op_us, a->n) / 1000, median(b->op_us, b->n) / 1000);
			}
	if (bad)
		fprintf(stderr, "nomtime-bench: %d run(s) saw mtime behave against the flag\n", bad);
	return bad ? 1 : 0;
}
