/*
 * --fs all: one program run per filesystem, each in a directory of its own,
 * every one checked, made and locked by hx_check_inputs() before the first
 * part starts.
 */
#define _GNU_SOURCE
#include "hx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "outdir.h"

int hx_each_fs(struct hx_opts *o, int (*fn)(void *ctx), void *ctx)
{
	const char *out = o->out_dir;
	double took[16];
	char *dir = NULL;
	int worst = 0;

	for (size_t i = 0; i < fs_n_kinds && i < 16; i++) {
		double t0 = mono_now();
		int rc = 2;

		free(dir);
		if (asprintf(&dir, "%s/%s", out, fs_kinds[i].name) < 0) {
			o->out_dir = out;
			return 1;
		}
		/* held since the checks: this only finds it again */
		if (mkdir(dir, 0755) && errno != EEXIST)
			fprintf(stderr, "%s: cannot make %s: %s\n", cli_prog, dir, strerror(errno));
		else
			rc = outdir_claim(dir);
		if (rc) {
			o->out_dir = out;
			free(dir);
			return 2;
		}
		o->fs = &fs_kinds[i];
		o->out_dir = dir;
		hx_progress(&(struct hx){ .o = o }, "--fs all: %s, in %s", o->fs->name, dir);
		rc = fn(ctx);
		took[i] = mono_now() - t0;
		if (rc > worst)
			worst = rc;
	}
	o->out_dir = out;
	free(dir);
	fprintf(stderr, "%s: --fs all took", cli_prog);
	for (size_t i = 0; i < fs_n_kinds && i < 16; i++)
		fprintf(stderr, "%s %s %.0f s", i ? "," : "", fs_kinds[i].name, took[i]);
	fputc('\n', stderr);
	return worst;
}
