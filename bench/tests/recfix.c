/* Hand-made crash recordings for the offline crash-states tests. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recfix.h"
#include "tap.h"

#define SS 512

void recfix_cycle(struct cs_cycle *c, const char *rec, int number)
{
	memset(c, 0, sizeof(*c));
	c->number = number;
	c->sync = 1;
	c->big_bytes = 1 << 20;
	c->seed = 4;
	c->suspended = true;
	c->replay_matches = true;
	snprintf(c->dir, sizeof(c->dir), "%s/cycle-%d", rec, number);
	mkdir(rec, 0755);
	mkdir(c->dir, 0755);
	snprintf(c->state, sizeof(c->state), "mem");
	snprintf(c->profile, sizeof(c->profile), "emmc");
	snprintf(c->fs, sizeof(c->fs), "ext4");
}

void recfix_log(struct cs_cycle *c, const char *spec)
{
	struct lw_writer w;
	unsigned char buf[SS];
	char p[900];

	c->n_files = 9;
	snprintf(p, sizeof(p), "%s/write.log", c->dir);
	lw_writer_open(&w, p, SS);
	for (int i = 0; spec[i]; i++) {
		memset(buf, 'A' + i, sizeof(buf));
		lw_writer_add(&w, spec[i] == 'F' ? 0 : i % 48, spec[i] == 'F' ? 0 : 1,
			      spec[i] == 'F' ? LW_FLUSH : 0, buf);
		if (i == 1)
			c->at_start = w.next * SS;
		if (i >= 2 && i - 2 < 9)
			c->file_begin[i - 2] = c->file_end[i - 2] = w.next * SS;
		if (i == 12)
			c->at_request = w.next * SS;
	}
	lw_writer_super(&w);
	lw_writer_close(&w);
	c->at_suspended = c->at_end = w.next * SS;
}

void recfix_seal(const struct cs_cycle *c, bool marked)
{
	char p[900];
	int fd;

	snprintf(p, sizeof(p), "%s/base.img", c->dir);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 64 * SS) || (marked && pwrite(fd, "base", 4, 3 * SS) != 4))
		tap_diag("cannot make %s", p);
	if (fd >= 0)
		close(fd);
	if (cs_meta_write(c))
		tap_diag("cs_meta_write failed");
}

int recfix_edit_meta(const char *rec, const char *from, const char *to)
{
	char p[800], buf[16384], *at;
	size_t len;
	FILE *f;

	snprintf(p, sizeof(p), "%s/cycle-1/meta.json", rec);
	f = fopen(p, "r");
	len = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[len] = '\0';
	at = strstr(buf, from);
	if (!at)
		return -1;
	f = fopen(p, "w");
	if (!f)
		return -1;
	fprintf(f, "%.*s%s%s", (int)(at - buf), buf, to, at + strlen(from));
	fclose(f);
	return 0;
}

void recfix_intact_batch(void *ctx, struct cs_job *jobs, int n)
{
	(void)ctx;
	for (int i = 0; i < n; i++) {
		struct cs_result *r = jobs[i].res;

		r->judged = r->mounted = r->fs_clean = r->fsync_intact = true;
		snprintf(r->verdict, sizeof(r->verdict), "OK");
		r->files_judged = jobs[i].rec.n_files;
		r->expected_bytes = jobs[i].rec.dataset_bytes;
		r->n[FV_INTACT] = r->files_judged;
		for (int f = 0; f < jobs[i].rec.n_files; f++)
			r->durable_bytes += jobs[i].rec.files[f].durable;
	}
}

void recfix_judge_opts(struct cs_opts *o, const char *kernel, const char *out, const char *rec)
{
	char *argv[] = { "crash-states", "judge", NULL };

	setenv("KERNEL", kernel, 1);
	setenv("INITRD", kernel, 1);
	cs_parse_args(2, argv, o);
	o->hx.out_dir = out;
	o->hx.quiet = true;
	o->rec_dir = rec;
}
