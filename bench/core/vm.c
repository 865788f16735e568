#define _GNU_SOURCE
#include "vm.h"

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

#define OVMF_CODE "/usr/share/OVMF/OVMF_CODE_4M.fd"
#define OVMF_VARS "/usr/share/OVMF/OVMF_VARS_4M.fd"
#define SOCKDIR_PLACEHOLDER "/tmp/slab.XXXXXX"

static const char *const log_names[] = {
	"serial.log", "qemu.stderr", "qmp.log", "ovmf-vars.fd",
};

void vm_opt_escape(char *buf, size_t n, const char *value)
{
	size_t o = 0;

	for (; *value && o + 2 < n; value++) {
		if (*value == ',')
			buf[o++] = ',';
		buf[o++] = *value;
	}
	buf[o] = '\0';
}

static void add(struct vm *vm, const char *fmt, ...)
{
	va_list ap;

	if (vm->argc >= (int)(sizeof(vm->argv) / sizeof(vm->argv[0])) - 1)
		return;
	va_start(ap, fmt);
	if (vasprintf(&vm->argv[vm->argc], fmt, ap) >= 0)
		vm->argc++;
	va_end(ap);
	vm->argv[vm->argc] = NULL;
}

static void free_argv(struct vm *vm)
{
	for (int i = 0; i < vm->argc; i++)
		free(vm->argv[i]);
	vm->argc = 0;
	vm->argv[0] = NULL;
}

/* A path inside an option list, commas doubled. */
static const char *esc(char *buf, size_t n, const char *dir, const char *name)
{
	char raw[640];

	snprintf(raw, sizeof(raw), "%s%s%s", dir, name ? "/" : "", name ? name : "");
	vm_opt_escape(buf, n, raw);
	return buf;
}

int vm_build_argv(struct vm *vm, const struct vm_config *cfg)
{
	const char *sd = vm->sockdir[0] ? vm->sockdir : SOCKDIR_PLACEHOLDER;
	const char *ld = vm->logdir[0] ? vm->logdir : sd;
	bool uefi = cfg->firmware == VM_FW_UEFI;
	char e[1300];

	free_argv(vm);
	add(vm, "%s", cfg->qemu ? cfg->qemu : "qemu-system-x86_64");
	add(vm, "-nodefaults");
	add(vm, "-no-user-config");
	add(vm, "-display");
	add(vm, "none");
	add(vm, "-no-reboot");
	add(vm, "-nic");
	add(vm, "none");
	add(vm, "-machine");
	add(vm, "%s,accel=%s", uefi ? "q35" : "pc", cfg->accel ? cfg->accel : "tcg");
	add(vm, "-m");
	add(vm, "%d", cfg->mem_mb > 0 ? cfg->mem_mb : 1024);
	add(vm, "-smp");
	add(vm, "%d", cfg->smp > 0 ? cfg->smp : 2);
	add(vm, "-global");
	add(vm, uefi ? "ICH9-LPC.disable_s3=0" : "PIIX4_PM.disable_s3=0");
	if (uefi) {
		add(vm, "-drive");
		add(vm, "if=pflash,format=raw,unit=0,readonly=on,file=%s", OVMF_CODE);
		add(vm, "-drive");
		add(vm, "if=pflash,format=raw,unit=1,file=%s",
		    esc(e, sizeof(e), ld, "ovmf-vars.fd"));
	}
	add(vm, "-kernel");
	add(vm, "%s", cfg->kernel);
	add(vm, "-initrd");
	add(vm, "%s", cfg->initrd);
	/* i8042.noaux: the emulated PS/2 mouse takes up to 0.4 s to suspend,
	 * at random; the keyboard alone is the s2idle wake source */
	add(vm, "-append");
	add(vm, "console=ttyS0 panic=-1 no_console_suspend loglevel=4 i8042.noaux%s%s",
	    cfg->append ? " " : "", cfg->append ? cfg->append : "");
	add(vm, "-chardev");
	add(vm, "file,id=serial,path=%s", esc(e, sizeof(e), ld, "serial.log"));
	add(vm, "-serial");
	add(vm, "chardev:serial");
	add(vm, "-chardev");
	add(vm, "socket,id=qmp,path=%s,server=on,wait=off", esc(e, sizeof(e), sd, "qmp.sock"));
	add(vm, "-mon");
	add(vm, "chardev=qmp,mode=control");
	add(vm, "-chardev");
	add(vm, "socket,id=agent,path=%s,server=on,wait=off", esc(e, sizeof(e), sd, "agent.sock"));
	add(vm, "-device");
	add(vm, "virtio-serial-pci");
	add(vm, "-device");
	add(vm, "virtserialport,chardev=agent,name=%s", AGENT_PORT_NAME);
	/* cache=none: what QEMU completed is on the host disk, so a SIGKILL
	 * loses exactly what the guest had not written out.  An NBD export
	 * (the drive model) has no host file: its opts set the cache mode. */
	for (int i = 0; i < cfg->n_drives && i < VM_MAX_DRIVES; i++) {
		const struct vm_drive *d = &cfg->drives[i];

		add(vm, "-drive");
		if (d->readonly)
			add(vm, "file=%s,if=virtio,format=raw,readonly=on",
			    esc(e, sizeof(e), d->file, NULL));
		else
			add(vm, "file=%s,if=virtio,format=raw%s%s",
			    esc(e, sizeof(e), d->file, NULL),
			    strncmp(d->file, "nbd", 3) ? ",cache=none,aio=threads" : "",
			    d->opts ? d->opts : "");
	}
	for (const char *const *x = cfg->extra; x && *x; x++)
		add(vm, "%s", *x);
	return vm->argc;
}

