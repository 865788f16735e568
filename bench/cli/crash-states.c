/* crash-states: command line only; the engine is crash/ in libslab. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "crash.h"
#include "image.h"
#include "outdir.h"

/* A new recording replaces every earlier cycle: judging must never mix.
 * *made: rec did not exist before. */
static int clear_recordings(const char *rec, bool *made)
{
	static const char *const files[] = { "base.img", "write.log", "meta.json", "work.img",
					     "replay.img" };
	DIR *d = opendir(rec);
	struct dirent *de;

	*made = false;
	if (!d) {
		if (mkdir(rec, 0755))
			return errno == EEXIST ? 0 : -1;
		*made = true;
		return 0;
	}
	while ((de = readdir(d))) {
		char p[1400];
		int num;

		if (sscanf(de->d_name, "cycle-%d", &num) != 1)
			continue;
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(p, sizeof(p), "%s/%s/%s", rec, de->d_name, files[i]);
			unlink(p);
		}
		snprintf(p, sizeof(p), "%s/%s", rec, de->d_name);
		rmdir(p);
	}
	closedir(d);
	return 0;
}

/* 0, 1 if a cycle failed (what failed said above), 2 on bad input. */
static int record(const struct cs_opts *o)
{
	int number = 0, failed = 0;
	bool made;

	if (clear_recordings(o->rec_dir, &made)) {
		fprintf(stderr, "%s: cannot make %s: %s\n", cli_prog, o->rec_dir, strerror(errno));
		return 2;
	}
	/* alternate the settings, so drift hits both alike */
	for (int i = 0; i < o->cycles; i++)
		for (int sync = 1; sync >= 0; sync--) {
			char dir[1200];
			enum verdict v;

			if (!(o->syncs & (1 << sync)))
				continue;
			snprintf(dir, sizeof(dir), "%s/cycle-%d", o->rec_dir, ++number);
			v = cs_record(o, number, sync, dir);
			failed += v != VERDICT_OK;
			if (!o->hx.quiet || v)
				fprintf(stderr, "%s: cycle %d (sync=%d): %s\n", cli_prog, number, sync,
					v ? verdict_name(v) : "recorded");
		}
	/* a failed cycle removed its own directory; then ours, if we made it */
	if (failed == number && made)
		rmdir(o->rec_dir);
	if (failed)
		fprintf(stderr, "%s: %d of %d cycles not recorded\n", cli_prog, failed, number);
	return failed ? 1 : 0;
}

