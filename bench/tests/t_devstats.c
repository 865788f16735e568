/*
 * t_devstats: what the device saw, offline.  The log lines and the QMP
 * reply were captured from nbdkit 1.32.5 (log filter, with our filter and
 * qemu-io, the error filter, and a guest's sync) and QEMU 7.2 here.
 *
 * Guards: the log's UTC timestamps; writes, write-zeroes, FUA, flushes
 * and failures counted by their start within the window, their times
 * once their end is logged (also after the window, also when requests
 * interleave or two connections reuse an id); reading from an offset;
 * query-blockstats picked by device, a missing device or counter refused;
 * deltas; the model's three terms, max() of the two throttles, and no
 * ratio without a prediction.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "devstats.h"
#include "tap.h"

#define T(s) (1796402632.0 + (s))	/* 2026-12-04 16:43:52 UTC */

static const char qemu_io_log[] =
	"2026-12-04 16:43:51.901990 Ready thread_model=3\n"
	"2026-12-04 16:43:52.203494 Preconnect id=1 readonly=0 ...\n"
	"2026-12-04 16:43:52.203521 ...Preconnect id=1 return=0\n"
	"2026-12-04 16:43:52.204225 connection=1 Connect export=\"\" tls=0 size=0x4000000 "
	"minsize=0x1 prefsize=0x10000 maxsize=0xffffffff write=1 flush=1 rotational=0 trim=1 "
	"zero=2 fua=2 extents=1 cache=2 fast_zero=1\n"
	"2026-12-04 16:43:52.205259 connection=1 Zero id=1 offset=0x0 count=0x10000 trim=0 fua=0 fast=0 ...\n"
	"2026-12-04 16:43:52.206587 connection=1 ...Zero id=1 return=0\n"
	"2026-12-04 16:43:52.208942 connection=1 Write id=2 offset=0x10000 count=0x1000 fua=0 ...\n"
	"2026-12-04 16:43:52.209389 connection=1 ...Write id=2 return=0\n"
	"2026-12-04 16:43:52.209640 connection=1 Write id=3 offset=0x20000 count=0x2000 fua=1 ...\n"
	"2026-12-04 16:43:52.209810 connection=1 ...Write id=3 return=0\n"
	"2026-12-04 16:43:52.209962 connection=1 Flush id=4 ...\n"
	"2026-12-04 16:43:52.220572 connection=1 ...Flush id=4 return=0\n"
	"2026-12-04 16:43:52.220937 connection=1 Read id=5 offset=0x0 count=0x1000 ...\n"
	"2026-12-04 16:43:52.221315 connection=1 ...Read id=5 return=0\n"
	"2026-12-04 16:43:52.223446 connection=1 Write id=6 offset=0x100000 count=0x10000 fua=0 ...\n"
	"2026-12-04 16:43:52.224920 connection=1 ...Write id=6 return=0\n"
	"2026-12-04 16:43:52.224952 connection=1 Write id=7 offset=0x200000 count=0x10000 fua=0 ...\n"
	"2026-12-04 16:43:52.224976 connection=1 ...Write id=7 return=0\n"
	"2026-12-04 16:43:52.227796 connection=1 Flush id=8 ...\n"
	"2026-12-04 16:43:52.238330 connection=1 ...Flush id=8 return=0\n"
	"2026-12-04 16:43:52.244874 connection=1 Disconnect transactions=8\n";

/* The error filter failing a write (nbdkit --filter=log --filter=error). */
static const char error_log[] =
	"2026-12-04 16:44:01.500253 connection=1 Write id=1 offset=0x10000 count=0x1000 fua=0 ...\n"
	"2026-12-04 16:44:01.500346 connection=1 ...Write id=1 return=-1 error=EIO\n"
	"2026-12-04 16:44:01.500472 connection=1 Flush id=2 ...\n"
	"2026-12-04 16:44:01.503907 connection=1 ...Flush id=2 return=0\n";

static char path[] = "/tmp/t_devstats.XXXXXX";

