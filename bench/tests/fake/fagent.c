/* fakeqemu's guest agent: the real protocol, a scripted guest. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent_proto.h"
#include "fake.h"

#define FIO "/opt/tools/bin/fio"

static struct agent_lines in;
static unsigned long cur;	/* request being answered */
static int requests;
static double suspend_at;	/* pending suspend (stall-ms); 0: none */
static bool mem_state;
static int resume_delay_ms;
static double suspended_mono, request_mono;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* $FAKEQEMU_MOUNTS, if set: each mount's "-t TYPE ..." appended, for the
 * tests of --fs. */
static void fk_note_mount(const char *rest)
{
	const char *path = getenv("FAKEQEMU_MOUNTS");
	FILE *f = path ? fopen(path, "ae") : NULL;

	if (f) {
		fprintf(f, "%.*s\n", (int)strcspn(rest, " "), rest);
		fclose(f);
	}
}

static void say(const char *fmt, ...)
{
	char buf[AGENT_LINE_MAX];
	unsigned long seq = fk_has("wrong-seq") && cur ? cur + 1 : cur;
	va_list ap;
	int h = snprintf(buf, sizeof(buf), "%lu ", seq), n;

	va_start(ap, fmt);
	n = vsnprintf(buf + h, sizeof(buf) - h - 1, fmt, ap);
	va_end(ap);
	n += h;
	buf[n++] = '\n';
	if (fk.agent >= 0)
		agent_write_all(fk.agent, buf, n);
}

static void clocks(char *buf, size_t n)
{
	struct timespec m, r, b;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_BOOTTIME, &b);
	snprintf(buf, n, "mono_ns=%lld real_ns=%lld boot_ns=%lld",
		 m.tv_sec * 1000000000LL + m.tv_nsec, r.tv_sec * 1000000000LL + r.tv_nsec,
		 b.tv_sec * 1000000000LL + b.tv_nsec);
}

/* release=R: the kernel release reported, up to the next comma (hostile names) */
void agent_hello(void)
{
	const char *v = fk_arg("version"), *rel = fk_arg("release") ?: "6.1.0-fake";

	if (fk_has("no-ready"))
		return;
	cur = 0;
	say("READY version=%d release=%.*s knob=suspend_sync",
	    v ? atoi(v) : AGENT_PROTO_VERSION, (int)strcspn(rel, ","), rel);
}

/* "--filename=X" or similar: the word after key, under the mount */
static const char *word_after(const char *s, const char *key, char *out, size_t n)
{
	const char *p = strstr(s, key);

	out[0] = '\0';
	if (p)
		snprintf(out, n, "%.*s", (int)strcspn(p + strlen(key), " ;&|"),
			 p + strlen(key));
	return out;
}

static void run_fio(const char *cmd)
{
	char file[256], size[32];

	word_after(cmd, "--filename=", file, sizeof(file));
	word_after(cmd, "--size=", size, sizeof(size));
	if (strstr(cmd, ".fio")) {	/* a workload's job file: its bytes, in DIR */
		char dir[200];

		word_after(cmd, "DIR=", dir, sizeof(dir));
		word_after(cmd, "SIZE=", size, sizeof(size));
		snprintf(file, sizeof(file), "%s/workload", dir);
	}
	if (strstr(cmd, "--output-format=json")) {
		say("OUT {\"jobs\": [{\"write\": {\"bw_bytes\": 20971520}}]}");
	} else if (strstr(cmd, "--verify_only")) {
		say("OUT verify=%s", model_size(file) >= atoll(size) ? "ok" : "failed");
	} else {
		model_write(file, 0, 0, strtoull(size, NULL, 10), false);
	}
	say("DONE status=0");
}

