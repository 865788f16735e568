/*
 * One QEMU guest under the lab's control: spawned with PR_SET_PDEATHSIG and
 * in the cleanup registry, watched through a pidfd, driven only through QMP
 * and the agent's virtio-serial port, reaped and cleaned up (sockets,
 * temporary directory) whatever happens.  Sockets live in a short private
 * directory of their own, so no log directory can push them past the
 * socket path limit.
 */
#ifndef SLAB_VM_H
#define SLAB_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "chan.h"
#include "qmp.h"
#include "rundir.h"
#include "verdict.h"

enum vm_firmware { VM_FW_BIOS, VM_FW_UEFI };

#define VM_MAX_DRIVES 4

struct vm_drive {
	const char *file;	/* raw image, or an nbd+unix:// URI */
	bool readonly;
	const char *opts;	/* ",throttling.bps-write=..." or NULL */
};

struct vm_config {
	const char *qemu;		/* binary, default qemu-system-x86_64 */
	const char *kernel;
	const char *initrd;
	const char *append;		/* extra kernel command line */
	enum vm_firmware firmware;
	const char *accel;		/* "tcg" or "kvm" */
	int mem_mb;
	int smp;
	struct vm_drive drives[VM_MAX_DRIVES];	/* virtio disks, in order */
	int n_drives;
	const char *const *extra;	/* more arguments, NULL-terminated (-blockdev ...) */
	const char *logdir;		/* keep logs here; NULL: temporary */
	int boot_timeout_ms;		/* QEMU start to agent READY */
	int qmp_timeout_ms;		/* each QMP command */
};

struct vm {
	pid_t pid;
	int pidfd;
	int status;			/* wait status once reaped */
	bool reaped;
	struct qmp *qmp;
	FILE *qmp_log;
	struct chan agent;
	char sockdir[RUNDIR_PATH_SIZE];	/* private: qmp.sock, agent.sock */
	char logdir[512];		/* serial.log, qemu.stderr, qmp.log */
	bool keep_logs;
	int qmp_timeout_ms;
	char *argv[64];
	int argc;
	char release[128];
	char knob[64];
	double t_spawn, t_ready;	/* host monotonic */
	char why[512];			/* why vm_start failed */
	char io_halt[256];		/* why QEMU stopped the guest, once it did */
	int h_pid, h_files[7], h_dirs[2];	/* cleanup handles */
};

/* "a,b" -> "a,,b": a value inside a QEMU option list. */
void vm_opt_escape(char *buf, size_t n, const char *value);

/* Fills vm->argv (strings owned by vm); sockets and logs in placeholder
 * directories unless vm_start made them.  For --show-command and tests. */
int vm_build_argv(struct vm *vm, const struct vm_config *cfg);
/* Joins vm->argv, shell-quoted where needed, into buf. */
void vm_format_command(const struct vm *vm, char *buf, size_t n);

/*
 * Boots to the agent's READY.  QemuStartFailed when QEMU exits first
 * (vm->why says how, with the serial console's last words),
 * BootTimeout, or ProtocolError (no QMP greeting, a wrong agent version).
 */
enum verdict vm_start(struct vm *vm, const struct vm_config *cfg);
/* Polite quit, then SIGKILL; reaps; removes sockets and temporary files. */
void vm_stop(struct vm *vm);
/* SIGKILL now (a power cut); true if QEMU died of exactly that. */
bool vm_kill(struct vm *vm);
bool vm_alive(struct vm *vm);
/* Prints why (or QEMU's exit), QEMU's stderr and the serial tail. */
void vm_report_death(struct vm *vm);

/* The verdict for a failed channel or QMP call: QemuDied if QEMU is gone. */
enum verdict vm_chan_verdict(struct vm *vm, enum chan_status s);
/*
 * Whether QEMU stopped the guest on an I/O error of a drive (QMP
 * BLOCK_IO_ERROR with action "stop": werror=enospc, the default, on a full
 * host filesystem): nothing in the guest answers after that, so it stays
 * true.  why says which drive and error.  A chan_watch_fn, ctx the vm.
 */
bool vm_io_halted(void *vm, char *why, size_t n);
enum verdict vm_qmp_verdict(struct vm *vm, int qmp_status, enum verdict refused);

/*
 * Sends a request and feeds every reply line to fn until DONE; *status
 * gets DONE's status.  OK, AgentTimeout, QemuDied or ProtocolError.
 */
enum verdict vm_agent_request(struct vm *vm, const char *req, chan_line_fn fn,
			      void *ctx, int timeout_ms, int *status);

/* Bytes of the serial console log so far (where to start a search). */
long vm_serial_size(struct vm *vm);
/* Waits until needle appears in the serial log after offset from: true,
 * or false on timeout or QEMU's death. */
bool vm_serial_wait(struct vm *vm, const char *needle, long from, int timeout_ms);
/* Copies the first line holding needle after offset from into buf. */
bool vm_serial_find(struct vm *vm, const char *needle, long from, char *buf, size_t n);
/* The last lines of the serial console, for a failure report. */
void vm_serial_tail(struct vm *vm, char *buf, size_t n, int lines);

#endif
