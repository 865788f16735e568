/*
 * The oracle's guest half for any mount point: power-cut's judge after its
 * reboot, and the crash states' a guest mounts one after another.
 */
#include "powercut.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guestcmd.h"

struct reply {
	char line[512];
};

static void keep(void *ctx, enum agent_msg tag, char *rest)
{
	struct reply *r = ctx;

	if (tag == AGENT_MSG_OUT)
		snprintf(r->line, sizeof(r->line), "%s", rest);
}

static enum verdict verify_file(struct hx *h, const char *mnt, struct pc_file *f)
{
	struct reply rp = { "" };
	char req[512], type[16];
	long long sz, good, fb;
	int status = -1;
	enum verdict v;

	snprintf(req, sizeof(req), "VERIFY %s/%s %llu %llu", mnt, f->path,
		 (unsigned long long)f->seed, (unsigned long long)f->size);
	v = vm_agent_request(&h->vm, req, keep, &rp, hx_ms(h, 120000), &status);
	if (v)
		return v;
	/* the guest answered with the errno of its lstat or read: a
	 * damaged filesystem's finding (f2fs gives EUCLEAN), not ours */
	if (status > 0) {
		hx_progress(h, "%s: unreadable (errno %d)", f->path, status);
		pc_judge_unreadable(f);
		return VERDICT_OK;
	}
	if (!agent_kv(rp.line, "type", type, sizeof(type)) ||
	    !agent_kvs_ll(rp.line, "size", &sz, "good", &good, "first_bad", &fb, NULL) ||
	    sz < 0 || good < 0 || fb < 0 || status) {
		fprintf(stderr, "%s: %s: status %d, \"%s\"\n", cli_prog, req, status, rp.line);
		return VERDICT_PROTOCOL;
	}
	f->actual = sz;
	f->good = good;
	f->first_bad = fb;
	pc_judge(f, type);
	return VERDICT_OK;
}

/* fio's own oracle: its verify headers, read back. */
static enum verdict verify_fio(struct hx *h, const char *mnt, struct pc_record *r,
			       struct pc_file *f)
{
	char *out = NULL, type[16] = "none", p[256];
	long long sz = 0;
	enum verdict v;

	snprintf(p, sizeof(p), "%s/%s", mnt, f->path);
	v = hx_run(h, h->base.cmd, &out, "RUN if [ -L %s ]; then echo type=lnk size=0;"
		   " elif [ -f %s ]; then echo type=reg size=$(stat -c %%s %s);"
		   " elif [ -e %s ]; then echo type=other size=0;"
		   " else echo type=none size=0; fi", p, p, p, p);
	if (v)
		return v;
	if (!agent_kv(out, "type", type, sizeof(type)) || !agent_kv_ll(out, "size", &sz)) {
		free(out);
		return VERDICT_PROTOCOL;
	}
	free(out);
	out = NULL;
	r->fio_verify = 0;
	if (!strcmp(type, "reg") && sz >= (long long)f->size) {
		v = hx_run(h, 120000, &out, "RUN " HX_FIO " --name=cut --filename=%s"
			   " --rw=write --bs=64k --size=%llu --ioengine=psync --thread"
			   " --verify=crc32c --verify_only --verify_state_load=0"
			   " --output-format=terse >/dev/null 2>&1 && echo verify=ok"
			   " || echo verify=failed", p, (unsigned long long)f->size);
		if (v)
			return v;
		r->fio_verify = !strcmp(out, "verify=ok");
		free(out);
	}
	f->actual = sz;
	f->good = r->fio_verify ? f->size : 0;
	f->first_bad = f->good;
	pc_judge(f, type);
	return VERDICT_OK;
}

/* A tolerated path, or a directory above one. */
static bool tolerated_path(const char *const *tol, const char *path)
{
	size_t len = strlen(path);

	for (; tol && *tol; tol++)
		if (!strcmp(*tol, path) || (!strncmp(*tol, path, len) && (*tol)[len] == '/'))
			return true;
	return false;
}

enum verdict pc_verify_mounted(struct hx *h, struct pc_record *r, const char *mnt,
			       const char *const *tolerated)
{
	enum verdict v = VERDICT_OK;
	char *out = NULL, *line, *save;
	int status = 0;

	for (int i = 0; !v && i < r->n_files; i++)
		v = strcmp(r->files[i].kind, "fio") ? verify_file(h, mnt, &r->files[i]) :
			verify_fio(h, mnt, r, &r->files[i]);
	if (!v)
		v = guest_try(&h->vm, hx_ms(h, h->base.cmd), &out, &status, "LIST %s", mnt);
	/* a directory the filesystem refused to read: what it holds is
	 * unaccounted for, so it counts as one unexpected entry */
	if (v == VERDICT_SETUP_FAILED && status > 0) {
		char what[64];

		snprintf(what, sizeof(what), "(LIST refused: errno %d)", status);
		pc_check_entry(r, "?", what);
		v = VERDICT_OK;
	}
	for (line = v || !out ? NULL : strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *path = line + strcspn(line, " ");

		if (*path)
			*path++ = '\0';
		if (!tolerated_path(tolerated, path))
			pc_check_entry(r, line, path);
	}
	free(out);
	return v;
}
