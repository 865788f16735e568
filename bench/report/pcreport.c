#include "pcreport.h"

#include <jansson.h>
#include <string.h>

static const char *first_release(const struct pc_run *run, int field)
{
	for (int i = 0; i < run->n; i++) {
		const struct pc_record *r = &run->rec[i];
		const char *s = field == 0 ? r->kernel_release :
				field == 1 ? r->qemu_version : r->knob;

		if (s[0])
			return s;
	}
	return "?";
}

/* a cycle whose oracle ran: QEMU died of our SIGKILL and the disk was judged */
static bool judged(const struct pc_record *r)
{
	return r->verdict == VERDICT_OK || r->verdict == VERDICT_FS_UNMOUNTABLE;
}

void pc_report_table(FILE *f, const struct pc_run *run)
{
	const struct pc_opts *o = run->o;

	fprintf(f, "power-cut %s, %s\n", LAB_VERSION, run->date);
	fprintf(f, "kernel    %s, knob %s\n", first_release(run, 0), first_release(run, 2));
	fprintf(f, "qemu      %s, accel tcg, firmware bios, data disk cache=none\n",
		first_release(run, 1));
	fprintf(f, "profile   %s, state %s\n\n", o->profile->name, o->state);
	for (int sync = 0; sync <= 1; sync++) {
		unsigned long long written = 0, at_risk = 0, lost = 0, kernel = 0;
		int n = 0, cuts = 0, fs_ok = 0, fsync_ok = 0, nv[FV_NOT_JUDGED + 1] = { 0 };
		int bounded = 0, with_kernel = 0;
		long long slack = 0;

		for (int i = 0; i < run->n; i++) {
			const struct pc_record *r = &run->rec[i];

			if (r->sync != sync)
				continue;
			cuts++;
			if (!judged(r))
				continue;
			n++;
			written += r->bytes_written;
			at_risk += r->dirty_kb_at_cut * 1024ULL;
			lost += r->bytes_lost;
			fs_ok += r->fs_clean;
			fsync_ok += r->fsync_intact;
			for (int v = 0; v <= FV_NOT_JUDGED; v++)
				nv[v] += r->n[v];
			if (r->kernel_at_risk_kb >= 0) {
				with_kernel++;
				kernel += r->kernel_at_risk_kb * 1024ULL;
				bounded += pc_loss_within_risk(r);
				if (r->at_risk_slack_kb > slack)
					slack = r->at_risk_slack_kb;
			}
		}
		if (!cuts)
			continue;
		fprintf(f, "suspend_sync=%d: %d power cuts, %d judged\n", sync, cuts, n);
		fprintf(f, "  bytes written %llu, dirty at the cut %llu, lost %llu\n",
			written, at_risk, lost);
		fprintf(f, "  files intact %d, missing %d, truncated %d, corrupted %d\n",
			nv[FV_INTACT], nv[FV_MISSING], nv[FV_TRUNCATED], nv[FV_CORRUPTED]);
		fprintf(f, "  fsync'd data intact in %d/%d, filesystem clean in %d/%d\n",
			fsync_ok, n, fs_ok, n);
		if (with_kernel)
			fprintf(f, "  kernel said %llu bytes at risk in %d cuts; loss within it"
				" (counter slack %lld kB) in %d/%d\n",
				kernel, with_kernel, slack, bounded, with_kernel);
	}
	fprintf(f, "\ncycle sync cut       offset_ms verdict  written_B    dirty_kB lost_B     int mis tru cor fsync fsck\n");
	for (int i = 0; i < run->n; i++) {
		const struct pc_record *r = &run->rec[i];

		fprintf(f, "%5d %4d %-9s %9d %-8s %-12llu %8lld %-10llu %3d %3d %3d %3d %-5s %s\n",
			i + 1, r->sync, cut_name(r->cut), r->cut_offset_ms,
			verdict_name(r->verdict), (unsigned long long)r->bytes_written,
			r->dirty_kb_at_cut, (unsigned long long)r->bytes_lost,
			r->n[FV_INTACT], r->n[FV_MISSING], r->n[FV_TRUNCATED],
			r->n[FV_CORRUPTED], judged(r) ? (r->fsync_intact ? "yes" : "NO") : "-",
			judged(r) ? (r->fs_clean ? "clean" : "DIRTY") : "-");
	}
}

static json_t *j_opt_kb(long long kb)
{
	return kb >= 0 ? json_integer(kb) : json_null();
}

static json_t *j_file(const struct pc_file *f)
{
	return json_pack("{s:s, s:s, s:I, s:b, s:s, s:I, s:I, s:I}",
			 "path", f->path, "kind", f->kind,
			 "size_bytes", (json_int_t)f->size, "fsync", f->fsync,
			 "verdict", file_verdict_name(f->v),
			 "actual_size_bytes", (json_int_t)f->actual,
			 "good_bytes", (json_int_t)f->good,
			 "lost_bytes", (json_int_t)(f->size > f->good ? f->size - f->good : 0));
}