static void run(const char *cmd)
{
	const char *fail = fk_arg("fail-run"), *full = fk_arg("enospc");
	char a[256], b[256];

	if (full && *full && strstr(cmd, full)) {
		fk_qmp_send("{\"timestamp\": {\"seconds\": 1, \"microseconds\": 0},"
			    " \"event\": \"BLOCK_IO_ERROR\", \"data\": {\"device\": \"\","
			    " \"node-name\": \"#block123\", \"operation\": \"write\","
			    " \"action\": \"stop\", \"nospace\": true,"
			    " \"reason\": \"No space left on device\"}}");
		fk_qmp_event("STOP");
		fk.stopped = true;
	} else if (fail && *fail && strstr(cmd, fail)) {
		say("OUT failing as told: %s", fail);
		say("DONE status=1");
	} else if (fk_has("forge") && requests == 1) {
		/* one line: an OUT of 9000 bytes with a DONE at byte 9000 */
		static char junk[9200];
		int h = snprintf(junk, sizeof(junk), "%lu OUT ", cur);

		memset(junk + h, 'x', 9000 - h);
		snprintf(junk + 9000, sizeof(junk) - 9000, "%lu DONE status=7\n", cur);
		agent_write_all(fk.agent, junk, strlen(junk));
		say("DONE status=0");
	} else if (fk_has("flood") && !strncmp(cmd, "test ", 5)) {
		static char line[2000];

		memset(line, 'y', sizeof(line) - 1);
		for (int i = 0; i < 3000; i++)	/* 6 MB */
			say("OUT %s", line);
		say("DONE status=0");
	} else if (!strncmp(cmd, "test ", 5)) {
		say("DONE status=0");
	} else if (strstr(cmd, "suspend_page_cache && echo yes")) {
		say("OUT yes");
		say("DONE status=0");
	} else if (strstr(cmd, FIO)) {
		run_fio(cmd);
	} else if (!strncmp(cmd, "sysctl -n ", 10)) {
		say("OUT 500");
		say("OUT 3000");
		say("OUT 20");
		say("OUT 10");
		say("DONE status=0");
	} else if (strstr(cmd, "echo cpus=")) {
		say("OUT cpus=2 threshold=16");
		say("DONE status=0");
	} else if (strstr(cmd, "mount -t ")) {
		/* the last mount's type, for tests of --fs */
		fk_note_mount(strstr(cmd, "mount -t ") + 9);
		say("DONE status=%d", fk_has("unmountable") && model_was_cut() ? 32 : 0);
	} else if (!strncmp(cmd, "mkdir -p ", 9)) {
		model_mkdir(cmd + 9);
		say("DONE status=0");
	} else if (sscanf(cmd, "mv %255s %255s", a, b) == 2) {
		model_rename(a, b);
		say("DONE status=0");
	} else if (!strncmp(cmd, "if [ -L ", 8)) {
		word_after(cmd, "-L ", a, sizeof(a));
		say("OUT type=%s size=%lld", model_size(a) >= 0 ? "reg" : "none",
		    model_size(a) >= 0 ? model_size(a) : 0);
		say("DONE status=0");
	} else {
		if (sscanf(cmd, "rm -f %255s", a) == 1)
			model_remove(a);
		if (!strcmp(cmd, "sync") || strstr(cmd, "&& sync"))
			model_sync();
		say("DONE status=0");
	}
}

static void suspend_now(void)
{
	suspend_at = 0;
	suspended_mono = now();
	fk.suspended = true;
	if (!fk.knob)
		fk_serial("[    5.0] PM: Page cache not on storage: %llu kB (dirty: %llu kB, "
			  "writeback: 0 kB)\n", (unsigned long long)(model_dirty_bytes() >> 10),
			  (unsigned long long)(model_dirty_bytes() >> 10));
	else
		model_sync();	/* the kernel's sync */
	if (mem_state)
		fk_qmp_event("SUSPEND");
	else
		fk_serial("[    5.1] PM: suspend-to-idle\n");
}

/* scenario "devices": the kernel's phases and device callbacks, as a
 * 6.1 guest traces them, at fixed fractions of the suspend and resume */
