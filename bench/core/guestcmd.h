/* Agent requests with collected output, for the lab. */
#ifndef SLAB_GUESTCMD_H
#define SLAB_GUESTCMD_H

#include "vm.h"

/* The most OUT text one request may return; more is a ProtocolError. */
#define GUEST_OUT_CAP (4u << 20)

/*
 * Sends one agent request ("RUN ...", "WRITE ...") built from fmt.
 * VERDICT_OK when it completed with status 0; else prints why and returns
 * the verdict (VERDICT_SETUP_FAILED for a non-zero status).  The OUT lines,
 * if out is non-NULL, come back in *out, one per line without a final
 * newline (free it).  *status, if given, gets the status.
 */
enum verdict guest_req(struct vm *vm, int timeout_ms, char **out, int *status,
		       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* guest_req() that prints nothing for a non-zero status (SetupFailed, the
 * status in *status): for requests whose refusal the caller judges. */
enum verdict guest_try(struct vm *vm, int timeout_ms, char **out, int *status,
		       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* guest_req() without the status: 0 on success, non-zero otherwise. */
int guest_cmd(struct vm *vm, int timeout_ms, char **out, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
