/*
 * fakeqemu: a stand-in for qemu-system-x86_64 in the offline tests.  It
 * takes the lab's own command line, serves QMP and the agent's protocol on
 * the sockets named there, and plays one guest whose behaviour and faults a
 * scenario sets (FAKEQEMU, comma-separated):
 *
 *   exit-at-start       print a kernel panic on the console and exit 1
 *   no-ready            never say READY
 *   version=N           READY with protocol version N
 *   qmp-garbage         a QMP greeting that is not JSON
 *   die-after=N         exit after N agent requests
 *   forge               a RUN reply line of 9000 bytes with a DONE inside
 *   wrong-seq           replies carry the wrong request number
 *   missing-keys        REQUEST without dirty_kb
 *   stall-ms=N          wait N ms between REQUEST and suspending
 *   host-stop-ms=N      after REQUEST, stopped (SIGSTOP) for N ms, as by the host
 *   no-suspend          never suspend: no SUSPEND event, ever
 *   freeze-fails        the kernel gives up on the suspend: RESUMED rc=EBUSY
 *                       and a "Freezing of tasks failed" error, no event
 *   wake-refused        system_wakeup answers with an error
 *   fail-run=TEXT       RUN commands containing TEXT exit with status 1
 *   knob-refused        SET answers EACCES
 *   unmountable         mount fails on a disk that was cut
 *   symlink=PATH        after a cut, PATH is a symlink
 *   extend=PATH         after a cut, PATH has 64 bytes more
 *   leftover=PATH       after a cut, PATH exists too
 *   euclean=PATH        after a cut, VERIFY of PATH fails with EUCLEAN (117)
 *   list-euclean        after a cut, LIST fails with EUCLEAN after its entries
 *   flood               a "test" command answers with 6 MB of output
 *   enospc=TEXT         a RUN command containing TEXT fills the host's disk:
 *                       BLOCK_IO_ERROR (stop, nospace) and STOP, then the
 *                       guest answers nothing, as werror=enospc does
 *
 * $FAKEQEMU_PIDS, if set, names a file each fakeqemu appends its pid to;
 * $FAKEQEMU_MOUNTS, one its agent appends each mount's filesystem type to.
 *
 * The data disk's files live in a model (model.c): buffered writes are
 * lost at a SIGKILL unless fsync, sync or a suspend sync made them durable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "agent_proto.h"
#include "fake.h"

struct fake fk;

bool fk_has(const char *flag)
{
	return fk_arg(flag) != NULL;
}

const char *fk_arg(const char *flag)
{
	const char *s = getenv("FAKEQEMU"), *p;
	size_t n = strlen(flag);

	for (p = s; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		if (!strncmp(p, flag, n) && (p[n] == ',' || !p[n]))
			return p + n;
		if (!strncmp(p, flag, n) && p[n] == '=')
			return p + n + 1;
	}
	return NULL;
}

/* "a,,b" option values back to "a,b", up to the next single comma */
static void opt_value(const char *opts, const char *key, char *out, size_t n)
{
	const char *p = strstr(opts, key);
	size_t o = 0;

	out[0] = '\0';
	if (!p)
		return;
	for (p += strlen(key); *p && o + 1 < n; p++) {
		if (*p == ',' && p[1] == ',')
			p++;
		else if (*p == ',')
			break;
		out[o++] = *p;
	}
	out[o] = '\0';
}

static void parse_args(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i++) {
		const char *a = argv[i + 1];

		if (!strcmp(argv[i], "-chardev") && strstr(a, "id=qmp"))
			opt_value(a, "path=", fk.qmp_path, sizeof(fk.qmp_path));
		else if (!strcmp(argv[i], "-chardev") && strstr(a, "id=agent"))
			opt_value(a, "path=", fk.agent_path, sizeof(fk.agent_path));
		else if (!strcmp(argv[i], "-chardev") && strstr(a, "id=serial"))
			opt_value(a, "path=", fk.serial_path, sizeof(fk.serial_path));
		else if (!strcmp(argv[i], "-drive") && !strstr(a, "readonly=on") &&
			 !strstr(a, "if=pflash") && !fk.disk[0])
			opt_value(a, "file=", fk.disk, sizeof(fk.disk));
	}
}

