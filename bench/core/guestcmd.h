/* Agent requests with collected output, and host commands, for the lab. */
#ifndef SLAB_GUESTCMD_H
#define SLAB_GUESTCMD_H

#include "vm.h"

/*
 * Sends one agent request ("RUN ...", "WRITE ...") built from fmt; 0 when
 * it completed with status 0, else prints why and returns non-zero.  The
 * OUT lines, if out is non-NULL, come back in *out, one per line without
 * a final newline (free it).
 */
int guest_cmd(struct vm *vm, int timeout_ms, char **out, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Runs a host command without a shell; its exit status, or -1. */
int host_run(char *const argv[], bool quiet);

#endif
