/* One guest's life: start, readiness, stop, kill, reaping, and the verdicts it ends in (vm.h). */
#define _GNU_SOURCE
#include "vm_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "prog.h"
#include "rundir.h"

#define OVMF_VARS "/usr/share/OVMF/OVMF_VARS_4M.fd"

static const char *const log_names[] = {
	"serial.log", "qemu.stderr", "qmp.log", "ovmf-vars.fd",
};

static int copy_file(const char *from, const char *to)
{
	char b[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t r = -1;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	while (out >= 0 && (r = read(in, b, sizeof(b))) > 0)
		if (write(out, b, r) != r) {
			r = -1;
			break;
		}
	close(in);
	if (out >= 0)
		close(out);
	return out < 0 || r < 0 ? -1 : 0;
}

bool vm_alive(struct vm *vm)
{
	if (vm->pid <= 0 || vm->reaped)
		return false;
	if (waitpid(vm->pid, &vm->status, WNOHANG) == vm->pid) {
		vm->reaped = true;
		return false;
	}
	return true;
}

static int connect_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(path);
	int fd;

	if (len >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sa.sun_path, path, len + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

void vm_path_in(char *buf, size_t n, const char *dir, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

__attribute__((format(printf, 3, 4)))
static enum verdict fail(struct vm *vm, enum verdict v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(vm->why, sizeof(vm->why), fmt, ap);
	va_end(ap);
	return v;
}

static void exit_text(struct vm *vm, char *buf, size_t n)
{
	if (WIFSIGNALED(vm->status))
		snprintf(buf, n, "killed by signal %d", WTERMSIG(vm->status));
	else
		snprintf(buf, n, "exited with status %d", WEXITSTATUS(vm->status));
}

/* QEMU is gone before READY: say how, and what the kernel said last. */
static enum verdict start_failed(struct vm *vm)
{
	char how[64], panic[200] = "";

	exit_text(vm, how, sizeof(how));
	if (vm_serial_find(vm, "Kernel panic", 0, panic, sizeof(panic)))
		panic[strcspn(panic, "\r\n")] = '\0';
	return fail(vm, VERDICT_QEMU_START_FAILED, "QEMU %s before the agent was ready%s%s",
		    how, panic[0] ? "; the guest said: " : "", panic);
}

static int make_dirs(struct vm *vm, const struct vm_config *cfg)
{
	char p[600];

	if (rundir_make(vm->sockdir, sizeof(vm->sockdir), "slab", &vm->h_dirs[0],
			&vm->h_files[6]))
		return -1;
	vm_path_in(p, sizeof(p), vm->sockdir, "qmp.sock");
	vm->h_files[0] = cleanup_file(p);
	vm_path_in(p, sizeof(p), vm->sockdir, "agent.sock");
	vm->h_files[1] = cleanup_file(p);
	if (!cfg->logdir) {
		snprintf(vm->logdir, sizeof(vm->logdir), "%s", vm->sockdir);
		for (unsigned int i = 0; i < 4; i++) {
			vm_path_in(p, sizeof(p), vm->logdir, log_names[i]);
			vm->h_files[2 + i] = cleanup_file(p);
		}
		return 0;
	}
	vm->keep_logs = true;
	if (snprintf(vm->logdir, sizeof(vm->logdir), "%s", cfg->logdir) >= (int)sizeof(vm->logdir)) {
		errno = ENAMETOOLONG;	/* a cut name would put the logs elsewhere */
		return -1;
	}
	for (char *p = vm->logdir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(vm->logdir, 0755);
			*p = '/';
		}
	return mkdir(vm->logdir, 0755) && errno != EEXIST ? -1 : 0;
}

static void spawn(struct vm *vm)
{
	pid_t parent = getpid();
	char path[600];
	int fd;

	vm_path_in(path, sizeof(path), vm->logdir, "qemu.stderr");
	vm->t_spawn = mono_now();
	vm->pid = fork();
	if (vm->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 2);
			dup2(fd, 1);
		}
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			dup2(fd, 0);
		execvp(vm->argv[0], vm->argv);
		fprintf(stderr, "exec %s: %s\n", vm->argv[0], strerror(errno));
		_exit(127);
	}
	if (vm->pid > 0) {
		vm->h_pid = cleanup_pid(vm->pid);
		vm->pidfd = (int)syscall(SYS_pidfd_open, vm->pid, 0);
	}
}

/*
 * A closed socket is often the first sign of QEMU's exit, ahead of the
 * process itself: give it a moment to be reaped before calling it alive.
 */
static bool gone(struct vm *vm, int ms)
{
	struct pollfd p = { .fd = vm->pidfd, .events = POLLIN };

	if (!vm_alive(vm))
		return true;
	if (vm->pidfd >= 0)
		poll(&p, 1, ms);
	else
		usleep(ms * 1000);
	return !vm_alive(vm);
}

enum verdict vm_start(struct vm *vm, const struct vm_config *cfg)
{
	char path[600], *rest;
	double deadline;
	enum chan_status cs;
	int fd;

	memset(vm, 0, sizeof(*vm));
	vm->pidfd = vm->h_pid = -1;
	for (int i = 0; i < 7; i++)
		vm->h_files[i] = -1;
	vm->h_dirs[0] = vm->h_dirs[1] = -1;
	chan_init(&vm->agent, -1, -1);
	vm->qmp_timeout_ms = cfg->qmp_timeout_ms > 0 ? cfg->qmp_timeout_ms : 5000;
	cleanup_install();
	if (make_dirs(vm, cfg))
		return fail(vm, VERDICT_QEMU_START_FAILED, "cannot make %s%s: %s",
			    vm->sockdir[0] ? vm->logdir : "a private directory in ",
			    vm->sockdir[0] ? "" : rundir_base(),
			    strerror(errno));
	if (cfg->firmware == VM_FW_UEFI) {
		vm_path_in(path, sizeof(path), vm->logdir, "ovmf-vars.fd");
		if (copy_file(OVMF_VARS, path))
			return fail(vm, VERDICT_QEMU_START_FAILED,
				    "cannot copy %s (apt-get install ovmf)", OVMF_VARS);
	}
	vm_build_argv(vm, cfg);
	spawn(vm);
	if (vm->pid < 0)
		return fail(vm, VERDICT_QEMU_START_FAILED, "fork: %s", strerror(errno));

	deadline = mono_now() + cfg->boot_timeout_ms / 1000.0;
	vm_path_in(path, sizeof(path), vm->sockdir, "qmp.sock");
	for (fd = -1; fd < 0; ) {
		if (!vm_alive(vm))
			return start_failed(vm);
		if (!ms_left(deadline))
			return fail(vm, VERDICT_BOOT_TIMEOUT, "no QMP socket in time");
		fd = qmp_connect_unix(path, 200);
	}
	vm->qmp = qmp_new(fd);
	if (vm->keep_logs) {
		vm_path_in(path, sizeof(path), vm->logdir, "qmp.log");
		vm->qmp_log = fopen(path, "we");
		if (vm->qmp_log) {
			setvbuf(vm->qmp_log, NULL, _IOLBF, 0);
			qmp_set_log(vm->qmp, vm->qmp_log);
		}
	}
	if (qmp_handshake(vm->qmp, vm->qmp_timeout_ms))
		return gone(vm, 1000) ? start_failed(vm) :
			fail(vm, VERDICT_PROTOCOL, "QMP handshake: %s", qmp_last_error(vm->qmp));

	vm_path_in(path, sizeof(path), vm->sockdir, "agent.sock");
	while ((fd = connect_unix(path)) < 0) {
		if (!vm_alive(vm))
			return start_failed(vm);
		if (!ms_left(deadline))
			return fail(vm, VERDICT_BOOT_TIMEOUT, "no agent socket in time");
		usleep(20000);
	}
	chan_init(&vm->agent, fd, vm->pidfd);
	chan_set_watch(&vm->agent, qmp_fd(vm->qmp), vm_io_halted, vm);
	cs = chan_ready(&vm->agent, deadline, &rest);
	if (cs == CHAN_TIMEOUT)
		return fail(vm, VERDICT_BOOT_TIMEOUT, "no READY from the agent in %d s",
			    cfg->boot_timeout_ms / 1000);
	if (cs && gone(vm, cs == CHAN_CLOSED ? 1000 : 0))
		return start_failed(vm);
	if (cs)
		return fail(vm, VERDICT_PROTOCOL, "agent: %s", vm->agent.why);
	if (!agent_kv(rest, "release", vm->release, sizeof(vm->release)) ||
	    !agent_kv(rest, "knob", vm->knob, sizeof(vm->knob)))
		return fail(vm, VERDICT_PROTOCOL, "READY without release or knob");
	vm->t_ready = mono_now();
	return VERDICT_OK;
}

static void reap(struct vm *vm, int timeout_ms)
{
	for (int i = 0; i < timeout_ms / 10 && vm_alive(vm); i++)
		usleep(10000);
	if (vm_alive(vm)) {
		kill(vm->pid, SIGKILL);
		if (waitpid(vm->pid, &vm->status, 0) == vm->pid)
			vm->reaped = true;
	}
}

void vm_stop(struct vm *vm)
{
	char path[600];

	if (vm->qmp && vm_alive(vm))
		qmp_command(vm->qmp, "quit", NULL, NULL, 2000);
	if (vm->pid > 0)
		reap(vm, 3000);
	cleanup_forget(vm->h_pid);
	vm->h_pid = -1;
	if (vm->qmp)
		qmp_free(vm->qmp);
	vm->qmp = NULL;
	if (vm->qmp_log)
		fclose(vm->qmp_log);
	vm->qmp_log = NULL;
	chan_close(&vm->agent);
	if (vm->pidfd >= 0)
		close(vm->pidfd);
	vm->pidfd = -1;
	if (vm->sockdir[0]) {
		vm_path_in(path, sizeof(path), vm->sockdir, "qmp.sock");
		unlink(path);
		vm_path_in(path, sizeof(path), vm->sockdir, "agent.sock");
		unlink(path);
		for (unsigned int i = 0; !vm->keep_logs && i < 4; i++) {
			vm_path_in(path, sizeof(path), vm->logdir, log_names[i]);
			unlink(path);
		}
		vm_path_in(path, sizeof(path), vm->sockdir, "owner");
		unlink(path);
		rmdir(vm->sockdir);
	}
	for (int i = 0; i < 7; i++)
		cleanup_forget(vm->h_files[i]);
	cleanup_forget(vm->h_dirs[0]);
	vm_free_argv(vm);
}

bool vm_kill(struct vm *vm)
{
	if (vm->pid <= 0 || vm->reaped)
		return false;
	kill(vm->pid, SIGKILL);
	if (waitpid(vm->pid, &vm->status, 0) != vm->pid)
		return false;
	vm->reaped = true;
	return WIFSIGNALED(vm->status) && WTERMSIG(vm->status) == SIGKILL;
}

void vm_report_death(struct vm *vm)
{
	char path[600], line[512], tail[2048];
	FILE *f;

	if (vm->why[0])
		fprintf(stderr, "%s: %s\n", cli_prog, vm->why);
	if (vm->reaped) {
		exit_text(vm, line, sizeof(line));
		fprintf(stderr, "%s: QEMU (pid %d) %s\n", cli_prog, vm->pid, line);
	}
	vm_path_in(path, sizeof(path), vm->logdir, "qemu.stderr");
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "qemu: %s", line);
	if (f)
		fclose(f);
	vm_serial_tail(vm, tail, sizeof(tail), 8);
	/* NbdkitFailed comes before the guest wrote anything */
	if (tail[strspn(tail, " \t\r\n")])
		fprintf(stderr, "%s: the serial console's last lines:\n%s", cli_prog, tail);
	if (vm->keep_logs)
		fprintf(stderr, "%s: logs in %s\n", cli_prog, vm->logdir);
}

