#include "pcreport.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "cliopt.h"
#include "csv.h"
#include "escape.h"
#include "outfile.h"

static const char *first_of(const struct pc_result *run, int field)
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

static const char *cut_label(enum cut_point c)
{
	return c == CUT__COUNT ? "all" : cut_name(c);
}

void pc_report_table(FILE *f, const struct pc_view *v)
{
	const struct pc_result *run = v->run;
	const struct pc_opts *o = run->o;

	fprintf(f, "power-cut %s, %s\n", LAB_VERSION, run->date);
	/* the guest's and QEMU's words as text: no control byte reaches a terminal */
	fprintf(f, "kernel    ");
	text_line(f, first_of(run, 0));
	fprintf(f, ", knob ");
	text_line(f, first_of(run, 2));
	fprintf(f, "\nqemu      ");
	text_line(f, first_of(run, 1));
	/* the disk as the cut found it: the throttled boot before it */
	fprintf(f, ", accel %s, data disk cache=%s%s\n",
		o->hx.accel, hx_disk_cache_mode(&o->hx, true),
		hx_drive_chosen(&o->hx, true) ? " (nbdkit drive model)" : "");
	fprintf(f, "profile   %s, state %s, filesystem %s (checker %s)\n", o->hx.profile->name,
		o->state, o->hx.fs->name, o->hx.fs->checker);
	if (hx_logs_subdir(&o->hx))
		fprintf(f, "logs      %s under --out (this run's, --keep-logs)\n",
			hx_logs_subdir(&o->hx));
	fprintf(f, "\n");
	fprintf(f, "%-6s %-9s %4s %6s %11s %11s %11s %11s %6s %6s %5s %5s %5s\n",
		"sync", "cut", "cuts", "judged", "written_B", "dirty_B", "lost_B",
		"max_lost_B", "fsync", "fsck", "corr", "unmnt", "extra");
	for (int k = 0; k < v->n_sum; k++) {
		const struct pc_summary *s = &v->sum[k];
		char fs[16], ck[16];

		snprintf(fs, sizeof(fs), "%d/%d", s->fsync_intact, s->judged);
		snprintf(ck, sizeof(ck), "%d/%d", s->fs_clean, s->judged);
		fprintf(f, "%-6d %-9s %4d %6d %11llu %11llu %11llu %11.0f %6s %6s %5d %5d %5d\n",
			s->sync, cut_label(s->cut), s->cuts, s->judged,
			(unsigned long long)s->written, (unsigned long long)s->dirty_at_cut,
			(unsigned long long)s->lost, s->lost_bytes.n ? s->lost_bytes.max : 0,
			fs, ck, s->files[FV_CORRUPTED], s->unmountable, s->unexpected_entries);
		if (s->cut == CUT__COUNT && s->kernel_figures)
			fprintf(f, "  kernel gave its at-risk figure in %d cuts; loss within it in"
				" %d, within it plus counter slack (up to %lld kB) in %d\n",
				s->kernel_figures, s->within_figure, s->max_slack_kb,
				s->within_slack);
	}
	for (int i = 0; i < run->n; i++) {
		const struct pc_record *r = &run->rec[i];

		if (r->verdict != VERDICT_OK)
			fprintf(f, "cut %d (sync=%d, %s): %s%s%s\n", i + 1, r->sync,
				cut_name(r->cut), verdict_name(r->verdict),
				r->why[0] ? ": " : "", r->why);
		for (int u = 0; u < r->n_unexpected && u < PC_MAX_UNEXPECTED; u++)
			fprintf(f, "cut %d: unexpected entry %s\n", i + 1, r->unexpected[u]);
	}
}

static json_t *j_kb(long long kb)
{
	return kb >= 0 ? json_integer(kb) : json_null();
}

static json_t *j_bytes_if(bool judged, uint64_t v)
{
	return judged ? json_integer((json_int_t)v) : json_null();
}

static json_t *j_bool_if(bool judged, bool v)
{
	return judged ? json_boolean(v) : json_null();
}

