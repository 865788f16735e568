#include "cleanup.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOTS 256

enum kind { FREE, PID, FILE_, DIR_ };

/* path is the caller's string copied whole: a cut one could name another
 * file.  Freed only outside a handler, when the slot is reused. */
static struct slot {
	volatile sig_atomic_t kind;
	pid_t pid;
	char *path;
} slots[SLOTS];

static int add(enum kind k, pid_t pid, const char *path)
{
	for (int i = 0; i < SLOTS; i++) {
		if (slots[i].kind != FREE)
			continue;
		slots[i].pid = pid;
		free(slots[i].path);
		slots[i].path = NULL;
		if (path && !(slots[i].path = strdup(path)))
			return -1;
		slots[i].kind = k;	/* last: a handler sees a whole entry */
		return i;
	}
	return -1;
}

int cleanup_pid(pid_t pid)
{
	return pid > 0 ? add(PID, pid, NULL) : -1;
}

int cleanup_file(const char *path)
{
	return add(FILE_, 0, path);
}

int cleanup_dir(const char *path)
{
	return add(DIR_, 0, path);
}

void cleanup_forget(int h)
{
	if (h >= 0 && h < SLOTS)
		slots[h].kind = FREE;
}

void cleanup_run(void)
{
	for (int i = SLOTS - 1; i >= 0; i--)
		if (slots[i].kind == PID) {
			kill(slots[i].pid, SIGKILL);
			slots[i].kind = FREE;
		}
	for (int i = SLOTS - 1; i >= 0; i--)
		if (slots[i].kind == FILE_) {
			unlink(slots[i].path);
			slots[i].kind = FREE;
		}
	for (int i = SLOTS - 1; i >= 0; i--)
		if (slots[i].kind == DIR_) {
			rmdir(slots[i].path);
			slots[i].kind = FREE;
		}
}

static void on_signal(int sig)
{
	cleanup_run();
	raise(sig);	/* SA_RESETHAND: the default action now */
}

static void at_exit(void)
{
	cleanup_run();
}

void cleanup_install(void)
{
	static bool done;
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESETHAND };
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	if (done)
		return;
	done = true;
	sigemptyset(&sa.sa_mask);
	for (unsigned int i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (unsigned int i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	atexit(at_exit);
}
