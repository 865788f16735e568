/* Power-cut reports: human table, JSON and CSV, in the lab's format family. */
#ifndef SLAB_PCREPORT_H
#define SLAB_PCREPORT_H

#include <stdio.h>

#include "powercut.h"

#define PC_SCHEMA "suspend-lab/power-cut/1"

struct pc_run {
	const struct pc_opts *o;	/* sync there is per record */
	char date[32];
	int n;
	struct pc_record *rec;
};

void pc_report_table(FILE *f, const struct pc_run *run);
int pc_report_json(const char *path, const struct pc_run *run);
int pc_report_csv(const char *path, const struct pc_run *run);

#endif
