/* The QEMU command line of a guest, and its printable form. */
#define _GNU_SOURCE
#include "vm_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rundir.h"

#define OVMF_CODE "/usr/share/OVMF/OVMF_CODE_4M.fd"

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

void vm_free_argv(struct vm *vm)
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
	char tmpl[RUNDIR_PATH_SIZE];
	const char *sd = vm->sockdir;

	if (!sd[0]) {
		rundir_template(tmpl, sizeof(tmpl), "slab");
		sd = tmpl;
	}
	const char *ld = vm->logdir[0] ? vm->logdir : sd;
	bool uefi = cfg->firmware == VM_FW_UEFI;
	char e[1300];

	vm_free_argv(vm);
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
