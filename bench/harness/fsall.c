/* --fs all: one program run per filesystem, each in a directory of its own. */
#define _GNU_SOURCE
#include "hx.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "outdir.h"

int hx_each_fs(struct hx_opts *o, int (*fn)(void *ctx), void *ctx)
{
	const char *out = o->out_dir;
	double took[16];
	char dir[1100];
	int worst = 0;

	for (size_t i = 0; i < fs_n_kinds && i < 16; i++) {
		double t0 = mono_now();
		int rc;

		snprintf(dir, sizeof(dir), "%s/%s", out, fs_kinds[i].name);
		if (mkdir(dir, 0755) && errno != EEXIST) {
			fprintf(stderr, "%s: cannot make %s: %s\n", cli_prog, dir, strerror(errno));
			o->out_dir = out;
			return 2;
		}
		if (outdir_claim(dir)) {
			o->out_dir = out;
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
	fprintf(stderr, "%s: --fs all took", cli_prog);
	for (size_t i = 0; i < fs_n_kinds && i < 16; i++)
		fprintf(stderr, "%s %s %.0f s", i ? "," : "", fs_kinds[i].name, took[i]);
	fputc('\n', stderr);
	return worst;
}