void vm_format_command(const struct vm *vm, char *buf, size_t n)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < vm->argc && o < n; i++) {
		const char *a = vm->argv[i];
		bool q = strpbrk(a, " \"'$\\") != NULL;

		o += snprintf(buf + o, n - o, q ? "%s'%s'" : "%s%s",
			      i ? " " : "", a);
	}
}

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

static void path_in(char *buf, size_t n, const char *dir, const char *name)
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
	const char *t = getenv("TMPDIR");
	char p[600];

	/* sun_path holds 108 bytes: a long TMPDIR falls back to /tmp */
	snprintf(vm->sockdir, sizeof(vm->sockdir), "%s/slab.XXXXXX",
		 t && *t && strlen(t) < 40 ? t : "/tmp");
	if (!mkdtemp(vm->sockdir)) {
		vm->sockdir[0] = '\0';
		return -1;
	}
	vm->h_dirs[0] = cleanup_dir(vm->sockdir);
	path_in(p, sizeof(p), vm->sockdir, "qmp.sock");
	vm->h_files[0] = cleanup_file(p);
	path_in(p, sizeof(p), vm->sockdir, "agent.sock");
	vm->h_files[1] = cleanup_file(p);
	if (!cfg->logdir) {
		snprintf(vm->logdir, sizeof(vm->logdir), "%s", vm->sockdir);
		for (unsigned int i = 0; i < 4; i++) {
			path_in(p, sizeof(p), vm->logdir, log_names[i]);
			vm->h_files[2 + i] = cleanup_file(p);
		}
		return 0;
	}
	vm->keep_logs = true;
	snprintf(vm->logdir, sizeof(vm->logdir), "%s", cfg->logdir);
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

	path_in(path, sizeof(path), vm->logdir, "qemu.stderr");
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
	for (int i = 0; i < 6; i++)
		vm->h_files[i] = -1;
	vm->h_dirs[0] = vm->h_dirs[1] = -1;
	chan_init(&vm->agent, -1, -1);
	vm->qmp_timeout_ms = cfg->qmp_timeout_ms > 0 ? cfg->qmp_timeout_ms : 5000;
	cleanup_install();
	if (make_dirs(vm, cfg))
		return fail(vm, VERDICT_QEMU_START_FAILED, "cannot make %s: %s",
			    vm->sockdir[0] ? vm->logdir : "a private directory",
			    strerror(errno));
	if (cfg->firmware == VM_FW_UEFI) {
		path_in(path, sizeof(path), vm->logdir, "ovmf-vars.fd");
		if (copy_file(OVMF_VARS, path))
			return fail(vm, VERDICT_QEMU_START_FAILED,
				    "cannot copy %s (apt-get install ovmf)", OVMF_VARS);
	}
	vm_build_argv(vm, cfg);
	spawn(vm);
	if (vm->pid < 0)
		return fail(vm, VERDICT_QEMU_START_FAILED, "fork: %s", strerror(errno));

	deadline = mono_now() + cfg->boot_timeout_ms / 1000.0;
	path_in(path, sizeof(path), vm->sockdir, "qmp.sock");
	for (fd = -1; fd < 0; ) {
		if (!vm_alive(vm))
			return start_failed(vm);
		if (!ms_left(deadline))
			return fail(vm, VERDICT_BOOT_TIMEOUT, "no QMP socket in time");
		fd = qmp_connect_unix(path, 200);
	}
	vm->qmp = qmp_new(fd);
	if (vm->keep_logs) {
		path_in(path, sizeof(path), vm->logdir, "qmp.log");
		vm->qmp_log = fopen(path, "we");
		if (vm->qmp_log) {
			setvbuf(vm->qmp_log, NULL, _IOLBF, 0);
			qmp_set_log(vm->qmp, vm->qmp_log);
		}
	}
	if (qmp_handshake(vm->qmp, vm->qmp_timeout_ms))
		return gone(vm, 1000) ? start_failed(vm) :
			fail(vm, VERDICT_PROTOCOL, "QMP handshake: %s", qmp_last_error(vm->qmp));

	path_in(path, sizeof(path), vm->sockdir, "agent.sock");
	while ((fd = connect_unix(path)) < 0) {
		if (!vm_alive(vm))
			return start_failed(vm);
		if (!ms_left(deadline))
			return fail(vm, VERDICT_BOOT_TIMEOUT, "no agent socket in time");
		usleep(20000);
	}
	chan_init(&vm->agent, fd, vm->pidfd);
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
		path_in(path, sizeof(path), vm->sockdir, "qmp.sock");
		unlink(path);
		path_in(path, sizeof(path), vm->sockdir, "agent.sock");
		unlink(path);
		for (unsigned int i = 0; !vm->keep_logs && i < 4; i++) {
			path_in(path, sizeof(path), vm->logdir, log_names[i]);
			unlink(path);
		}
		rmdir(vm->sockdir);
	}
	for (int i = 0; i < 6; i++)
		cleanup_forget(vm->h_files[i]);
	cleanup_forget(vm->h_dirs[0]);
	free_argv(vm);
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
		fprintf(stderr, "suspend-lab: %s\n", vm->why);
	if (vm->reaped) {
		exit_text(vm, line, sizeof(line));
		fprintf(stderr, "suspend-lab: QEMU (pid %d) %s\n", vm->pid, line);
	}
	path_in(path, sizeof(path), vm->logdir, "qemu.stderr");
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "qemu: %s", line);
	if (f)
		fclose(f);
	vm_serial_tail(vm, tail, sizeof(tail), 8);
	if (tail[0])
		fprintf(stderr, "suspend-lab: the serial console's last lines:\n%s", tail);
	if (vm->keep_logs)
		fprintf(stderr, "suspend-lab: logs in %s\n", vm->logdir);
}