#define CB "TRACE kworker/u4:1-45 [001] ..... %.6f: device_pm_callback_"
static void trace_devices(double woke)
{
	double r = request_mono, d = suspended_mono - request_mono;

	if (fk.knob) {	/* the kernel syncs */
		say("TRACE sh-80 [000] ..... %.6f: suspend_resume: sync_filesystems[0] begin",
		    r + 0.05 * d);
		say("TRACE sh-80 [000] ..... %.6f: suspend_resume: sync_filesystems[0] end",
		    r + 0.45 * d);
	}
	say("TRACE sh-80 [000] ..... %.6f: suspend_resume: freeze_processes[0] begin", r + 0.5 * d);
	say("TRACE sh-80 [000] ..... %.6f: suspend_resume: freeze_processes[0] end", r + 0.6 * d);
	say("TRACE sh-80 [000] ..... %.6f: suspend_resume: dpm_suspend[2] begin", r + 0.65 * d);
	say(CB "start: virtio_blk virtio1, parent: 0000:00:04.0, bus[suspend]", r + 0.66 * d);
	say(CB "start: e1000 0000:00:03.0, parent: pci0000:00, bus[suspend]", r + 0.70 * d);
	say(CB "end: e1000 0000:00:03.0, err=0", r + 0.72 * d);
	say(CB "end: virtio_blk virtio1, err=0", r + 0.80 * d);
	say("TRACE sh-80 [000] ..... %.6f: suspend_resume: dpm_suspend[2] end", r + 0.85 * d);
	say("TRACE sh-80 [000] ..... %.6f: suspend_resume: dpm_suspend_noirq[2] begin", r + 0.86 * d);
	say(CB "start: pci 0000:00:01.0, parent: pci0000:00, noirq bus[suspend]", r + 0.87 * d);
	say(CB "end: pci 0000:00:01.0, err=0", r + 0.90 * d);
	say("TRACE sh-80 [000] ..... %.6f: suspend_resume: dpm_suspend_noirq[2] end", r + 0.95 * d);
	say("TRACE sh-80 [000] ..... %.6f: suspend_resume: dpm_resume[16] begin", woke + 0.002);
	say(CB "start: virtio_blk virtio1, parent: 0000:00:04.0, bus[resume]", woke + 0.003);
	say(CB "start: serio serio0, parent: i8042, bus[resume]", woke + 0.004);
	say(CB "end: virtio_blk virtio1, err=0", woke + 0.012);
	say("TRACE sh-80 [000] ..... %.6f: suspend_resume: dpm_resume[16] end", woke + 0.015);
}

void fk_wake(void)
{
	double woke_mono = now();
	char t[128];

	fk.suspended = false;
	if (mem_state)
		fk_qmp_event("WAKEUP");
	struct timespec ret;

	clock_gettime(CLOCK_MONOTONIC, &ret);
	if (resume_delay_ms)
		fk_msleep(resume_delay_ms);
	clocks(t, sizeof(t));
	say("RESUMED %s ret_mono_ns=%lld rc=0", t, ret.tv_sec * 1000000000LL + ret.tv_nsec);
	/* the kernel's resume, on the guest's (here: our) monotonic clock */
	say("TRACE agent-1 [000] d.... %.6f: suspend_resume: machine_suspend[3] begin",
	    suspended_mono);
	say("TRACE agent-1 [000] d.... %.6f: suspend_resume: machine_suspend[3] end",
	    woke_mono);
	say("TRACE agent-1 [000] ..... %.6f: suspend_resume: thaw_processes[0] begin",
	    woke_mono + 0.0005);
	say("TRACE agent-1 [000] ..... %.6f: suspend_resume: thaw_processes[0] end",
	    woke_mono + 0.001);
	if (fk_has("devices"))
		trace_devices(woke_mono);
	say("DONE status=0");
}