static json_t *j_record(const struct pc_record *r, int i)
{
	json_t *files = json_array();

	for (int k = 0; k < r->n_files; k++)
		json_array_append_new(files, j_file(&r->files[k]));
	return json_pack("{s:i, s:s, s:i, s:s, s:o, s:s, s:b, s:b, s:b, s:o,"
			 " s:I, s:o, s:o, s:o, s:o, s:I, s:i, s:i, s:i, s:i, s:b, s:o}",
			 "cycle", i + 1, "state", r->state, "sync", r->sync,
			 "cut", cut_name(r->cut),
			 "cut_offset_ms", r->cut_offset_ms >= 0 ?
				json_integer(r->cut_offset_ms) : json_null(),
			 "verdict", verdict_name(r->verdict),
			 "cut_by_sigkill", r->cut_by_sigkill,
			 "fs_mounted", r->fs_mounted, "fs_clean", r->fs_clean,
			 "fio_verify", r->fio_verify < 0 ? json_null() :
				json_boolean(r->fio_verify),
			 "written_bytes", (json_int_t)r->bytes_written,
			 "dirty_at_cut_kb", j_opt_kb(r->dirty_kb_at_cut),
			 "kernel_at_risk_kb", j_opt_kb(r->kernel_at_risk_kb),
			 "at_risk_slack_kb", j_opt_kb(r->at_risk_slack_kb),
			 "loss_within_risk", r->kernel_at_risk_kb >= 0 ?
				json_boolean(pc_loss_within_risk(r)) : json_null(),
			 "lost_bytes", (json_int_t)r->bytes_lost,
			 "files_intact", r->n[FV_INTACT], "files_missing", r->n[FV_MISSING],
			 "files_truncated", r->n[FV_TRUNCATED],
			 "files_corrupted", r->n[FV_CORRUPTED],
			 "fsync_intact", r->fsync_intact, "files", files);
}

int pc_report_json(const char *path, const struct pc_run *run)
{
	const struct pc_opts *o = run->o;
	json_t *cycles = json_array(), *j;
	int rc;

	for (int i = 0; i < run->n; i++)
		json_array_append_new(cycles, j_record(&run->rec[i], i));
	j = json_pack("{s:s, s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:{s:s, s:o},"
		      " s:I, s:s}, s:o}",
		      "schema", PC_SCHEMA,
		      "provenance",
		      "program_version", LAB_VERSION, "date", run->date,
		      "kernel_release", first_release(run, 0),
		      "qemu_version", first_release(run, 1), "knob", first_release(run, 2),
		      "accel", "tcg", "firmware", "bios", "state", o->state,
		      "profile", "name", o->profile->name, "write_bytes_per_s",
		      o->profile->write_bps ? json_integer(o->profile->write_bps) : json_null(),
		      "largest_file_bytes", (json_int_t)o->big_bytes,
		      "disk_cache_mode", "none",
		      "cycles", cycles);
	if (!j) {
		fprintf(stderr, "power-cut: cannot build the JSON report\n");
		return -1;
	}
	rc = json_dump_file(j, path, JSON_INDENT(2));
	json_decref(j);
	if (rc)
		fprintf(stderr, "power-cut: cannot write %s\n", path);
	return rc ? -1 : 0;
}

int pc_report_csv(const char *path, const struct pc_run *run)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "power-cut: cannot write %s\n", path);
		return -1;
	}
	fprintf(f, "cycle,state,sync,cut,cut_offset_ms,verdict,written_bytes,"
		"dirty_at_cut_kb,kernel_at_risk_kb,at_risk_slack_kb,lost_bytes,files_intact,"
		"files_missing,files_truncated,files_corrupted,fsync_intact,"
		"fs_clean,fio_verify\n");
	for (int i = 0; i < run->n; i++) {
		const struct pc_record *r = &run->rec[i];

		fprintf(f, "%d,%s,%d,%s,", i + 1, r->state, r->sync, cut_name(r->cut));
		if (r->cut_offset_ms >= 0)
			fprintf(f, "%d", r->cut_offset_ms);
		fprintf(f, ",%s,%llu,%lld,", verdict_name(r->verdict),
			(unsigned long long)r->bytes_written, r->dirty_kb_at_cut);
		if (r->kernel_at_risk_kb >= 0)
			fprintf(f, "%lld", r->kernel_at_risk_kb);
		fputc(',', f);
		if (r->at_risk_slack_kb >= 0)
			fprintf(f, "%lld", r->at_risk_slack_kb);
		fprintf(f, ",%llu,%d,%d,%d,%d,%d,%d,", (unsigned long long)r->bytes_lost,
			r->n[FV_INTACT], r->n[FV_MISSING], r->n[FV_TRUNCATED],
			r->n[FV_CORRUPTED], r->fsync_intact, r->fs_clean);
		if (r->fio_verify >= 0)
			fprintf(f, "%d", r->fio_verify);
		fputc('\n', f);
	}
	return fclose(f) ? -1 : 0;
}
