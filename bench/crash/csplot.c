/*
 * Loss against crash point: bytes lost by each judged state over its log
 * position, one panel per setting, one mark per kind of state, with each
 * cycle's request and the sync's last flush drawn in.  gnuplot (or
 * $GNUPLOT) renders the SVG; its input sits beside the output until then.
 * File names reach gnuplot as data (gp_path()): --out is never code.
 */
#define _GNU_SOURCE
#include "crash.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "escape.h"

#define MIB 1048576.0

extern char **environ;

static int data(const char *path, const struct cs_run *run)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -1;
	fprintf(f, "# sync kind position lost_mib\n");
	for (int i = 0; i < run->n; i++) {
		const struct cs_result *r = &run->res[i];

		if (r->judged && r->kind != CS_DROP)
			fprintf(f, "%d %s %d %.6f\n", r->sync, cs_kind_name(r->kind), r->pos,
				r->lost_bytes / MIB);
	}
	return fclose(f) ? -1 : 0;
}

/* D names the data file (script()). */
static void panel(FILE *f, const struct cs_run *run, int sync)
{
	static const char *const kinds[] = { "flush", "prefix", "gap" };
	static const char *const titles[] = { "after a flush", "no write cache",
					      "cache lost between flushes" };
	int a = 1, points = 0;

	for (int i = 0; i < run->n; i++)
		points += run->res[i].judged && run->res[i].kind != CS_DROP &&
			  run->res[i].sync == sync;
	fprintf(f, "unset arrow\nunset label\nset title 'suspend\\_sync=%d'\n", sync);
	if (!points) {
		/* gnuplot refuses a plot with no point at all */
		fprintf(f, "set label 1 'no state judged' at graph 0.5,0.5 center\n"
			"set yrange [0:1]\nplot NaN notitle\nset yrange [-0.5:*]\n");
		return;
	}
	for (int c = 0; c < run->n_cycles; c++) {
		const struct cs_cycle *cy = &run->cy[c];

		if (cy->sync != sync)
			continue;
		fprintf(f, "set arrow %d from %d, graph 0 to %d, graph 1 nohead dt 2 lc rgb '#888888'\n",
			a++, cy->m.request, cy->m.request);
		if (cy->sync_last_flush >= 0)
			fprintf(f, "set arrow %d from %d, graph 0 to %d, graph 1 nohead dt 3 lc rgb '#cc0000'\n",
				a++, cy->sync_last_flush, cy->sync_last_flush);
	}
	fprintf(f, "plot ");
	for (int k = 0; k < 3; k++)
		fprintf(f, "%sD u ($1 == %d && strcol(2) eq '%s' ? $3 : 1/0):4 w p pt %d"
			" title '%s'", k ? ", " : "", sync, kinds[k], 5 + 2 * k, titles[k]);
	fprintf(f, ", NaN w l dt 2 lc rgb '#888888' title 'request', NaN w l dt 3"
		" lc rgb '#cc0000' title \"sync's last flush\"\n");
}

static int script(const char *path, const char *dat, const char *out, const struct cs_run *run)
{
	FILE *f = fopen(path, "we");
	int maxpos = 1;

	if (!f)
		return -1;
	for (int c = 0; c < run->n_cycles; c++)
		if (run->cy[c].m.n > maxpos)
			maxpos = run->cy[c].m.n;
	fputs("set terminal svg size 900,700 dynamic font 'sans,11'\nset output ", f);
	gp_path(f, out);
	fputs("\nD = ", f);
	gp_path(f, dat);
	fprintf(f, "\nset multiplot layout 2,1 title 'Crash states: bytes lost against the crash point'\n"
		"set xlabel 'log position (entries issued before the crash)'\n"
		"set ylabel 'lost (MiB)'\nset key outside right\nset grid\n"
		"set xrange [0:%d]\nset yrange [-0.5:*]\n", maxpos + 1);
	panel(f, run, 1);
	panel(f, run, 0);
	fprintf(f, "unset multiplot\n");
	return fclose(f) ? -1 : 0;
}

static int run_gnuplot(const char *gp_script)
{
	const char *gp = getenv("GNUPLOT");
	char *argv[] = { (char *)(gp && *gp ? gp : "gnuplot"), (char *)gp_script, NULL };
	posix_spawn_file_actions_t fa;
	int err, status;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		fprintf(stderr, "%s: plot: cannot run %s: %s%s\n", cli_prog, argv[0], strerror(err),
			err == ENOENT ? " (apt-get install gnuplot-nox)" : "");
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

int cs_plot(const char *path, const struct cs_run *run)
{
	char *dat = NULL, *gp = NULL, *tmp = NULL;
	int h[3] = { -1, -1, -1 }, rc = -1;
	struct stat st;

	/* names of any length: never cut short */
	if (asprintf(&dat, "%s.tmp.dat", path) < 0 || asprintf(&gp, "%s.tmp.gp", path) < 0 ||
	    asprintf(&tmp, "%s.tmp.svg", path) < 0) {
		fprintf(stderr, "%s: plot: out of memory\n", cli_prog);
		goto out;
	}
	h[0] = cleanup_file(dat);
	h[1] = cleanup_file(gp);
	h[2] = cleanup_file(tmp);
	rc = data(dat, run) || script(gp, dat, tmp, run) ? -1 : run_gnuplot(gp);
	if (!rc && (stat(tmp, &st) || !st.st_size || rename(tmp, path)))
		rc = -1;
	unlink(dat);
	unlink(gp);
	unlink(tmp);
	for (int i = 0; i < 3; i++)
		if (h[i] >= 0)
			cleanup_forget(h[i]);
out:
	free(dat);
	free(gp);
	free(tmp);
	return rc;
}
