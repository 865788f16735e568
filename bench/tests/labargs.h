/*
 * lab_parse_args for the option tests, with stdout and stderr captured so
 * that --help text and error lines never mix into the TAP stream.
 */
#ifndef LABARGS_H
#define LABARGS_H

#include <stdbool.h>

#include "lab.h"

struct res {
	int rc;
	char out[8192];
	char err[4096];
};

/* lab_parse_args(argc, argv, o) into r; returns r->rc. */
int labargs_run(struct lab_opts *o, struct res *r, int argc, char **argv);
/* labargs_parse(o, r, "--cycles", "5", NULL): argv[0] is added. */
int labargs_parse(struct lab_opts *o, struct res *r, ...);
/* rc 2, nothing on stdout, one stderr line starting "suspend-lab: ". */
bool labargs_one_error(const struct res *r);

#endif