static void suspend(const char *arg)
{
	char state[16], t[128];
	const char *stall = fk_arg("stall-ms");
	long long dirty = model_dirty_bytes() >> 10;

	resume_delay_ms = 0;
	if (sscanf(arg, "%15s %d", state, &resume_delay_ms) < 1) {
		say("DONE status=%d", EINVAL);
		return;
	}
	mem_state = !strcmp(state, "mem");
	request_mono = now();
	if (fk_has("devices"))
		resume_delay_ms = resume_delay_ms > 20 ? resume_delay_ms : 20;
	clocks(t, sizeof(t));
	if (fk_has("missing-keys"))
		say("REQUEST %s writeback_kb=0 state=%s", t, state);
	else
		say("REQUEST %s dirty_kb=%lld writeback_kb=0 state=%s", t, dirty, state);
	if (fk_arg("host-stop-ms")) {	/* SIGSTOP, as a hostile host would */
		int ms = atoi(fk_arg("host-stop-ms"));
		pid_t me = getpid();

		if (!fork()) {
			usleep(ms * 1000);
			kill(me, SIGCONT);
			_exit(0);
		}
		raise(SIGSTOP);
	}
	if (fk_has("no-suspend"))
		return;	/* a guest stuck on its way down */
	if (fk_has("freeze-fails")) {	/* the kernel gives up: EBUSY, no event */
		struct timespec ret;

		clock_gettime(CLOCK_MONOTONIC, &ret);
		clocks(t, sizeof(t));
		say("RESUMED %s ret_mono_ns=%lld rc=%d", t,
		    ret.tv_sec * 1000000000LL + ret.tv_nsec, EBUSY);
		say("KMSG 6,300,5000000,-;PM: suspend entry (deep)");
		say("KMSG 3,301,5000100,-;Freezing of tasks failed after 0.05 seconds"
		    " (1 tasks refusing to freeze, wq_busy=0):");
		say("DONE status=%d", EBUSY);
		return;
	}
	suspend_at = now() + (stall ? atoi(stall) / 1000.0 : 0);
}

void agent_tick(void)
{
	if (suspend_at && now() >= suspend_at)
		suspend_now();
}

static void dispatch(char *line)
{
	const char *die = fk_arg("die-after");
	char *end, *verb, *arg, out[256];
	unsigned long long seed, off, size;
	char path[256];
	int sync_it;

	if (fk.stopped)
		return;
	cur = strtoul(line, &end, 10);
	if (end == line || *end != ' ')
		return;
	if (die && ++requests > atoi(die))
		exit(0);
	requests += !die;
	verb = end + 1;
	arg = verb + strcspn(verb, " ");
	if (*arg)
		*arg++ = '\0';
	if (!strcmp(verb, "RUN")) {
		run(arg);
	} else if (!strcmp(verb, "SET")) {
		if (fk_has("knob-refused")) {
			say("DONE status=13");
			return;
		}
		if (strstr(arg, "suspend_sync ") || strstr(arg, "sync_on_suspend "))
			fk.knob = atoi(arg + strcspn(arg, " "));
		say("DONE status=0");
	} else if (!strcmp(verb, "WRITE") &&
		   sscanf(arg, "%255s %llu %llu %llu %d", path, &seed, &off, &size,
			  &sync_it) == 5) {
		model_write(path, seed, off, size, sync_it);
		say("DONE status=0");
	} else if (!strcmp(verb, "VERIFY") &&
		   sscanf(arg, "%255s %llu %llu", path, &seed, &size) == 3) {
		int err = model_verify(path, size, out, sizeof(out));

		say("OUT %s", out);
		say("DONE status=%d", err);
	} else if (!strcmp(verb, "LIST")) {
		void list_one(const char *type, const char *rel);

		say("DONE status=%d", model_list(arg, list_one));
	} else if (!strcmp(verb, "CLOCK")) {
		clocks(out, sizeof(out));
		say("OUT %s", out);
		say("DONE status=0");
	} else if (!strcmp(verb, "SUSPEND")) {
		suspend(arg);
	} else {
		say("DONE status=%d", EINVAL);
	}
}

void list_one(const char *type, const char *rel)
{
	say("OUT %s %s", type, rel);
}

void agent_input(void)
{
	char line[AGENT_LINE_MAX];
	size_t room;
	char *tail = agent_lines_tail(&in, &room);
	ssize_t r = read(fk.agent, tail, room);

	if (r <= 0) {
		close(fk.agent);
		fk.agent = -1;
		return;
	}
	agent_lines_add(&in, r);
	while (agent_lines_take(&in, line, sizeof(line)) == AGENT_FRAME_LINE)
		dispatch(line);
}