static void put(const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static bool near(double a, double b)
{
	return fabs(a - b) < 2e-6;
}

static void times(void)
{
	tap_ok(near(devlog_time("2026-12-04 16:43:52.205259 connection=1 Zero id=1"),
		    T(0.205259)), "a log line's UTC timestamp, to the microsecond");
	tap_ok(devlog_time("nbdkit: error: x") < 0 && devlog_time("") < 0 &&
	       devlog_time("2026-12-04 16:43:52 connection=1") < 0,
	       "lines without a full timestamp: none");
}

static void window(void)
{
	struct dev_counts c;
	long half;

	put(qemu_io_log);
	tap_ok(!devlog_window(path, 0, 0, 1e12, &c) && c.wr_ops == 4 &&
	       c.wr_bytes == 0x1000 + 0x2000 + 0x20000 && c.zero_ops == 1 &&
	       c.zero_bytes == 0x10000 && c.fua_ops == 1 && c.flush_ops == 2 &&
	       !c.failed_ops && near(c.flush_time_s, 0.010610 + 0.010534) &&
	       near(c.wr_time_s, 0.001328 + 0.000447 + 0.000170 + 0.001474 + 0.000024),
	       "whole log: 4 writes, 1 zero, 1 FUA, 2 flushes of 21.1 ms, reads ignored");
	tap_ok(!devlog_window(path, 0, T(0.223446), T(0.227796), &c) && c.wr_ops == 2 &&
	       c.wr_bytes == 0x20000 && !c.flush_ops && !c.zero_ops,
	       "window [start of write 6, start of flush 8): writes 6 and 7 only");
	tap_ok(!devlog_window(path, 0, T(0.2277), T(0.2279), &c) && c.flush_ops == 1 &&
	       near(c.flush_time_s, 0.010534) && !c.wr_ops,
	       "a flush that ends after the window still gets its time");
	tap_ok(!devlog_window(path, 0, T(0.2279), T(1), &c) && !c.flush_ops && !c.wr_ops &&
	       c.flush_time_s == 0, "the end of a request started before the window: ignored");
	half = strstr(qemu_io_log, "2026-12-04 16:43:52.220937") - qemu_io_log;
	tap_ok(!devlog_window(path, half, 0, 1e12, &c) && c.wr_ops == 2 && c.flush_ops == 1,
	       "from a byte offset: only what follows");
	put(error_log);
	tap_ok(!devlog_window(path, 0, 0, 1e12, &c) && c.wr_ops == 1 && c.failed_ops == 1 &&
	       c.flush_ops == 1, "a failed write: counted, and counted as failed");
	unlink(path);
	tap_ok(devlog_window(path, 0, 0, 1e12, &c) == -1 && !c.wr_ops, "no log: -1");
}

/* A guest's sync (ext4 metadata after the data): five writes in flight,
 * ending out of order. */
static const char guest_log[] =
	"2026-12-04 17:25:21.828196 connection=1 Write id=38 offset=0x0 count=0x2000 fua=0 ...\n"
	"2026-12-04 17:25:21.828266 connection=1 ...Write id=38 return=0\n"
	"2026-12-04 17:25:21.828558 connection=1 Write id=39 offset=0x42000 count=0x1000 fua=0 ...\n"
	"2026-12-04 17:25:21.828644 connection=1 Write id=40 offset=0x45000 count=0x1000 fua=0 ...\n"
	"2026-12-04 17:25:21.828747 connection=1 Write id=41 offset=0x49000 count=0x1000 fua=0 ...\n"
	"2026-12-04 17:25:21.828760 connection=1 ...Write id=39 return=0\n"
	"2026-12-04 17:25:21.828771 connection=1 Write id=42 offset=0x849000 count=0x1000 fua=0 ...\n"
	"2026-12-04 17:25:21.828819 connection=1 ...Write id=42 return=0\n"
	"2026-12-04 17:25:21.828869 connection=1 ...Write id=41 return=0\n"
	"2026-12-04 17:25:21.828877 connection=1 ...Write id=40 return=0\n"
	"2026-12-04 17:25:22.804092 connection=1 Flush id=43 ...\n"
	"2026-12-04 17:25:22.814585 connection=1 ...Flush id=43 return=0\n"
	"2026-12-04 17:25:22.832440 connection=1 Disconnect transactions=44\n";

/* Reordered lines of these shapes: writes in flight together, and a
 * second connection whose ids restart at 1 (QEMU itself uses one). */
static void interleaved(void)
{
	struct dev_counts c;

	put(guest_log);
	tap_ok(!devlog_window(path, 0, 0, 1e12, &c) && c.wr_ops == 5 && c.wr_bytes == 0x6000 &&
	       near(c.wr_time_s, 0.000070 + 0.000202 + 0.000233 + 0.000122 + 0.000048) &&
	       c.flush_ops == 1 && near(c.flush_time_s, 0.010493),
	       "a guest's writes, ending out of order, each matched to its start");

	put("2026-12-04 16:43:52.100000 connection=1 Write id=1 offset=0x0 count=0x1000 fua=0 ...\n"
	    "2026-12-04 16:43:52.100010 connection=1 Write id=2 offset=0x1000 count=0x1000 fua=0 ...\n"
	    "2026-12-04 16:43:52.100020 connection=2 Write id=1 offset=0x2000 count=0x1000 fua=0 ...\n"
	    "2026-12-04 16:43:52.100400 connection=2 ...Write id=1 return=0\n"
	    "2026-12-04 16:43:52.100500 connection=1 ...Write id=2 return=0\n"
	    "2026-12-04 16:43:52.100900 connection=1 ...Write id=1 return=0\n"
	    "2026-12-04 16:43:52.100950 connection=2 Flush id=2 ...\n"
	    "2026-12-04 16:43:52.150950 connection=2 ...Flush id=2 return=0\n");
	tap_ok(!devlog_window(path, 0, 0, 1e12, &c) && c.wr_ops == 3 && c.flush_ops == 1 &&
	       near(c.wr_time_s, 0.000900 + 0.000490 + 0.000380) &&
	       near(c.flush_time_s, 0.050000), "interleaved requests on two connections");
	tap_ok(!devlog_window(path, 0, T(0.1), T(0.100015), &c) && c.wr_ops == 2 &&
	       near(c.wr_time_s, 0.000900 + 0.000490),
	       "connection 2's id 1 is not connection 1's (%.6f s)", c.wr_time_s);
	unlink(path);
}

/* QEMU 7.2, -drive if=virtio on nbdkit: before and after a sync=1 cycle. */
static const char blockstats_before[] =
	"[{\"device\":\"virtio0\",\"parent\":{\"stats\":{\"unmap_operations\":0,\"unmap_me"
	"rged\":0,\"flush_total_time_ns\":0,\"wr_highest_offset\":136990720,\"wr_tota"
	"l_time_ns\":0,\"failed_wr_operations\":0,\"failed_rd_operations\":0,\"wr_mer"
	"ged\":0,\"wr_bytes\":0,\"timed_stats\":[],\"failed_unmap_operations\":0,\"fail"
	"ed_flush_operations\":0,\"account_invalid\":false,\"rd_total_time_ns\":0,\"i"
	"nvalid_unmap_operations\":0,\"flush_operations\":0,\"wr_operations\":0,\"unm"
	"ap_bytes\":0,\"rd_merged\":0,\"rd_bytes\":0,\"unmap_total_time_ns\":0,\"invali"
	"d_flush_operations\":0,\"account_failed\":false,\"rd_operations\":0,\"invali"
	"d_wr_operations\":0,\"invalid_rd_operations\":0},\"node-name\":\"#block079\"}"
	",\"stats\":{\"unmap_operations\":0,\"unmap_merged\":0,\"flush_total_time_ns\":"
	"11103286,\"wr_highest_offset\":136990720,\"wr_total_time_ns\":40309289,\"fa"
	"iled_wr_operations\":0,\"failed_rd_operations\":0,\"wr_merged\":0,\"wr_bytes"
	"\":2252800,\"timed_stats\":[],\"failed_unmap_operations\":0,\"failed_flush_o"
	"perations\":0,\"account_invalid\":true,\"rd_total_time_ns\":16249850,\"inval"
	"id_unmap_operations\":0,\"flush_operations\":1,\"wr_operations\":5,\"unmap_b"
	"ytes\":0,\"rd_merged\":0,\"rd_bytes\":541696,\"unmap_total_time_ns\":0,\"inval"
	"id_flush_operations\":0,\"account_failed\":true,\"idle_time_ns\":86088183,\""
	"rd_operations\":20,\"invalid_wr_operations\":0,\"invalid_rd_operations\":0}"
	",\"node-name\":\"#block108\",\"qdev\":\"/machine/peripheral-anon/device[2]/vi"
	"rtio-backend\"},{\"device\":\"virtio1\",\"parent\":{\"stats\":{\"unmap_operation"
	"s\":0,\"unmap_merged\":0,\"flush_total_time_ns\":0,\"wr_highest_offset\":0,\"w"
	"r_total_time_ns\":0,\"failed_wr_operations\":0,\"failed_rd_operations\":0,\""
	"wr_merged\":0,\"wr_bytes\":0,\"timed_stats\":[],\"failed_unmap_operations\":0"
	",\"failed_flush_operations\":0,\"account_invalid\":false,\"rd_total_time_ns"
	"\":0,\"invalid_unmap_operations\":0,\"flush_operations\":0,\"wr_operations\":"
	"0,\"unmap_bytes\":0,\"rd_merged\":0,\"rd_bytes\":0,\"unmap_total_time_ns\":0,\""
	"invalid_flush_operations\":0,\"account_failed\":false,\"rd_operations\":0,\""
	"invalid_wr_operations\":0,\"invalid_rd_operations\":0},\"node-name\":\"#bloc"
	"k214\",\"driver-specific\":{\"discard-bytes-ok\":0,\"discard-nb-ok\":0,\"drive"
	"r\":\"file\",\"discard-nb-failed\":0}},\"stats\":{\"unmap_operations\":0,\"unmap"
	"_merged\":0,\"flush_total_time_ns\":0,\"wr_highest_offset\":0,\"wr_total_tim"
	"e_ns\":0,\"failed_wr_operations\":0,\"failed_rd_operations\":0,\"wr_merged\":"
	"0,\"wr_bytes\":0,\"timed_stats\":[],\"failed_unmap_operations\":0,\"failed_fl"
	"ush_operations\":0,\"account_invalid\":true,\"rd_total_time_ns\":6423603,\"i"
	"nvalid_unmap_operations\":0,\"flush_operations\":0,\"wr_operations\":0,\"unm"
	"ap_bytes\":0,\"rd_merged\":2,\"rd_bytes\":531456,\"unmap_total_time_ns\":0,\"i"
	"nvalid_flush_operations\":0,\"account_failed\":true,\"idle_time_ns\":185744"
	"528,\"rd_operations\":21,\"invalid_wr_operations\":0,\"invalid_rd_operation"
	"s\":0},\"node-name\":\"#block355\",\"qdev\":\"/machine/peripheral-anon/device["
	"3]/virtio-backend\"}]";

static const char blockstats_after[] =
	"[{\"device\":\"virtio0\",\"parent\":{\"stats\":{\"unmap_operations\":0,\"unmap_me"
	"rged\":0,\"flush_total_time_ns\":0,\"wr_highest_offset\":268476416,\"wr_tota"
	"l_time_ns\":0,\"failed_wr_operations\":0,\"failed_rd_operations\":0,\"wr_mer"
	"ged\":0,\"wr_bytes\":0,\"timed_stats\":[],\"failed_unmap_operations\":0,\"fail"
	"ed_flush_operations\":0,\"account_invalid\":false,\"rd_total_time_ns\":0,\"i"
	"nvalid_unmap_operations\":0,\"flush_operations\":0,\"wr_operations\":0,\"unm"
	"ap_bytes\":0,\"rd_merged\":0,\"rd_bytes\":0,\"unmap_total_time_ns\":0,\"invali"
	"d_flush_operations\":0,\"account_failed\":false,\"rd_operations\":0,\"invali"
	"d_wr_operations\":0,\"invalid_rd_operations\":0},\"node-name\":\"#block079\"}"
	",\"stats\":{\"unmap_operations\":0,\"unmap_merged\":0,\"flush_total_time_ns\":"
	"38970855,\"wr_highest_offset\":268476416,\"wr_total_time_ns\":2235674973,\""
	"failed_wr_operations\":0,\"failed_rd_operations\":0,\"wr_merged\":8,\"wr_byt"
	"es\":16846848,\"timed_stats\":[],\"failed_unmap_operations\":0,\"failed_flus"
	"h_operations\":0,\"account_invalid\":true,\"rd_total_time_ns\":16249850,\"in"
	"valid_unmap_operations\":0,\"flush_operations\":3,\"wr_operations\":26,\"unm"
	"ap_bytes\":0,\"rd_merged\":0,\"rd_bytes\":541696,\"unmap_total_time_ns\":0,\"i"
	"nvalid_flush_operations\":0,\"account_failed\":true,\"idle_time_ns\":320078"
	"273,\"rd_operations\":20,\"invalid_wr_operations\":0,\"invalid_rd_operation"
	"s\":0},\"node-name\":\"#block108\",\"qdev\":\"/machine/peripheral-anon/device["
	"2]/virtio-backend\"},{\"device\":\"virtio1\",\"parent\":{\"stats\":{\"unmap_oper"
	"ations\":0,\"unmap_merged\":0,\"flush_total_time_ns\":0,\"wr_highest_offset\""
	":0,\"wr_total_time_ns\":0,\"failed_wr_operations\":0,\"failed_rd_operations"
	"\":0,\"wr_merged\":0,\"wr_bytes\":0,\"timed_stats\":[],\"failed_unmap_operatio"
	"ns\":0,\"failed_flush_operations\":0,\"account_invalid\":false,\"rd_total_ti"
	"me_ns\":0,\"invalid_unmap_operations\":0,\"flush_operations\":0,\"wr_operati"
	"ons\":0,\"unmap_bytes\":0,\"rd_merged\":0,\"rd_bytes\":0,\"unmap_total_time_ns"
	"\":0,\"invalid_flush_operations\":0,\"account_failed\":false,\"rd_operations"
	"\":0,\"invalid_wr_operations\":0,\"invalid_rd_operations\":0},\"node-name\":\""
	"#block214\",\"driver-specific\":{\"discard-bytes-ok\":0,\"discard-nb-ok\":0,\""
	"driver\":\"file\",\"discard-nb-failed\":0}},\"stats\":{\"unmap_operations\":0,\""
	"unmap_merged\":0,\"flush_total_time_ns\":0,\"wr_highest_offset\":0,\"wr_tota"
	"l_time_ns\":0,\"failed_wr_operations\":0,\"failed_rd_operations\":0,\"wr_mer"
	"ged\":0,\"wr_bytes\":0,\"timed_stats\":[],\"failed_unmap_operations\":0,\"fail"
	"ed_flush_operations\":0,\"account_invalid\":true,\"rd_total_time_ns\":64236"
	"03,\"invalid_unmap_operations\":0,\"flush_operations\":0,\"wr_operations\":0"
	",\"unmap_bytes\":0,\"rd_merged\":2,\"rd_bytes\":531456,\"unmap_total_time_ns\""
	":0,\"invalid_flush_operations\":0,\"account_failed\":true,\"idle_time_ns\":1"
	"192092751,\"rd_operations\":21,\"invalid_wr_operations\":0,\"invalid_rd_ope"
	"rations\":0},\"node-name\":\"#block355\",\"qdev\":\"/machine/peripheral-anon/d"
	"evice[3]/virtio-backend\"}]";

static void qmp(void)
{
	json_t *j0 = json_loads(blockstats_before, 0, NULL);
	json_t *j1 = json_loads(blockstats_after, 0, NULL);
	json_t *bad = json_loads("[{\"device\": \"virtio0\", \"stats\": {\"wr_bytes\": 1}}]",
				 0, NULL);
	struct dev_counts a = { 0 }, b = { 0 }, d;

	tap_ok(j1 && !devstats_parse(j1, "virtio0", &a) && a.wr_ops == 26 &&
	       a.wr_bytes == 16846848 && a.flush_ops == 3 && near(a.wr_time_s, 2.235674973) &&
	       near(a.flush_time_s, 0.038970855),
	       "query-blockstats: virtio0's own counters, not its parent node's");
	tap_ok(!devstats_parse(j1, "virtio1", &b) && b.wr_ops == 0 && b.flush_ops == 0,
	       "the tools disk apart");
	tap_ok(devstats_parse(j1, "virtio9", &b) == -1 && devstats_parse(bad, "virtio0", &b) == -1
	       && devstats_parse(NULL, "virtio0", &b) == -1,
	       "an absent device, a missing counter, no reply: -1");
	devstats_parse(j0, "virtio0", &b);
	d = devstats_delta(&a, &b);
	tap_ok(d.wr_ops == 21 && d.wr_bytes == 16846848 - 2252800 && d.flush_ops == 2 &&
	       near(d.wr_time_s, 2.235674973 - 0.040309289) &&
	       near(d.flush_time_s, 0.038970855 - 0.011103286), "delta: after minus before");
	json_decref(j0);
	json_decref(j1);
	json_decref(bad);
}

static void model(void)
{
	struct dev_counts c = { .wr_ops = 19, .wr_bytes = 16838656, .flush_ops = 2 };
	struct dev_counts small = { .wr_ops = 300, .wr_bytes = 300 * 4096 };
	struct dev_model m = devmodel_predict(disk_profile("emmc"), &c);

	tap_ok(near(m.bytes_s, (16838656.0 - (2 << 20)) / (20 << 20)) && m.ops_s == 0 &&
	       near(m.flush_s, 0.020) && near(m.predict_s, m.bytes_s + 0.020),
	       "emmc, 16 MiB in 19 writes, 2 flushes: %.3f s predicted (2 MiB and 200 writes "
	       "pass in QEMU's burst)", m.predict_s);
	tap_ok(near(devmodel_ratio(0.791, &m), 0.791 / m.predict_s),
	       "ratio: measured / predicted = %.2f", devmodel_ratio(0.791, &m));
	m = devmodel_predict(disk_profile("sd"), &small);
	tap_ok(near(m.predict_s, 0.9) && m.bytes_s < 0.2,
	       "sd, 300 writes of 4 KiB: IOPS-bound, %.3f s: 30 in the burst, 270 at 300/s "
	       "(the throttles overlap, not add)", m.predict_s);
	m = devmodel_predict(disk_profile("sd"), &(struct dev_counts){ .wr_ops = 25,
			     .wr_bytes = 28 << 10, .flush_ops = 14 });
	tap_ok(m.predict_s == 0 && isnan(devmodel_ratio(0.024, &m)),
	       "sd, 25 writes of 28 kB and 14 flushes (fsync-log's sync): all in the burst, "
	       "nothing predicted (%.3f s), no ratio", m.predict_s);
	m = devmodel_predict(disk_profile("nvme"), &c);
	tap_ok(near(m.predict_s, 0.002) && !m.bytes_s && !m.ops_s,
	       "nvme, no throttling: only the flushes predicted");
	m = devmodel_predict(disk_profile("sd"), &(struct dev_counts){ 0 });
	tap_ok(m.predict_s == 0 && isnan(devmodel_ratio(0.5, &m)) &&
	       isnan(devmodel_ratio(NAN, &m)), "nothing predicted: no ratio");
}

int main(void)
{
	int fd = mkstemp(path);

	if (fd < 0)
		return 1;
	close(fd);
	/* the log is UTC whatever the zone: a local-time parse would show */
	setenv("TZ", "Asia/Tokyo", 1);
	tzset();
	times();
	window();
	interleaved();
	qmp();
	model();
	return tap_done();
}
