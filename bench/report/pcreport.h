/*
 * Power-cut reports, in the lab's format family: a table, JSON with every
 * cut and summary[], and CSV, all rendered from one summary (summary.h).
 * A cut that was not judged has null figures, never zeros.
 */
#ifndef SLAB_PCREPORT_H
#define SLAB_PCREPORT_H

#include <stdio.h>

#include "summary.h"

#define PC_SCHEMA "suspend-lab/power-cut/2"

struct pc_view {
	const struct pc_result *run;
	const struct pc_summary *sum;	/* pc_summarise() */
	int n_sum;
};

void pc_report_table(FILE *f, const struct pc_view *v);
int pc_report_json(const char *path, const struct pc_view *v);
int pc_report_csv(const char *path, const struct pc_view *v);

#endif
