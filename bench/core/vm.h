/*
 * One QEMU guest under the lab's control: spawned with PR_SET_PDEATHSIG,
 * driven only through QMP and the agent's virtio-serial port, reaped and
 * cleaned up (sockets, temporary directory) whatever happens.
 */
#ifndef SLAB_VM_H
#define SLAB_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "qmp.h"
#include "verdict.h"

enum vm_firmware { VM_FW_BIOS, VM_FW_UEFI };

struct vm_config {
	const char *qemu;		/* binary, default qemu-system-x86_64 */
	const char *kernel;
	const char *initrd;
	const char *append;		/* extra kernel command line */
	enum vm_firmware firmware;
	const char *accel;		/* "tcg" or "kvm" */
	int mem_mb;
	int smp;
	const char *data_disk;		/* raw image, read-write, or NULL */
	const char *data_throttle;	/* ",throttling.bps-write=..." or "" */
	const char *tools_disk;		/* raw image, read-only, or NULL */
	const char *logdir;		/* keep logs here; NULL: temporary */
	int boot_timeout_ms;		/* QEMU start to agent READY */
};

struct vm {
	pid_t pid;
	int status;			/* wait status once reaped */
	bool reaped;
	struct qmp *qmp;
	int agent;
	char dir[256];
	bool keep_dir;
	char *argv[64];
	int argc;
	char release[128];
	char knob[64];
	double t_spawn, t_ready;	/* host realtime */
	char buf[8192];			/* agent bytes not yet a full line */
	size_t len;
};

/* Fills vm->argv (strings owned by vm); for --show-command and tests. */
int vm_build_argv(struct vm *vm, const struct vm_config *cfg);
/* Joins vm->argv, shell-quoted where needed, into buf. */
void vm_format_command(const struct vm *vm, char *buf, size_t n);

enum verdict vm_start(struct vm *vm, const struct vm_config *cfg);
/* Polite quit, then SIGKILL; reaps; removes sockets and temporary files. */
void vm_stop(struct vm *vm);
/* SIGKILL now (a power cut); true if QEMU died of exactly that. */
bool vm_kill(struct vm *vm);
bool vm_alive(struct vm *vm);
/* Prints QEMU's stderr (last lines) and the log directory to stderr. */
void vm_report_death(struct vm *vm);

/* One agent line into line (without '\n'): 1, 0 on timeout, -1 on EOF. */
int vm_agent_line(struct vm *vm, char *line, size_t n, int timeout_ms);
int vm_agent_send(struct vm *vm, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

typedef void (*vm_line_fn)(void *ctx, enum agent_msg msg, char *rest);
/*
 * Sends a request and feeds every reply line to fn until DONE; *status
 * gets DONE's status.  VERDICT_OK, VERDICT_AGENT_TIMEOUT, VERDICT_QEMU_DIED
 * or VERDICT_PROTOCOL.
 */
enum verdict vm_agent_request(struct vm *vm, const char *req, vm_line_fn fn,
			      void *ctx, int timeout_ms, int *status);

/* Bytes of the serial console log so far (where to start a search). */
long vm_serial_size(struct vm *vm);
/* Waits until needle appears in the serial log after offset from: true,
 * or false on timeout or QEMU's death. */
bool vm_serial_wait(struct vm *vm, const char *needle, long from, int timeout_ms);
/* Copies the first line holding needle after offset from into buf. */
bool vm_serial_find(struct vm *vm, const char *needle, long from, char *buf, size_t n);

/* Kills every live VM; for signal handlers and atexit. */
void vm_kill_all(void);

#endif