void fk_serial(const char *fmt, ...)
{
	FILE *f = fopen(fk.serial_path, "a");
	va_list ap;

	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static int listen_on(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 1)) {
		fprintf(stderr, "fakeqemu: cannot listen on %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return fd;
}

void fk_msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- QMP ---- */

void fk_qmp_send(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	if (fk.qmp < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 2, fmt, ap);
	va_end(ap);
	buf[n++] = '\r';
	buf[n++] = '\n';
	agent_write_all(fk.qmp, buf, n);
}

void fk_qmp_event(const char *name)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	fk_qmp_send("{\"timestamp\": {\"seconds\": %lld, \"microseconds\": %ld}, \"event\": \"%s\"}",
		    (long long)ts.tv_sec, ts.tv_nsec / 1000, name);
}

static void qmp_command(const char *text)
{
	json_error_t err;
	json_t *j = json_loads(text, 0, &err);
	const char *cmd = json_string_value(json_object_get(j, "execute"));
	json_t *id = json_object_get(j, "id");
	char *ids = id ? json_dumps(id, JSON_ENCODE_ANY) : strdup("null");

	if (!cmd)
		fk_qmp_send("{\"error\": {\"class\": \"GenericError\", \"desc\": \"bad\"}, \"id\": %s}", ids);
	else if (!strcmp(cmd, "system_wakeup") && fk_has("wake-refused"))
		fk_qmp_send("{\"error\": {\"class\": \"GenericError\", \"desc\": \"Unable to wake up\"}, \"id\": %s}", ids);
	else if (!strcmp(cmd, "system_wakeup") || !strcmp(cmd, "send-key")) {
		fk_qmp_send("{\"return\": {}, \"id\": %s}", ids);
		if (fk.suspended)
			fk_wake();
	} else if (!strcmp(cmd, "quit")) {
		fk_qmp_send("{\"return\": {}, \"id\": %s}", ids);
		exit(0);
	} else {
		fk_qmp_send("{\"return\": {}, \"id\": %s}", ids);
	}
	free(ids);
	json_decref(j);
}

static void qmp_input(void)
{
	static char buf[8192];
	static size_t len;
	ssize_t r = read(fk.qmp, buf + len, sizeof(buf) - 1 - len);
	char *nl;

	if (r <= 0) {
		close(fk.qmp);
		fk.qmp = -1;
		return;
	}
	len += r;
	buf[len] = '\0';
	while ((nl = strchr(buf, '\n'))) {
		*nl = '\0';
		qmp_command(buf);
		len -= nl + 1 - buf;
		memmove(buf, nl + 1, len + 1);
	}
}

/* ---- main loop ---- */

int main(int argc, char **argv)
{
	int lq, la;

	memset(&fk, 0, sizeof(fk));
	fk.qmp = fk.agent = -1;
	fk.knob = 1;
	parse_args(argc, argv);
	if (!fk.qmp_path[0] || !fk.agent_path[0] || !fk.serial_path[0]) {
		fprintf(stderr, "fakeqemu: no QMP, agent or serial path on the command line\n");
		return 1;
	}
	fk_serial("fakeqemu: booting\n");
	if (getenv("FAKEQEMU_PIDS")) {
		FILE *f = fopen(getenv("FAKEQEMU_PIDS"), "a");

		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
	if (fk_has("exit-at-start")) {
		fk_serial("[    0.5] Kernel panic - not syncing: VFS: Unable to mount root fs\n");
		fprintf(stderr, "fakeqemu: guest panicked\n");
		return 1;
	}
	model_load(fk.disk);
	lq = listen_on(fk.qmp_path);
	la = listen_on(fk.agent_path);
	for (;;) {
		struct pollfd p[4] = {
			{ .fd = fk.qmp < 0 ? lq : -1, .events = POLLIN },
			{ .fd = fk.agent < 0 ? la : -1, .events = POLLIN },
			{ .fd = fk.qmp, .events = POLLIN },
			{ .fd = fk.agent, .events = POLLIN },
		};

		if (poll(p, 4, 50) < 0 && errno != EINTR)
			return 1;
		if (p[0].revents & POLLIN) {
			fk.qmp = accept(lq, NULL, NULL);
			if (fk_has("qmp-garbage"))
				fk_qmp_send("this is not QMP");
			else
				fk_qmp_send("{\"QMP\": {\"version\": {\"qemu\": {\"micro\": 0, \"minor\": 2, \"major\": 7}, \"package\": \"fake\"}, \"capabilities\": []}}");
		}
		if (p[1].revents & POLLIN) {
			fk.agent = accept(la, NULL, NULL);
			agent_hello();
		}
		if (p[2].revents & (POLLIN | POLLHUP))
			qmp_input();
		if (p[3].revents & (POLLIN | POLLHUP))
			agent_input();
		agent_tick();
	}
}
