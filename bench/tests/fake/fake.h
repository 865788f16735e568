/* fakeqemu's parts: the process (fakeqemu.c), the agent (fagent.c) and
 * the data disk's files (model.c). */
#ifndef FAKE_H
#define FAKE_H

#include <stdbool.h>
#include <stdint.h>

struct fake {
	char qmp_path[512], agent_path[512], serial_path[600], disk[600];
	int qmp, agent;
	int knob;		/* suspend_sync */
	bool suspended;
	bool stopped;		/* by an I/O error: the guest answers nothing */
};

extern struct fake fk;

bool fk_has(const char *flag);
/* The value of flag=VALUE in $FAKEQEMU, "" for a bare flag, or NULL. */
const char *fk_arg(const char *flag);
void fk_serial(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fk_qmp_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fk_qmp_event(const char *name);
void fk_msleep(int ms);

void agent_hello(void);
void agent_input(void);
void agent_tick(void);
void fk_wake(void);

/* The data disk: files as the pattern streams the lab writes. */
void model_load(const char *disk);
bool model_was_cut(void);
void model_write(const char *path, uint64_t seed, uint64_t off, uint64_t size,
		 bool durable);
void model_rename(const char *from, const char *to);
void model_mkdir(const char *path);
void model_remove(const char *path);
void model_sync(void);
uint64_t model_dirty_bytes(void);
/* VERIFY's answer for path, as "type=.. size=.. good=.. first_bad=.." */
int model_verify(const char *path, uint64_t size, char *out, size_t n);
/* LIST: calls fn for each entry below dir */
int model_list(const char *dir, void (*fn)(const char *type, const char *rel));
/* size of a durable file; -1 if absent */
long long model_size(const char *path);

#endif
