/*
 * What the device saw, and what the profile predicts it should cost.
 *
 * Two sources: QMP query-blockstats (QEMU's counters per guest request,
 * at the virtio-blk device, throttling wait included in the times), and
 * the drive model's nbdkit request log (every request QEMU sent after
 * merging, with its own start and end: what QEMU's throttle gated, and
 * FUA, which QMP does not count).
 *
 * The physical model: QEMU admits a write only when both its bandwidth
 * and its IOPS bucket allow it, so the two limits overlap and the slower
 * one sets the pace; each bucket lets a tenth of a second of its rate pass
 * at once (QEMU's default burst); flushes are not throttled and each waits
 * its full latency.  predict = max((bytes - bps/10) / bps, (requests -
 * iops/10) / iops), never below 0, + flushes x flush.
 */
#ifndef SLAB_DEVSTATS_H
#define SLAB_DEVSTATS_H

#include <jansson.h>
#include <stdint.h>

#include "profile.h"
#include "qmp.h"

/* The data image is the first -drive if=virtio: QEMU names it so. */
#define DEVSTATS_DATA_DEVICE "virtio0"

struct dev_counts {
	uint64_t wr_ops, wr_bytes;	/* writes */
	uint64_t zero_ops, zero_bytes;	/* write-zeroes (nbdkit log only) */
	uint64_t fua_ops;		/* writes or zeroes with FUA (log only) */
	uint64_t flush_ops;
	uint64_t failed_ops;		/* requests that returned an error (log only) */
	double wr_time_s, flush_time_s;	/* summed request times */
};

/* A query-blockstats reply (the "return" array): device's counters.
 * 0, or -1 if the device is absent or a counter is missing. */
int devstats_parse(const json_t *ret, const char *device, struct dev_counts *c);
/* query-blockstats over QMP: QMP_OK, a QMP error, or QMP_ERR_PROTO when
 * the reply lacks the device. */
int devstats_query(struct qmp *q, const char *device, int timeout_ms, struct dev_counts *c);
/* after - before, field by field. */
struct dev_counts devstats_delta(const struct dev_counts *after,
				 const struct dev_counts *before);

/* A log line's timestamp ("2026-12-04 16:43:52.205259", UTC): seconds of
 * CLOCK_REALTIME, or a negative number if the line has none. */
double devlog_time(const char *line);
/*
 * Counts the requests in nbdkit's log that started in [t0, t1) (host
 * CLOCK_REALTIME seconds), reading from byte offset from.  A request's
 * time counts once its end is logged.  0, or -1 if the log cannot be read.
 */
int devlog_window(const char *path, long from, double t0, double t1, struct dev_counts *c);

struct dev_model {
	double bytes_s, ops_s, flush_s;	/* the three terms */
	double predict_s;
};

/* The model for c's counts on profile p; ops are writes plus zeroes. */
struct dev_model devmodel_predict(const struct disk_profile *p, const struct dev_counts *c);
/* measured / predicted, or NAN when nothing is predicted. */
double devmodel_ratio(double measured_s, const struct dev_model *m);

#endif
