#include "qmpfake.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

static int peer_write(int fd, const char *s, size_t len, size_t chunk,
		      int delay_ms)
{
	ssize_t n;
	size_t k;

	while (len) {
		k = chunk && chunk < len ? chunk : len;
		if (delay_ms)
			usleep(delay_ms * 1000);
		n = send(fd, s, k, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		s += n;
		len -= n;
	}
	return 0;
}

int qfake_read_cmd(int fd, const char *expect, char *id, size_t idlen)
{
	char line[4096];
	const char *exe, *cid;
	json_t *cmd;
	size_t n = 0;
	ssize_t r;
	int ret = -1;

	while (n < sizeof(line) - 1) {
		r = read(fd, line + n, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		if (line[n++] == '\n')
			break;
	}
	line[n] = '\0';
	/* Strict parse: exactly one JSON object per line. */
	cmd = json_loads(line, 0, NULL);
	exe = json_string_value(json_object_get(cmd, "execute"));
	cid = json_string_value(json_object_get(cmd, "id"));
	if (exe && cid && (!expect || !strcmp(exe, expect))) {
		snprintf(id, idlen, "%s", cid);
		ret = 0;
	} else {
		fprintf(stderr, "# peer: unexpected command: %s", line);
	}
	json_decref(cmd);
	return ret;
}

/* Text with every $ID replaced by id; caller frees. */
static char *subst_id(const char *text, const char *id)
{
	char *out = malloc(strlen(text) * (strlen(id) + 1) + 1), *o = out;

	while (*text) {
		if (!strncmp(text, "$ID", 3)) {
			o = stpcpy(o, id);
			text += 3;
		} else {
			*o++ = *text++;
		}
	}
	*o = '\0';
	return out;
}

/* Runs in the child; exit status 0 if every step went as scripted. */
int qfake_run(int fd, const struct step *s)
{
	char id[64] = "", seen[16][64];
	int i, nseen = 0, r;
	char *text;

	for (; s->op != P_END; s++) {
		if (s->op == P_READ) {
			if (qfake_read_cmd(fd, s->arg, id, sizeof(id)))
				return 1;
			/* Every command must carry a fresh id. */
			for (i = 0; i < nseen; i++)
				if (!strcmp(seen[i], id))
					return 2;
			if (nseen < 16)
				strcpy(seen[nseen++], id);
			continue;
		}
		text = subst_id(s->arg, id);
		r = peer_write(fd, text, strlen(text), s->chunk, s->delay_ms);
		free(text);
		if (r)
			return 3;
	}
	return 0;
}

void qfake_open(struct qfake *f)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("socketpair");
		exit(2);
	}
	f->cfd = sv[0];
	f->pfd = sv[1];
	f->pid = -1;
	f->q = qmp_new(sv[0]);
}

static pid_t spawn(int keep, int drop, const struct step *s)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (!pid) {
		if (drop >= 0)
			close(drop);
		_exit(qfake_run(keep, s));
	}
	return pid;
}

void qfake_script(struct qfake *f, const struct step *s)
{
	f->pid = spawn(f->pfd, f->cfd, s);
	close(f->pfd);
	f->pfd = -1;
}

bool qfake_child_ok(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(st) && !WEXITSTATUS(st);
}

/*
 * The peer may still be writing the CR LF after a reply the client has
 * already taken, so reap it before closing; SHUT_WR ends a script stuck in
 * a read.
 */
bool qfake_close(struct qfake *f)
{
	bool ok = true;

	shutdown(f->cfd, SHUT_WR);
	if (f->pid > 0)
		ok = qfake_child_ok(f->pid);
	qmp_free(f->q);
	if (f->pfd >= 0)
		close(f->pfd);
	return ok;
}

void qfake_put(int fd, const char *s)
{
	if (peer_write(fd, s, strlen(s), 0, 0)) {
		perror("peer write");
		exit(2);
	}
}
