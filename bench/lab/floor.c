/* The physical floor: sequential direct writes on the same throttled disk. */
#define _GNU_SOURCE
#include "lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLOOR_BYTES (64ULL << 20)

static double json_number(json_t *j, const char *path)
{
	/* path like "jobs.0.write.bw_bytes" */
	char buf[128], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && j; tok = strtok_r(NULL, ".", &save))
		j = json_is_array(j) ? json_array_get(j, atoi(tok)) : json_object_get(j, tok);
	return json_is_number(j) ? json_number_value(j) : -1;
}

double lab_floor(struct hx *h)
{
	char *out = NULL, *start;
	json_error_t err;
	double bps;
	json_t *j;

	if (hx_run(h, 300000, &out, "RUN " HX_FIO " --name=floor --filename="
		   HX_DATA_MNT "/floor --rw=write --bs=1M --size=%llu --direct=1"
		   " --ioengine=psync --thread --output-format=json && rm -f "
		   HX_DATA_MNT "/floor && sync", FLOOR_BYTES))
		return -1;
	start = strchr(out, '{');
	j = start ? json_loads(start, JSON_DISABLE_EOF_CHECK, &err) : NULL;
	bps = j ? json_number(j, "jobs.0.write.bw_bytes") : -1;
	json_decref(j);
	free(out);
	if (bps <= 0) {
		fprintf(stderr, "%s: no bandwidth in fio's JSON output\n", cli_prog);
		return -1;
	}
	hx_progress(h, "floor: %.1f MiB/s sequential direct write (profile %s)",
		    bps / 1048576.0, h->o->profile->name);
	return bps;
}
