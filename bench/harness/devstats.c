#define _GNU_SOURCE
#include "devstats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int get_u64(const json_t *o, const char *key, uint64_t *out)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -1;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

int devstats_parse(const json_t *ret, const char *device, struct dev_counts *c)
{
	size_t i;
	const json_t *e;

	memset(c, 0, sizeof(*c));
	json_array_foreach(ret, i, e) {
		const json_t *s = json_object_get(e, "stats");
		const char *dev = json_string_value(json_object_get(e, "device"));
		uint64_t wr_ns, fl_ns;

		if (!dev || strcmp(dev, device) || !json_is_object(s))
			continue;
		if (get_u64(s, "wr_operations", &c->wr_ops) ||
		    get_u64(s, "wr_bytes", &c->wr_bytes) ||
		    get_u64(s, "flush_operations", &c->flush_ops) ||
		    get_u64(s, "wr_total_time_ns", &wr_ns) ||
		    get_u64(s, "flush_total_time_ns", &fl_ns))
			return -1;
		c->wr_time_s = wr_ns / 1e9;
		c->flush_time_s = fl_ns / 1e9;
		return 0;
	}
	return -1;
}

int devstats_query(struct qmp *q, const char *device, int timeout_ms, struct dev_counts *c)
{
	json_t *ret = NULL;
	int st = qmp_command(q, "query-blockstats", NULL, &ret, timeout_ms);

	if (st == QMP_OK && devstats_parse(ret, device, c))
		st = QMP_ERR_PROTO;
	json_decref(ret);
	return st;
}

struct dev_counts devstats_delta(const struct dev_counts *a, const struct dev_counts *b)
{
	return (struct dev_counts){
		.wr_ops = a->wr_ops - b->wr_ops,
		.wr_bytes = a->wr_bytes - b->wr_bytes,
		.zero_ops = a->zero_ops - b->zero_ops,
		.zero_bytes = a->zero_bytes - b->zero_bytes,
		.fua_ops = a->fua_ops - b->fua_ops,
		.flush_ops = a->flush_ops - b->flush_ops,
		.failed_ops = a->failed_ops - b->failed_ops,
		.wr_time_s = a->wr_time_s - b->wr_time_s,
		.flush_time_s = a->flush_time_s - b->flush_time_s,
	};
}

double devlog_time(const char *line)
{
	struct tm tm = { 0 };
	char frac[16];
	int used = 0;

	if (sscanf(line, "%4d-%2d-%2d %2d:%2d:%2d.%9[0-9]%n", &tm.tm_year, &tm.tm_mon,
		   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, frac, &used) != 7 ||
	    line[used] != ' ')
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	/* the log filter writes UTC (seen with TZ set elsewhere) */
	return (double)timegm(&tm) + strtod(frac, NULL) / pow(10, strlen(frac));
}

enum kind { K_WRITE = 1, K_ZERO, K_FLUSH };

/* Requests started in the window and not yet ended: their start times.
 * QEMU keeps at most 16 in flight per connection. */
struct pending {
	unsigned conn;
	unsigned long long id;
	enum kind kind;
	double t;
};

static enum kind kind_of(const char *act)
{
	if (!strncmp(act, "Write ", 6))
		return K_WRITE;
	if (!strncmp(act, "Zero ", 5))
		return K_ZERO;
	if (!strncmp(act, "Flush ", 6))
		return K_FLUSH;
	return 0;
}

/* An end line: "...Write id=7 return=0" (or "return=-1 error=EIO"). */
static void ended(struct pending *p, int *n, unsigned conn, const char *act, double t,
		  struct dev_counts *c)
{
	const char *ids = strstr(act, " id=");
	unsigned long long id;

	if (!ids || sscanf(ids, " id=%llu", &id) != 1)
		return;
	for (int i = 0; i < *n; i++) {
		if (p[i].conn != conn || p[i].id != id || p[i].kind != kind_of(act))
			continue;
		if (p[i].kind == K_FLUSH)
			c->flush_time_s += t - p[i].t;
		else
			c->wr_time_s += t - p[i].t;
		if (strstr(act, " return=-1"))
			c->failed_ops++;
		p[i] = p[--*n];
		return;
	}
}

/* A start line: "Write id=7 offset=0x200000 count=0x10000 fua=0 ...". */
static void started(struct pending *p, int *n, unsigned conn, const char *act, double t,
		    struct dev_counts *c)
{
	enum kind k = kind_of(act);
	const char *s = strstr(act, " id=");
	unsigned long long id, count = 0;

	if (!k || !s || sscanf(s, " id=%llu", &id) != 1)
		return;
	s = strstr(act, " count=");
	if (s)
		count = strtoull(s + 7, NULL, 0);
	if (k == K_WRITE) {
		c->wr_ops++;
		c->wr_bytes += count;
	} else if (k == K_ZERO) {
		c->zero_ops++;
		c->zero_bytes += count;
	} else {
		c->flush_ops++;
	}
	if (k != K_FLUSH && strstr(act, " fua=1"))
		c->fua_ops++;
	if (*n < 256)
		p[(*n)++] = (struct pending){ conn, id, k, t };
}

int devlog_window(const char *path, long from, double t0, double t1, struct dev_counts *c)
{
	struct pending p[256];
	int n = 0;
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "re");

	memset(c, 0, sizeof(*c));
	if (!f)
		return -1;
	if (from > 0 && fseek(f, from, SEEK_SET)) {
		fclose(f);
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		double t = devlog_time(line);
		const char *s = strstr(line, " connection=");
		unsigned conn;
		int used = 0;

		if (t < 0 || !s || sscanf(s, " connection=%u %n", &conn, &used) != 1 || !used)
			continue;
		s += used;
		if (!strncmp(s, "...", 3))
			ended(p, &n, conn, s + 3, t, c);
		else if (t >= t0 && t < t1)
			started(p, &n, conn, s, t, c);
		else if (t >= t1 && !n)
			break;	/* past the window, nothing left to end */
	}
	free(line);
	fclose(f);
	return 0;
}

struct dev_model devmodel_predict(const struct disk_profile *p, const struct dev_counts *c)
{
	struct dev_model m = { 0 };
	double bytes = (double)(c->wr_bytes + c->zero_bytes);
	double ops = (double)(c->wr_ops + c->zero_ops);

	/* QEMU's buckets hold a tenth of a second of their rate: a burst
	 * that fits passes at once (throttle_fix_bucket()) */
	if (p && p->write_bps)
		m.bytes_s = fmax(0, bytes - p->write_bps / 10.0) / p->write_bps;
	if (p && p->write_iops)
		m.ops_s = fmax(0, ops - p->write_iops / 10.0) / p->write_iops;
	if (p)
		m.flush_s = c->flush_ops * p->flush_ms / 1000.0;
	m.predict_s = fmax(m.bytes_s, m.ops_s) + m.flush_s;
	return m;
}

double devmodel_ratio(double measured_s, const struct dev_model *m)
{
	return m->predict_s > 0 && !isnan(measured_s) ? measured_s / m->predict_s : NAN;
}
