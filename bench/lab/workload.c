#include "workload.h"

#include <stdio.h>
#include <string.h>

#include "hx.h"

const struct workload workloads[] = {
	{ "bigfile", "one file written sequentially (a download)", false, false },
	{ "smallfiles", "files of 4-48 KiB in nested directories (a source tree)",
	  true, false },
	{ "fsync-log", "an append-only log, fdatasync every 8 KiB, for a set time at most (a WAL)",
	  false, true },
	{ "mixed", "small and medium files, rate-limited, over a set time (a desktop)",
	  false, true },
	{ NULL },
};

const struct workload *workload_by_name(const char *name)
{
	for (const struct workload *w = workloads; name && w->name; w++)
		if (!strcmp(w->name, name))
			return w;
	return NULL;
}

const char *workload_names(void)
{
	static char buf[128];
	size_t len = 0;

	if (buf[0])
		return buf;
	for (const struct workload *w = workloads; w->name; w++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				w == workloads ? "" : ", ", w->name);
	return buf;
}

const char *writeback_name(enum writeback wb)
{
	return wb == WB_HELD ? "held" : "default";
}

void workload_command(const struct workload *w, const char *dir, uint64_t size,
		      int runtime_s, bool bg, char *buf, size_t n)
{
	/* smallfiles: 4 jobs, files of 26 KiB on average */
	unsigned long long nrfiles = size / (4 * 26 * 1024) + 1;
	/* mixed: two jobs at RATE each for RUNTIME */
	unsigned long long rate = size / (2ULL * (runtime_s > 0 ? runtime_s : 1)) + 1;
	char env[256];

	snprintf(env, sizeof(env), "DIR=%s SIZE=%llu NRFILES=%llu RUNTIME=%d RATE=%llu",
		 dir, (unsigned long long)size, nrfiles, runtime_s, rate);
	snprintf(buf, n, "mkdir -p %s && export %s && %s%s%s%s " HX_FIO " %s/%s.fio"
		 " --output-format=terse >/dev/null%s", dir, env,
		 w->pre ? "sh " WORKLOAD_DIR "/" : "", w->pre ? w->name : "",
		 w->pre ? ".pre && " : "", bg ? "setsid" : "", WORKLOAD_DIR, w->name,
		 bg ? " 2>&1 </dev/null &" : "");
}
