/*
 * The guest that judges crash states: one boot takes a batch of state
 * images as virtio disks (named by serial, listed in a -readconfig file,
 * since one -drive/-device pair per disk would not fit the command line),
 * mounts each in turn (mounting replays the journal), runs the power-cut
 * oracle on it and unmounts; the host runs its filesystem's checker on the
 * image after (fskind.h).
 */
#define _GNU_SOURCE
#include "crash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "guestcmd.h"
#include "hostrun.h"

#define MNT "/mnt/data"

struct vmj {
	const struct cs_opts *o;
	int boots;
};

static int write_config(const char *path, struct cs_job *jobs, int n)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -1;
	for (int i = 0; i < n; i++) {
		if (strpbrk(jobs[i].image, "\"\n")) {
			fclose(f);
			return -1;
		}
		fprintf(f, "[drive \"cs%d\"]\n  file = \"%s\"\n  if = \"none\"\n"
			"  format = \"raw\"\n  cache = \"unsafe\"\n  aio = \"threads\"\n\n"
			"[device \"csd%d\"]\n  driver = \"virtio-blk-pci\"\n  drive = \"cs%d\"\n"
			"  serial = \"cs%d\"\n\n", i, jobs[i].image, i, i, i);
	}
	return fclose(f) ? -1 : 0;
}

/* dev[i] = the block device of disk i ("vdc"), from the serials. */
static enum verdict map_disks(struct hx *h, int n, char dev[][16])
{
	char *out = NULL, *line, *save;
	enum verdict v = hx_run(h, h->base.cmd, &out, "RUN for d in /sys/block/vd*; do"
				" echo ${d##*/} $(cat $d/serial 2>/dev/null); done");

	for (int i = 0; i < n; i++)
		dev[i][0] = '\0';
	for (line = v ? NULL : strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[16];
		int k;

		if (sscanf(line, "%15s cs%d", name, &k) == 2 && k >= 0 && k < n)
			snprintf(dev[k], sizeof(dev[k]), "%s", name);
	}
	free(out);
	for (int i = 0; !v && i < n; i++)
		if (!dev[i][0])
			v = VERDICT_SETUP_FAILED;
	return v;
}

static void fill(struct cs_result *res, const struct pc_record *r, enum verdict v)
{
	res->judged = true;
	snprintf(res->verdict, sizeof(res->verdict), "%s", verdict_name(v));
	res->files_judged = r->n_files;
	res->expected_bytes = r->dataset_bytes;
	res->lost_bytes = r->bytes_lost;
	res->fsync_intact = r->fsync_intact;
	res->fio_verify = r->fio_verify;
	res->durable_bytes = 0;
	for (int i = 0; i < r->n_files; i++)
		res->durable_bytes += r->files[i].durable;
	memcpy(res->n, r->n, sizeof(res->n));
	res->n_unexpected = r->n_unexpected;
}

/* One state: OK (judged, whatever the oracle found) or the guest's failure. */
static enum verdict judge_one(struct hx *h, struct cs_job *j, const char *dev)
{
	const struct fs_kind *k = h->o->fs;
	struct pc_record rec = j->rec, *r = &rec;	/* a retry starts afresh */
	char why[200];
	enum verdict v;
	int status = 0;

	v = guest_req(&h->vm, hx_ms(h, 60000), NULL, &status, "RUN mount -t %s%s%s /dev/%s " MNT,
		      k->name, k->mount_opts[0] ? " -o " : "", k->mount_opts, dev);
	if (v == VERDICT_SETUP_FAILED) {
		pc_judge_unmountable(r);
		pc_tally(r);
		fill(j->res, r, VERDICT_FS_UNMOUNTABLE);
		j->res->mounted = false;
		j->res->fs_clean = fs_check(k, j->image, why, sizeof(why)) == 0;
		return VERDICT_OK;
	}
	if (v)
		return v;
	if ((v = pc_verify_mounted(h, r, MNT, j->tol)) ||
	    (v = hx_run(h, h->base.cmd, NULL, "RUN umount " MNT)))
		return v;
	pc_tally(r);
	fill(j->res, r, VERDICT_OK);
	j->res->mounted = true;
	/* on the host: the state is an image file there */
	j->res->fs_clean = fs_check(k, j->image, why, sizeof(why)) == 0;
	return VERDICT_OK;
}

static enum verdict boot_and_judge(struct vmj *x, struct cs_job *jobs, int n)
{
	char cfgpath[1100], thr[160], dev[CS_MAX_PER_BOOT][16], tag[32];
	const char *extra[] = { "-readconfig", cfgpath, NULL };
	struct vm_config cfg;
	struct hx h;
	struct hx_opts ho;
	enum verdict v;
	int hc;

	/* the recording's filesystem, whatever this run's --fs says */
	ho = x->o->hx;
	ho.fs = fs_kind_find(jobs[0].cycle->fs);
	if (!ho.fs) {
		fprintf(stderr, "%s: recorded on '%s', a filesystem this lab does not know\n",
			cli_prog, jobs[0].cycle->fs);
		return VERDICT_SETUP_FAILED;
	}
	snprintf(cfgpath, sizeof(cfgpath), "%s.disks.cfg", jobs[0].image);
	hc = cleanup_file(cfgpath);
	hx_init(&h, &ho);
	h.mem_mb = 1024;
	if (write_config(cfgpath, jobs, n)) {
		fprintf(stderr, "%s: cannot write %s\n", cli_prog, cfgpath);
		v = VERDICT_SETUP_FAILED;
		goto out;
	}
	hx_config(&h, &cfg, false, thr, sizeof(thr));
	cfg.extra = extra;
	snprintf(tag, sizeof(tag), "judge-%d", ++x->boots);
	if ((v = hx_start(&h, tag, &cfg)) || (v = map_disks(&h, n, dev)))
		goto out;
	for (int i = 0; !v && i < n; i++)
		if (!jobs[i].res->judged)
			v = judge_one(&h, &jobs[i], dev[i]);
out:
	if (v && h.up)
		hx_fail(&h, v, "judging");
	hx_stop(&h);
	unlink(cfgpath);
	cleanup_forget(hc);
	return v;
}

static void vm_batch(void *ctx, struct cs_job *jobs, int n)
{
	struct vmj *x = ctx;
	enum verdict v = VERDICT_OK;

	/* a guest that dies takes one more boot for the states it left */
	for (int t = 0; t < 2; t++) {
		v = boot_and_judge(x, jobs, n);
		if (!v)
			break;
	}
	for (int i = 0; i < n; i++)
		if (!jobs[i].res->judged)
			snprintf(jobs[i].res->verdict, sizeof(jobs[i].res->verdict), "%s",
				 verdict_name(v ? v : VERDICT_NOT_RUN));
}

struct cs_backend cs_vm_backend(const struct cs_opts *o)
{
	struct vmj *x = calloc(1, sizeof(*x));

	if (x)
		x->o = o;
	return (struct cs_backend){ .batch = vm_batch, .ctx = x };
}

void cs_vm_backend_done(struct cs_backend *b)
{
	free(b->ctx);
	b->ctx = NULL;
}
