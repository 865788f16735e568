#define _GNU_SOURCE
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "cliopt.h"

int outfile_write(const char *path, outfile_fn fn, const void *ctx)
{
	char tmp[1100];
	int fd, h, err = 0;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp);
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
	/* mkstemp made it 0600; a report is for everyone to read */
	if (!err && (chmod(tmp, 0644) || rename(tmp, path)))
		err = errno;
	if (err) {
		unlink(tmp);
		fprintf(stderr, "%s: cannot write %s: %s (any earlier %s is kept)\n",
			cli_prog, path, strerror(err), path);
	}
	cleanup_forget(h);
	return err ? -1 : 0;
}
