#include "labargs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXARGS 40

/* Reads what a redirected descriptor collected, NUL-terminated. */
static void slurp(FILE *f, char *buf, size_t n)
{
	size_t len;

	rewind(f);
	len = fread(buf, 1, n - 1, f);
	buf[len] = '\0';
	fclose(f);
}

int labargs_run(struct lab_opts *o, struct res *r, int argc, char **argv)
{
	FILE *fo = tmpfile(), *fe = tmpfile();
	int so, se;

	if (!fo || !fe) {
		perror("tmpfile");
		exit(2);
	}
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	dup2(fileno(fo), 1);
	dup2(fileno(fe), 2);
	r->rc = lab_parse_args(argc, argv, o);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	slurp(fo, r->out, sizeof(r->out));
	slurp(fe, r->err, sizeof(r->err));
	return r->rc;
}

int labargs_parse(struct lab_opts *o, struct res *r, ...)
{
	char *argv[MAXARGS + 2];
	int argc = 0;
	va_list ap;
	const char *a;

	argv[argc++] = "suspend-lab";
	va_start(ap, r);
	while ((a = va_arg(ap, const char *)) && argc <= MAXARGS)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	return labargs_run(o, r, argc, argv);
}

static int count_char(const char *s, char c)
{
	int n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

/* One error line, as the brief for the tool's scripts requires. */
bool labargs_one_error(const struct res *r)
{
	size_t len = strlen(r->err);

	return r->rc == 2 && !r->out[0] &&
	       !strncmp(r->err, "suspend-lab: ", 13) &&
	       len && r->err[len - 1] == '\n' && count_char(r->err, '\n') == 1;
}
