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
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define OVMF_CODE "/usr/share/OVMF/OVMF_CODE_4M.fd"
#define OVMF_VARS "/usr/share/OVMF/OVMF_VARS_4M.fd"

/* Live VMs, so a signal handler can end them: QEMU never outlives us. */
#define MAX_VMS 8
static struct vm *live[MAX_VMS];

static void track(struct vm *vm, bool on)
{
	for (int i = 0; i < MAX_VMS; i++) {
		if (on && !live[i]) {
			live[i] = vm;
			return;
		}
		if (!on && live[i] == vm)
			live[i] = NULL;
	}
}

void vm_kill_all(void)
{
	for (int i = 0; i < MAX_VMS; i++)
		if (live[i] && live[i]->pid > 0 && !live[i]->reaped)
			kill(live[i]->pid, SIGKILL);
}

static void add(struct vm *vm, const char *fmt, ...)
{
	va_list ap;

	if (vm->argc >= (int)(sizeof(vm->argv) / sizeof(vm->argv[0])) - 1)
		return;
	va_start(ap, fmt);
	if (vsnprintf(NULL, 0, fmt, ap) >= 0) {
		va_end(ap);
		va_start(ap, fmt);
		if (vasprintf(&vm->argv[vm->argc], fmt, ap) >= 0)
			vm->argc++;
	}
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

int vm_build_argv(struct vm *vm, const struct vm_config *cfg)
{
	bool uefi = cfg->firmware == VM_FW_UEFI;

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
		add(vm, "if=pflash,format=raw,unit=1,file=%s/ovmf-vars.fd", vm->dir);
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
	add(vm, "-serial");
	add(vm, "file:%s/serial.log", vm->dir);
	add(vm, "-qmp");
	add(vm, "unix:%s/qmp.sock,server=on,wait=off", vm->dir);
	add(vm, "-chardev");
	add(vm, "socket,id=agent,path=%s/agent.sock,server=on,wait=off", vm->dir);
	add(vm, "-device");
	add(vm, "virtio-serial-pci");
	add(vm, "-device");
	add(vm, "virtserialport,chardev=agent,name=%s", AGENT_PORT_NAME);
	/* cache=none: what QEMU completed is on the host disk, so a SIGKILL
	 * loses exactly what the guest had not written out */
	if (cfg->data_disk) {
		add(vm, "-drive");
		add(vm, "file=%s,if=virtio,format=raw,cache=none,aio=threads%s",
		    cfg->data_disk, cfg->data_throttle ? cfg->data_throttle : "");
	}
	if (cfg->tools_disk) {
		add(vm, "-drive");
		add(vm, "file=%s,if=virtio,format=raw,readonly=on", cfg->tools_disk);
	}
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
	int in = open(from, O_RDONLY), out;
	ssize_t r = -1;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
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

enum verdict vm_start(struct vm *vm, const struct vm_config *cfg)
{
	char path[512], line[AGENT_LINE_MAX], *rest;
	pid_t parent = getpid();
	double deadline;
	int fd, r;

	memset(vm, 0, sizeof(*vm));
	vm->agent = -1;
	if (cfg->logdir) {
		snprintf(vm->dir, sizeof(vm->dir), "%s", cfg->logdir);
		vm->keep_dir = true;
		for (char *p = vm->dir + 1; *p; p++)
			if (*p == '/') {
				*p = '\0';
				mkdir(vm->dir, 0755);
				*p = '/';
			}
		if (mkdir(vm->dir, 0755) && errno != EEXIST) {
			fprintf(stderr, "suspend-lab: mkdir %s: %s\n", vm->dir,
				strerror(errno));
			return VERDICT_QEMU_START_FAILED;
		}
	} else {
		const char *t = getenv("TMPDIR");

		snprintf(vm->dir, sizeof(vm->dir), "%s/slab.XXXXXX", t ? t : "/tmp");
		if (!mkdtemp(vm->dir)) {
			fprintf(stderr, "suspend-lab: mkdtemp: %s\n", strerror(errno));
			return VERDICT_QEMU_START_FAILED;
		}
	}
	if (cfg->firmware == VM_FW_UEFI) {
		snprintf(path, sizeof(path), "%s/ovmf-vars.fd", vm->dir);
		if (copy_file(OVMF_VARS, path)) {
			fprintf(stderr, "suspend-lab: cannot copy %s (apt-get install ovmf)\n",
				OVMF_VARS);
			return VERDICT_QEMU_START_FAILED;
		}
	}
	vm_build_argv(vm, cfg);
	snprintf(path, sizeof(path), "%s/qemu.stderr", vm->dir);
	vm->t_spawn = qmp_now();
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
	if (vm->pid < 0)
		return VERDICT_QEMU_START_FAILED;
	track(vm, true);

	deadline = qmp_now() + cfg->boot_timeout_ms / 1000.0;
	snprintf(path, sizeof(path), "%s/qmp.sock", vm->dir);
	for (fd = -1; fd < 0 && qmp_now() < deadline; ) {
		if (!vm_alive(vm))
			return VERDICT_QEMU_DIED;
		fd = qmp_connect_unix(path, 200);
	}
	if (fd < 0)
		return VERDICT_BOOT_TIMEOUT;
	vm->qmp = qmp_new(fd);
	if (vm->keep_dir) {
		FILE *log;

		snprintf(path, sizeof(path), "%s/qmp.log", vm->dir);
		log = fopen(path, "w");
		if (log) {
			setvbuf(log, NULL, _IOLBF, 0);
			qmp_set_log(vm->qmp, log);
		}
	}
	if (qmp_handshake(vm->qmp, 5000))
		return vm_alive(vm) ? VERDICT_PROTOCOL : VERDICT_QEMU_DIED;

	snprintf(path, sizeof(path), "%s/agent.sock", vm->dir);
	while ((vm->agent = connect_unix(path)) < 0) {
		if (!vm_alive(vm))
			return VERDICT_QEMU_DIED;
		if (qmp_now() > deadline)
			return VERDICT_BOOT_TIMEOUT;
		usleep(20000);
	}
	r = vm_agent_line(vm, line, sizeof(line),
			  (int)((deadline - qmp_now()) * 1000));
	if (r < 0)
		return vm_alive(vm) ? VERDICT_PROTOCOL : VERDICT_QEMU_DIED;
	if (r == 0)
		return VERDICT_BOOT_TIMEOUT;
	if (agent_msg_parse(line, &rest) != AGENT_MSG_READY)
		return VERDICT_PROTOCOL;
	vm->t_ready = qmp_now();
	agent_kv(rest, "release", vm->release, sizeof(vm->release));
	agent_kv(rest, "knob", vm->knob, sizeof(vm->knob));
	return VERDICT_OK;
}

static void cleanup_dir(struct vm *vm)
{
	static const char *const tmp[] = { "qmp.sock", "agent.sock" };
	static const char *const logs[] = {
		"serial.log", "qemu.stderr", "qmp.log", "ovmf-vars.fd",
	};
	char path[512];
	unsigned int i;

	if (!vm->dir[0])
		return;
	for (i = 0; i < sizeof(tmp) / sizeof(tmp[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", vm->dir, tmp[i]);
		unlink(path);
	}
	if (vm->keep_dir)
		return;
	for (i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", vm->dir, logs[i]);
		unlink(path);
	}
	rmdir(vm->dir);
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
	if (vm->qmp && vm_alive(vm))
		qmp_command(vm->qmp, "quit", NULL, NULL, 2000);
	if (vm->pid > 0)
		reap(vm, 3000);
	track(vm, false);
	if (vm->qmp)
		qmp_free(vm->qmp);
	vm->qmp = NULL;
	if (vm->agent >= 0)
		close(vm->agent);
	vm->agent = -1;
	cleanup_dir(vm);
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
	char path[512], line[512];
	FILE *f;

	if (vm->reaped)
		fprintf(stderr, "suspend-lab: QEMU (pid %d) %s %d\n", vm->pid,
			WIFSIGNALED(vm->status) ? "killed by signal" : "exited with",
			WIFSIGNALED(vm->status) ? WTERMSIG(vm->status) :
			WEXITSTATUS(vm->status));
	snprintf(path, sizeof(path), "%s/qemu.stderr", vm->dir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "qemu: %s", line);
	if (f)
		fclose(f);
	if (vm->keep_dir)
		fprintf(stderr, "suspend-lab: logs in %s\n", vm->dir);
}

long vm_serial_size(struct vm *vm)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/serial.log", vm->dir);
	return stat(path, &st) ? 0 : (long)st.st_size;
}

bool vm_serial_find(struct vm *vm, const char *needle, long from, char *buf, size_t n)
{
	char path[512], line[1024];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/serial.log", vm->dir);
	f = fopen(path, "r");
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

bool vm_serial_wait(struct vm *vm, const char *needle, long from, int timeout_ms)
{
	double deadline = qmp_now() + timeout_ms / 1000.0;

	while (qmp_now() < deadline) {
		if (vm_serial_find(vm, needle, from, NULL, 0))
			return true;
		if (!vm_alive(vm))
			return false;
		usleep(5000);
	}
	return false;
}

int vm_agent_send(struct vm *vm, const char *fmt, ...)
{
	char buf[AGENT_LINE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(buf) - 1)
		return -1;
	buf[n++] = '\n';
	return agent_write_all(vm->agent, buf, n);
}

int vm_agent_line(struct vm *vm, char *line, size_t n, int timeout_ms)
{
	double deadline = qmp_now() + timeout_ms / 1000.0;

	for (;;) {
		char *nl = memchr(vm->buf, '\n', vm->len);
		struct pollfd p = { .fd = vm->agent, .events = POLLIN };
		ssize_t r;
		int left;

		if (nl) {
			size_t l = nl - vm->buf;

			if (l >= n)
				l = n - 1;
			memcpy(line, vm->buf, l);
			line[l] = '\0';
			vm->len -= nl + 1 - vm->buf;
			memmove(vm->buf, nl + 1, vm->len);
			return 1;
		}
		if (vm->len == sizeof(vm->buf))
			vm->len = 0;	/* no line can be this long */
		left = (int)((deadline - qmp_now()) * 1000);
		if (left <= 0)
			return 0;
		/* wake now and then to notice a dead QEMU */
		r = poll(&p, 1, left < 200 ? left : 200);
		if (r < 0 && errno != EINTR)
			return -1;
		if (r <= 0) {
			if (!vm_alive(vm))
				return -1;
			continue;
		}
		r = read(vm->agent, vm->buf + vm->len, sizeof(vm->buf) - vm->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		vm->len += r;
	}
}

enum verdict vm_agent_request(struct vm *vm, const char *req, vm_line_fn fn,
			      void *ctx, int timeout_ms, int *status)
{
	char line[AGENT_LINE_MAX], *rest;
	double deadline = qmp_now() + timeout_ms / 1000.0;

	if (vm_agent_send(vm, "%s", req))
		return vm_alive(vm) ? VERDICT_PROTOCOL : VERDICT_QEMU_DIED;
	for (;;) {
		int left = (int)((deadline - qmp_now()) * 1000);
		int r = vm_agent_line(vm, line, sizeof(line), left > 0 ? left : 0);
		enum agent_msg m;
		long long st;

		if (r < 0)
			return vm_alive(vm) ? VERDICT_PROTOCOL : VERDICT_QEMU_DIED;
		if (r == 0)
			return VERDICT_AGENT_TIMEOUT;
		m = agent_msg_parse(line, &rest);
		if (m == AGENT_MSG_DONE) {
			if (!agent_kv_ll(rest, "status", &st))
				return VERDICT_PROTOCOL;
			if (status)
				*status = (int)st;
			return VERDICT_OK;
		}
		if (fn)
			fn(ctx, m, rest);
	}
}
