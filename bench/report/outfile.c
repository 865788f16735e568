#define _GNU_SOURCE
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "cliopt.h"
#include "outdir.h"

int outfile_write(const char *path, outfile_fn fn, const void *ctx)
{
	char *tmp;
	int fd, h, h_mark, err = 0;
	FILE *f;

	/* the lab's own name, with an owner record: swept if this run dies */
	fd = outdir_temp_open(path, &tmp, &h_mark);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", cli_prog, path, strerror(errno));
		return -1;
	}
	h = cleanup_file(tmp);
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
	} else {
		if (fn(f, ctx))
			err = errno ? errno : EIO;
		if (!err && (fflush(f) || ferror(f) || fsync(fd)))
			err = errno ? errno : EIO;
		if (fclose(f) && !err)
			err = errno;
	}
	/* a report is for everyone to read, whatever the umask */
	if (!err && (chmod(tmp, 0644) || rename(tmp, path)))
		err = errno;
	if (err) {
		unlink(tmp);
		fprintf(stderr, "%s: cannot write %s: %s (any earlier %s is kept)\n",
			cli_prog, path, strerror(err), path);
	}
	cleanup_forget(h);
	outdir_temp_done(tmp, h_mark);
	free(tmp);
	return err ? -1 : 0;
}