static json_t *j_num(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static json_t *j_file(const struct pc_file *f, bool judged)
{
	return json_pack("{s:o, s:s, s:I, s:I, s:s, s:o, s:o, s:o}",
			 "path", json_text(f->path), "kind", f->kind,
			 "size_bytes", (json_int_t)f->size,
			 "durable_bytes", (json_int_t)f->durable,
			 "verdict", file_verdict_name(f->v),
			 "actual_size_bytes", j_bytes_if(judged, f->actual),
			 "good_bytes", j_bytes_if(judged, f->good),
			 "lost_bytes", j_bytes_if(judged, f->lost));
}

static json_t *j_record(const struct pc_record *r, int i)
{
	json_t *files = json_array(), *extra = json_array();
	bool j = r->judged;

	for (int k = 0; k < r->n_files; k++)
		json_array_append_new(files, j_file(&r->files[k], j));
	for (int k = 0; k < r->n_unexpected && k < PC_MAX_UNEXPECTED; k++)
		json_array_append_new(extra, json_text(r->unexpected[k]));	/* the guest's */
	return json_pack("{s:i, s:s, s:i, s:s, s:o, s:s, s:o, s:b, s:b, s:o, s:o, s:o,"
			 " s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:o}",
			 "cycle", i + 1, "state", r->state, "sync", r->sync,
			 "cut", cut_name(r->cut),
			 "cut_offset_ms", r->cut_offset_ms >= 0 ?
				json_integer(r->cut_offset_ms) : json_null(),
			 "verdict", verdict_name(r->verdict), "why", json_text(r->why),
			 "cut_by_sigkill", r->cut_by_sigkill, "judged", j,
			 "fs_mounted", j_bool_if(j, r->fs_mounted),
			 "fs_clean", j_bool_if(j, r->fs_clean),
			 "fio_verify", r->fio_verify < 0 ? json_null() : json_boolean(r->fio_verify),
			 "written_bytes", (json_int_t)r->bytes_written,
			 "dataset_bytes", (json_int_t)r->dataset_bytes,
			 "dirty_at_cut_kb", j_kb(r->dirty_kb_at_cut),
			 "kernel_at_risk_kb", j_kb(r->kernel_at_risk_kb),
			 "at_risk_slack_kb", j_kb(r->at_risk_slack_kb),
			 "loss_within_risk", j && r->kernel_at_risk_kb >= 0 ?
				json_boolean(pc_loss_within_risk(r)) : json_null(),
			 "lost_bytes", j_bytes_if(j, r->bytes_lost),
			 "fsync_intact", j_bool_if(j, r->fsync_intact),
			 "unexpected_entries", extra,
			 "n_unexpected", r->n_unexpected,
			 "files", files,
			 "file_verdicts", json_pack("{s:i, s:i, s:i, s:i, s:i, s:i}",
				"intact", r->n[FV_INTACT], "missing", r->n[FV_MISSING],
				"truncated", r->n[FV_TRUNCATED], "corrupted", r->n[FV_CORRUPTED],
				"not_regular", r->n[FV_NOT_REGULAR],
				"unreadable", r->n[FV_UNREADABLE]));
}

static json_t *j_summary(const struct pc_summary *s)
{
	return json_pack("{s:i, s:s, s:i, s:i, s:i, s:i, s:I, s:I, s:I, s:I,"
			 " s:{s:o, s:o, s:o}, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:I}",
			 "sync", s->sync, "cut", cut_label(s->cut), "cuts", s->cuts,
			 "judged", s->judged, "no_suspend", s->no_suspend,
			 "failed", s->failed,
			 "written_bytes", (json_int_t)s->written,
			 "dataset_bytes", (json_int_t)s->dataset,
			 "dirty_at_cut_bytes", (json_int_t)s->dirty_at_cut,
			 "lost_bytes", (json_int_t)s->lost,
			 "lost_per_cut_bytes", "min", j_num(s->lost_bytes.min),
			 "median", j_num(s->lost_bytes.median), "max", j_num(s->lost_bytes.max),
			 "fsync_intact", s->fsync_intact, "fs_clean", s->fs_clean,
			 "unmountable", s->unmountable,
			 "files_corrupted", s->files[FV_CORRUPTED],
			 "files_not_regular", s->files[FV_NOT_REGULAR],
			 "unexpected_entries", s->unexpected_entries,
			 "kernel_figures", s->kernel_figures,
			 "loss_within_figure", s->within_figure,
			 "loss_within_figure_and_slack", s->within_slack,
			 "max_slack_kb", (json_int_t)s->max_slack_kb);
}

static int dump(FILE *f, const void *ctx)
{
	return json_dumpf(ctx, f, JSON_INDENT(2)) ? -1 : 0;
}

int pc_report_json(const char *path, const struct pc_view *v)
{
	const struct pc_result *run = v->run;
	const struct pc_opts *o = run->o;
	json_t *cycles = json_array(), *summary = json_array(), *j;
	int rc;

	for (int i = 0; i < run->n; i++)
		json_array_append_new(cycles, j_record(&run->rec[i], i));
	for (int k = 0; k < v->n_sum; k++)
		json_array_append_new(summary, j_summary(&v->sum[k]));
	j = json_pack("{s:s, s:{s:s, s:s, s:o, s:o, s:o, s:s, s:s, s:s, s:{s:s, s:o, s:o},"
		      " s:s, s:s, s:I, s:s, s:s, s:I, s:o}, s:o, s:o}",
		      "schema", PC_SCHEMA,
		      "provenance",
		      "program_version", LAB_VERSION, "date", run->date,
		      /* outside text: bad bytes as \xNN, never a dropped report */
		      "kernel_release", json_text(first_of(run, 0)),
		      "qemu_version", json_text(first_of(run, 1)),
		      "knob", json_text(first_of(run, 2)),
		      "accel", o->hx.accel, "firmware", "bios", "state", o->state,
		      "profile", "name", o->hx.profile->name, "write_bytes_per_s",
		      o->hx.profile->write_bps ? json_integer(o->hx.profile->write_bps) : json_null(),
		      "write_iops",
		      o->hx.profile->write_iops ? json_integer(o->hx.profile->write_iops) : json_null(),
		      "filesystem", o->hx.fs->name, "checker", o->hx.fs->checker,
		      "largest_file_bytes", (json_int_t)o->big_bytes,
		      "disk_cache_mode", hx_disk_cache_mode(&o->hx, true),
		      "drive_model", hx_drive_chosen(&o->hx, true) ? "nbdkit" : "off",
		      "seed", (json_int_t)o->seed,
		      /* relative to the report: this run's kept logs, or null */
		      "logs_dir", hx_logs_subdir(&o->hx) ? json_string(hx_logs_subdir(&o->hx)) :
		      json_null(),
		      "cycles", cycles, "summary", summary);
	if (!j) {
		fprintf(stderr, "%s: cannot build the JSON report\n", cli_prog);
		return -1;
	}
	rc = outfile_write(path, dump, j);
	json_decref(j);
	return rc;
}

static int write_csv(FILE *f, const void *ctx)
{
	static const char *const cols[] = {
		"cycle", "state", "sync", "cut", "cut_offset_ms", "verdict", "judged",
		"written_bytes", "dataset_bytes", "dirty_at_cut_kb", "kernel_at_risk_kb",
		"at_risk_slack_kb", "lost_bytes", "files_intact", "files_missing",
		"files_truncated", "files_corrupted", "files_not_regular",
		"files_unreadable", "unexpected_entries", "fsync_intact", "fs_clean",
		"fio_verify",
	};
	const struct pc_result *run = ctx;
	struct csv c;

	csv_begin(&c, f, cols, sizeof(cols) / sizeof(cols[0]));
	for (int i = 0; i < run->n; i++) {
		const struct pc_record *r = &run->rec[i];
		bool j = r->judged;

		csv_int(&c, i + 1);
		csv_str(&c, r->state);
		csv_int(&c, r->sync);
		csv_str(&c, cut_name(r->cut));
		csv_kb(&c, r->cut_offset_ms);
		csv_str(&c, verdict_name(r->verdict));
		csv_bool(&c, j);
		csv_int(&c, (long long)r->bytes_written);
		csv_int(&c, (long long)r->dataset_bytes);
		csv_kb(&c, r->dirty_kb_at_cut);
		csv_kb(&c, r->kernel_at_risk_kb);
		csv_kb(&c, r->at_risk_slack_kb);
		csv_kb(&c, j ? (long long)r->bytes_lost : -1);
		for (int fv = FV_INTACT; fv <= FV_UNREADABLE; fv++)
			csv_kb(&c, j ? r->n[fv] : -1);
		csv_kb(&c, j ? r->n_unexpected : -1);
		csv_bool(&c, j ? r->fsync_intact : -1);
		csv_bool(&c, j ? r->fs_clean : -1);
		csv_bool(&c, r->fio_verify);
		csv_end_row(&c);
	}
	return csv_finish(&c);
}

int pc_report_csv(const char *path, const struct pc_view *v)
{
	return outfile_write(path, write_csv, v->run);
}
