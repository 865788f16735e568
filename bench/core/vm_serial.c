/* The guest's serial console log: its size, a line in it, its tail, a wait. */
#include "vm_priv.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"

long vm_serial_size(struct vm *vm)
{
	char path[600];
	struct stat st;

	vm_path_in(path, sizeof(path), vm->logdir, "serial.log");
	return stat(path, &st) ? 0 : (long)st.st_size;
}

bool vm_serial_find(struct vm *vm, const char *needle, long from, char *buf, size_t n)
{
	char path[600], line[1024];
	bool found = false;
	FILE *f;

	vm_path_in(path, sizeof(path), vm->logdir, "serial.log");
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
	vm_path_in(path, sizeof(path), vm->logdir, "serial.log");
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
