#define _GNU_SOURCE
#include "guestcmd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prog.h"

struct out_buf {
	struct chan *ch;
	char *s;
	size_t len, cap;
};

static void collect(void *ctx, enum agent_msg m, char *rest)
{
	struct out_buf *b = ctx;
	size_t l = strlen(rest);

	if (m != AGENT_MSG_OUT) {
		snprintf(b->ch->why, sizeof(b->ch->why), "%s inside a command's reply",
			 agent_msg_name(m));
		return;
	}
	if (b->len + l + 2 > GUEST_OUT_CAP) {
		snprintf(b->ch->why, sizeof(b->ch->why), "more than %u bytes of output",
			 GUEST_OUT_CAP);
		return;
	}
	if (b->len + l + 2 > b->cap) {
		size_t cap = (b->cap + l + 2) * 2;
		char *s = realloc(b->s, cap);

		if (!s) {
			snprintf(b->ch->why, sizeof(b->ch->why), "out of memory");
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	memcpy(b->s + b->len, rest, l);
	b->len += l;
	b->s[b->len++] = '\n';
	b->s[b->len] = '\0';
}

/* quiet: a non-zero status is the caller's to judge, not a failure to print */
static enum verdict vreq(struct vm *vm, int timeout_ms, char **out, int *st, bool quiet,
			 const char *fmt, va_list ap)
{
	struct out_buf b = { .ch = &vm->agent };
	char *cmd;
	int status = -1;
	enum verdict v;

	if (out)
		*out = NULL;
	if (st)
		*st = status;
	/* whole or not at all: a command cut short is another command */
	if (vasprintf(&cmd, fmt, ap) < 0) {
		fprintf(stderr, "%s: guest request: out of memory\n", cli_prog);
		return VERDICT_SETUP_FAILED;
	}
	v = vm_agent_request(vm, cmd, collect, &b, timeout_ms, &status);
	if (st)
		*st = status;
	if (v == VERDICT_OK && status)
		v = VERDICT_SETUP_FAILED;
	if (v != VERDICT_OK && quiet && status > 0) {
		free(cmd);
		free(b.s);
		return v;
	}
	if (v != VERDICT_OK) {
		fprintf(stderr, "%s: guest request failed (%s, status %d%s%s): %.200s\n", cli_prog,
			verdict_name(v), status, vm->agent.why[0] ? ", " : "",
			vm->agent.why, cmd);
		if (b.s && status > 0)
			fprintf(stderr, "%.2000s", b.s);
		free(cmd);
		free(b.s);
		return v;
	}
	free(cmd);
	if (b.s && b.len)
		b.s[b.len - 1] = '\0';	/* no trailing newline */
	if (out)
		*out = b.s ? b.s : strdup("");
	else
		free(b.s);
	return VERDICT_OK;
}

enum verdict guest_req(struct vm *vm, int timeout_ms, char **out, int *status,
		       const char *fmt, ...)
{
	va_list ap;
	enum verdict v;

	va_start(ap, fmt);
	v = vreq(vm, timeout_ms, out, status, false, fmt, ap);
	va_end(ap);
	return v;
}

enum verdict guest_try(struct vm *vm, int timeout_ms, char **out, int *status,
		       const char *fmt, ...)
{
	va_list ap;
	enum verdict v;

	va_start(ap, fmt);
	v = vreq(vm, timeout_ms, out, status, true, fmt, ap);
	va_end(ap);
	return v;
}

int guest_cmd(struct vm *vm, int timeout_ms, char **out, const char *fmt, ...)
{
	va_list ap;
	enum verdict v;

	va_start(ap, fmt);
	v = vreq(vm, timeout_ms, out, NULL, false, fmt, ap);
	va_end(ap);
	return v != VERDICT_OK;
}