enum verdict vm_chan_verdict(struct vm *vm, enum chan_status s)
{
	if (s == CHAN_OK)
		return VERDICT_OK;
	if (s == CHAN_DEAD || gone(vm, s == CHAN_CLOSED ? 1000 : 0))
		return VERDICT_QEMU_DIED;
	if (s == CHAN_TIMEOUT)
		return VERDICT_AGENT_TIMEOUT;
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
	enum chan_status s = chan_request(&vm->agent, req,
					  mono_now() + timeout_ms / 1000.0,
					  fn, ctx, status);

	return vm_chan_verdict(vm, s);
}

long vm_serial_size(struct vm *vm)
{
	char path[600];
	struct stat st;

	path_in(path, sizeof(path), vm->logdir, "serial.log");
	return stat(path, &st) ? 0 : (long)st.st_size;
}

bool vm_serial_find(struct vm *vm, const char *needle, long from, char *buf, size_t n)
{
	char path[600], line[1024];
	bool found = false;
	FILE *f;

	path_in(path, sizeof(path), vm->logdir, "serial.log");
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fseek(f, from, SEEK_SET))
		while (!found && fgets(line, sizeof(line), f))
			if (strstr(line, needle)) {
				found = true;
				if (buf)
					snprintf(buf, n, "%s", line);
			}
	fclose(f);
	return found;
}

void vm_serial_tail(struct vm *vm, char *buf, size_t n, int lines)
{
	char path[600];
	long size = vm_serial_size(vm), from;
	size_t len;
	FILE *f;
	int nl = 0;

	buf[0] = '\0';
	path_in(path, sizeof(path), vm->logdir, "serial.log");
	f = fopen(path, "re");
	if (!f)
		return;
	from = size > (long)n - 1 ? size - (long)n + 1 : 0;
	if (!fseek(f, from, SEEK_SET)) {
		len = fread(buf, 1, n - 1, f);
		buf[len] = '\0';
		/* keep the last `lines` lines */
		for (char *p = buf + len; p > buf; p--)
			if (p[-1] == '\n' && p != buf + len && ++nl == lines) {
				memmove(buf, p, strlen(p) + 1);
				break;
			}
	}
	fclose(f);
}

bool vm_serial_wait(struct vm *vm, const char *needle, long from, int timeout_ms)
{
	double deadline = mono_now() + timeout_ms / 1000.0;

	while (ms_left(deadline)) {
		if (vm_serial_find(vm, needle, from, NULL, 0))
			return true;
		if (!vm_alive(vm))
			return false;
		usleep(5000);
	}
	return false;
}