enum verdict vm_chan_verdict(struct vm *vm, enum chan_status s)
{
	if (s == CHAN_OK)
		return VERDICT_OK;
	if (s == CHAN_DEAD || gone(vm, s == CHAN_CLOSED ? 1000 : 0))
		return VERDICT_QEMU_DIED;
	if (s == CHAN_TIMEOUT)
		return VERDICT_AGENT_TIMEOUT;
	if (s == CHAN_HALTED)
		return VERDICT_HOST_IO_ERROR;
	return VERDICT_PROTOCOL;
}

enum verdict vm_qmp_verdict(struct vm *vm, int st, enum verdict refused)
{
	if (st == QMP_OK)
		return VERDICT_OK;
	if (gone(vm, st == QMP_ERR_EOF || st == QMP_ERR_IO ? 1000 : 0))
		return VERDICT_QEMU_DIED;
	if (st == QMP_ERR_REPLY)
		return refused;
	return VERDICT_PROTOCOL;	/* timeout, EOF or garbage from a live QEMU */
}

enum verdict vm_agent_request(struct vm *vm, const char *req, chan_line_fn fn,
			      void *ctx, int timeout_ms, int *status)
{
	enum chan_status s;

	if (vm_io_halted(vm, vm->agent.why, sizeof(vm->agent.why)))
		return VERDICT_HOST_IO_ERROR;	/* it would only time out */
	s = chan_request(&vm->agent, req, mono_now() + timeout_ms / 1000.0, fn, ctx, status);
	return vm_chan_verdict(vm, s);
}