static int report(const struct cs_opts *o, char **paths, int n)
{
	struct cs_run run;
	int rc = cs_merge(paths, n, &run);

	if (!rc) {
		cs_report_table(stdout, &run);
		fflush(stdout);	/* before stderr's lines, whatever stdout is */
		rc = cs_report_files(o->hx.out_dir, &run) ? 1 : 0;
		if (!rc)
			fprintf(stderr, "%s: wrote %s/crash.{json,csv,svg}\n", cli_prog,
				o->hx.out_dir);
	}
	cs_run_free(&run);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The shard files in --out, by listing it: --out is a name, not a glob
 * pattern ("[", "*" and "?" are a user's characters). */
static int merge(const struct cs_opts *o)
{
	DIR *d = opendir(o->hx.out_dir);
	struct dirent *de;
	char **paths = NULL;
	int n = 0, rc = 2;

	while (d && (de = readdir(d))) {
		char **np;
		int k, of, end = -1;

		if (sscanf(de->d_name, "crash-shard-%d-of-%d.json%n", &k, &of, &end) != 2 ||
		    end < 0 || de->d_name[end])
			continue;
		np = realloc(paths, (n + 1) * sizeof(*paths));
		if (!np || asprintf(&np[n], "%s/%s", o->hx.out_dir, de->d_name) < 0) {
			paths = np ? np : paths;
			fprintf(stderr, "%s: out of memory\n", cli_prog);
			goto out;
		}
		paths = np;
		n++;
	}
	if (!n) {
		fprintf(stderr, "%s: merge: no crash-shard-K-of-N.json in %s%s%s\n", cli_prog,
			o->hx.out_dir, d ? "" : ": ", d ? "" : strerror(errno));
		goto out;
	}
	qsort(paths, n, sizeof(*paths), by_name);
	rc = report(o, paths, n);
out:
	if (d)
		closedir(d);
	for (int i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return rc;
}

static int judge(const struct cs_opts *o, char *path, size_t n)
{
	struct cs_backend be = cs_vm_backend(o);
	int rc = be.ctx ? cs_judge(o, &be, path, n) : 2;

	cs_vm_backend_done(&be);
	return rc;
}

/* Built beside --image and linked to its name, which must be new: replay
 * never replaces a file (crash.json, or anyone's). */
static int replay(const struct cs_opts *o)
{
	struct cs_cycle c;
	struct cs_state s;
	struct stat st;
	char dir[1200], base[1400], why[300], tmp[1200];
	int rc, fd, h;

	if (cs_check_outside(o->rec_dir, "image", o->replay_image))
		return 2;
	if (!lstat(o->replay_image, &st))
		return cli_bad("--image: '%s' exists (replay writes a new file only: remove it,"
			       " or name another)", o->replay_image);
	snprintf(dir, sizeof(dir), "%s/cycle-%d", o->rec_dir, o->replay_cycle);
	if (cs_cycle_load(&c, dir, o->replay_cycle))
		return 2;
	cs_parse(o->replay_state, &s);
	snprintf(base, sizeof(base), "%s/base.img", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", o->replay_image);
	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", cli_prog, o->replay_image,
			strerror(errno));
		cs_cycle_free(&c);
		return 2;
	}
	close(fd);
	h = cleanup_file(tmp);
	rc = cs_build_image(&c.log, &s, base, tmp, why, sizeof(why));
	/* link(), not rename(): a file made there meanwhile is kept */
	if (!rc && (chmod(tmp, 0644) || link(tmp, o->replay_image))) {
		snprintf(why, sizeof(why), "cannot write %s: %s", o->replay_image, strerror(errno));
		rc = -1;
	}
	unlink(tmp);
	cleanup_forget(h);
	if (rc)
		fprintf(stderr, "%s: %s\n", cli_prog, why);
	else
		fprintf(stderr, "%s: wrote %s: state %s of cycle %d (%d log entries)\n", cli_prog,
			o->replay_image, o->replay_state, o->replay_cycle, c.log.n);
	cs_cycle_free(&c);
	return rc ? 2 : 0;
}

int main(int argc, char **argv)
{
	struct cs_opts o;
	char path[1200], *paths[1] = { path };
	double t0 = mono_now();
	int rc = cs_parse_args(argc, argv, &o);

	if (rc)
		return rc == 1 ? 0 : 2;
	cleanup_install();
	/* the report's names in the way are found before anything runs */
	outdir_expect((const char *const[]){ "crash.json", "crash.csv", "crash.svg", NULL });
	if (!strcmp(o.cmd, "merge"))
		return outdir_check(o.hx.out_dir, "--out") ? 2 : merge(&o);
	if (!strcmp(o.cmd, "replay"))
		return replay(&o);
	if (hx_check_inputs(&o.hx, true))
		return 2;
	if (!strcmp(o.cmd, "record"))
		return record(&o);
	if (!strcmp(o.cmd, "judge"))
		return judge(&o, path, sizeof(path));
	/* all: one shard (--shard is refused), its own report; the worst
	 * status of the steps, never their bits or'ed together */
	rc = record(&o);
	if (rc) {
		fprintf(stderr, "%s: all: recording failed, nothing judged\n", cli_prog);
		return rc;
	}
	rc = judge(&o, path, sizeof(path));
	if (rc < 2 && !access(path, R_OK)) {
		int r = report(&o, paths, 1);

		rc = r > rc ? r : rc;
	}
	fprintf(stderr, "%s: total %.0f s\n", cli_prog, mono_now() - t0);
	return rc;
}
